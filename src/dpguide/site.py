"""A whole-site build: run every block up front, then render each page from the results.

``SiteBuild`` is what ``hooks/execute.py`` adapts to MkDocs; it is usable (and
tested) without MkDocs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .blocks import Block, collect_site
from .engine import Engine
from .errors import AuthoringError, GuideError
from .gpu_records import GpuRecords, RecordState
from .results import RunResult
from .quiz import Question, parse_page
from .quiz_render import render_deck, render_question
from .render import indent, output_tabs, replace_blocks, run_section, skipped_section, source_block, command_line

log = logging.getLogger("mkdocs.plugins.dpguide")


class SiteBuild:
    def __init__(self, root: Path, docs_dir: Path | None = None, cache_dir: Path | None = None,
                 records_dir: Path | None = None, warn=None, info=None):
        self.warn = warn or log.warning
        self.engine = Engine(root, docs_dir=docs_dir, cache_dir=cache_dir, log=info or log.info)
        self.records = GpuRecords(records_dir or Path(root) / "records" / "gpu")
        self.blocks_by_page: dict[str, list[Block]] = {}

    def execute_notebooks(self, notebooks: dict[str, Path]) -> dict[str, Path]:
        """Executed (cached) copies of the site's notebooks, by page."""
        from .notebooks import NotebookRunner

        # without PYTHONUNBUFFERED, so processes a cell starts write whole lines, as in a reader's Jupyter
        env = {k: v for k, v in self.engine.block_env.items() if k != "PYTHONUNBUFFERED"}
        runner = NotebookRunner(self.engine.cache.directory, self.engine.scratch_root, env,
                                self.engine.environment, log=self.engine.log)
        return {page: runner.executed(page, path) for page, path in sorted(notebooks.items())}

    def execute(self, pages: dict[str, str] | None = None) -> list[Block]:
        blocks = self.engine.collect(pages)
        self.blocks_by_page = {}
        for block in blocks:
            self.blocks_by_page.setdefault(block.page, []).append(block)
        self.engine.run(blocks)
        self.quiz_runs = {block.role: block for block in blocks if block.role}
        self.check_answer_keys(self.engine.questions)
        for block in blocks:
            if block.options.needs_gpu_record:
                state = self.records.state(block)
                if state.status == "stale":
                    self.warn(f"{block.label}: GPU record {state.path} is stale ({state.reason}); "
                              f"refresh it with: dpguide record --only {block.identity}")
                elif state.status == "invalid":
                    self.warn(f"{block.label}: GPU record {state.path} is invalid ({state.reason}); "
                              "it is not shown. Re-record it or restore it from git.")
        return blocks

    # ------------------------------------------------------------------ answer keys
    def question_runs(self, q: Question) -> tuple[RunResult | None, dict[int, RunResult], str | None]:
        """The real run of the right answer, of each executed wrong option, and a note if unverified."""
        block = self.quiz_runs.get((q.id, "answer"))
        answer, note = None, None
        if block is not None and block.options.device == "cuda":
            state = self.records.state(block)
            if state.status == "recorded":
                answer = state.result
            else:
                note = ("The answer is not yet verified by a run: it needs a GPU, and this question's GPU "
                        f"record is {state.status} (record it with: dpguide record --only {block.identity}).")
        elif block is not None:
            answer = self.engine.result_for(block)
        options = {}
        for index in range(len(q.options)):
            option_block = self.quiz_runs.get((q.id, f"option-{index}"))
            if option_block is not None and self.engine.result_for(option_block) is not None:
                options[index] = self.engine.result_for(option_block)
        return answer, options, note

    def check_answer_keys(self, questions: list[Question]) -> None:
        """A 'what does this print' question's right option must equal the real output."""
        problems = []
        for q in questions:
            if q.type != "choice" or not q.prints:
                continue
            answer, _, _ = self.question_runs(q)
            if answer is None:
                continue
            printed = answer.text(q.prints, "stdout").strip()
            right = next(o for o in q.options if o.correct)
            if printed != right.text.strip():
                problems.append(str(AuthoringError(
                    q.page, right.line, f"question {q.id!r}: the option marked right is {right.text.strip()!r} "
                    f"but {q.prints} really printed {printed!r}",
                    "fix the answer key (or the code): the right option must be exactly what the run prints")))
            for index, option in enumerate(q.options):
                if not option.correct and option.text.strip() == printed:
                    problems.append(str(AuthoringError(q.page, option.line, f"question {q.id!r}: option "
                                        f"{option.text!r} is marked wrong but is exactly what the run prints")))
        if problems:
            raise GuideError("\n".join(problems))

    # ------------------------------------------------------------------ rendering
    def render_page(self, page: str, markdown: str, link_for=None) -> str:
        """The page's Markdown with every block followed by its real (or recorded) output,
        and every quiz or flashcard fence replaced by its widget."""
        blocks, errors, _, _ = collect_site(self.engine.docs_dir, self.engine.environment, {page: markdown})
        if errors:
            raise GuideError("\n".join(map(str, errors)))
        rendered = {}
        for block in blocks:
            if block.role:
                continue
            rendered[block.line] = (block.fenced.end_line, indent(self.render_block(block), block.fenced.indent))
        questions, decks, fences = parse_page(page, markdown)
        by_line = {q.line: q for q in questions} | {d.line: d for d in decks}
        number = 0
        for fence in fences:
            item = by_line[fence.line]
            if isinstance(item, Question):
                number += 1
                html = render_question(item, *self.question_runs(item), number=number)
            else:
                html = render_deck(item, link_for or (lambda target: target))
            rendered[fence.line] = (fence.end_line, indent(["", html, ""], fence.indent))
        return replace_blocks(markdown, rendered) if rendered else markdown

    def render_block(self, block: Block) -> list[str]:
        lines = source_block(block) + [""]
        if block.options.skip:
            return lines + skipped_section(block)
        if block.options.device == "cpu":
            result = self.engine.result_for(block)
            if result is None:
                raise GuideError(f"{block.label}: no result for this block: the page changed after the build ran its blocks; build again")
            return lines + run_section(block, result)
        state = self.records.state(block)
        gpu = gpu_section(block, state)
        if block.options.device == "cuda":
            return lines + ['<div class="dpg-run" markdown>', "", *command_line(block), "", *gpu, "", "</div>"]
        cpu = run_section(block, self.engine.result_for(block))
        return lines + ['=== "CPU (this build)"', "", *indent(cpu, "    "), "",
                        '=== "GPU (recorded)"', "", *indent(gpu, "    ")]


def gpu_section(block: Block, state: RecordState) -> list[str]:
    record_cmd = f"dpguide record --only {block.identity}"
    needs = f"{block.options.gpus} CUDA GPU(s)" + (f" with {block.options.backend}" if block.options.backend else "")
    if state.status == "recorded":
        return [f'<p class="dpg-provenance">{state.provenance_line()}</p>', "", *output_tabs(state.result)]
    if state.status == "stale":
        return ['!!! danger "GPU record is stale"', "",
                f"    This block's code changed after its output was recorded, so the old output is not "
                f"shown. Re-record it on a machine with {needs}: `{record_cmd}` "
                f"(record file `{state.path.name}`)."]
    if state.status == "invalid":
        return ['!!! danger "GPU record refused"', "",
                f"    The record `{state.path.name}` failed its check ({state.reason}); nothing from it is shown."]
    return ['!!! warning "GPU output not yet recorded"', "",
            f"    This block needs {needs}. It has not been run on a real GPU yet, so no output is shown "
            f"here. On a machine with {needs}, record it with `{record_cmd}`."]
