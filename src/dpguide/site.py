"""A whole-site build: run every block up front, then render each page from the results.

``SiteBuild`` is what ``hooks/execute.py`` adapts to MkDocs; it is usable (and
tested) without MkDocs.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from .blocks import Block, collect_site, site_notebooks, site_pages
from .cache import atomic_write_text, sweep_stale_temporaries
from .claims import (ClaimChecker, InlineValue, PageClaimRenderer, PageClaims, check_site, page_aliases, probe_targets,
                     cell_text, notebook_aliases, prose_lines, scan_notebook, scan_page)
from .diagrams import DiagramRecords
from .coverage import coverage, draft_warnings, drafts, learn_pages, report, shortfalls
from .engine import Engine
from .snippet_files import read_snippet
from .errors import AuthoringError, GuideError
from .gpu_records import GpuRecords, RecordState
from .release_records import STATUSES, ReleaseComparison, ReleaseRecords, build_flavour
from .release_drift import Drift
from .release_render import DRIFT_MARKER, build_note, release_lines
from .results import RunResult
from .quiz import Question, parse_page, wrong_bank_items
from .quiz_render import output_text, render_deck, render_question, score_bar_html
from .render import page_anchors, indent, output_tabs, replace_blocks, run_section, skipped_section, source_block, command_line

log = logging.getLogger("mkdocs.plugins.dpguide")

#: how a question's answer key is proven, strongest first (shown on the question and counted by the build)
WORDS_PER_MINUTE = 200  # a common reading speed for technical prose; code read slower is not counted

PROOF_KINDS = {
    "output-compared": "compared with the printed output of a run",
    "wrong-options-fail": "wrong options each shown failing by a run",
    "fill-unique": "fill-ins whose answer runs and whose every wrong bank item fails or prints something else",
    "fill-answer-runs": "fill-ins whose answer runs (wrong bank items not run: torchrun or GPU)",
    "code-runs": "whose code runs, not compared with the options",
    "gpu-unrecorded": "needing a GPU run not yet recorded",
    "explained": "explained, not run",
}

#: what the provenance line under each output lists as the torch build's process-group backends
BACKENDS_EXPR = ('", ".join(b for b in ("gloo", "nccl", "mpi", "ucc", "xccl") '
                 'if getattr(dist, f"is_{b}_available", lambda: False)())')
#: the build's torch as a reader names it (local label included) and its CUDA version ('' without CUDA)
TORCH_EXPR = "torch.__version__"
CUDA_EXPR = "torch.version.cuda or ''"


def write_if_changed(path: Path, text: str) -> Path:
    """Make ``path`` hold ``text``: written only when it differs, by a rename (never half a file)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return path


class SiteBuild:
    def __init__(self, root: Path, docs_dir: Path | None = None, cache_dir: Path | None = None,
                 records_dir: Path | None = None, warn=None, info=None):
        self.warn = warn or log.warning
        self.engine = Engine(root, docs_dir=docs_dir, cache_dir=cache_dir, log=info or log.info)
        if info is None:    # a real MkDocs build: an updating bar on a terminal, plain lines in a log
            self.engine.progress_tty = None
        self.records = GpuRecords(records_dir or Path(root) / "records" / "gpu")
        records_root = Path(records_dir).parent if records_dir else Path(root) / "records"
        self.releases_dir = records_root / "releases"
        self.diagrams = DiagramRecords.of_site(records_root, self.engine.docs_dir)
        self.releases: ReleaseRecords | None = None     # read by compare_releases
        self.comparisons: dict[str, list[ReleaseComparison]] = {}
        swept = sweep_stale_temporaries(self.engine.cache.directory)
        if swept:
            self.engine.log(f"removed {swept} temporary file(s) that a killed build left in "
                            f"{self.engine.cache.directory}")
        self.blocks_by_page: dict[str, list[Block]] = {}
        self.executed_pages: dict[str, str] = {}       # page -> the text execute() resolved its blocks from
        from .guardian import marker_env

        self.checker = ClaimChecker(self.engine.cache.directory, self.engine.environment,
                                    {**self.engine.block_env, **marker_env()})
        self.claim_counts: dict[str, int] = {}
        self.linked = 0

    def execute_notebooks(self, notebooks: dict[str, Path]) -> dict[str, Path]:
        """Executed (cached) copies of the site's notebooks, by page, with the torch names of their
        Markdown cells linked as on a page (after ``execute``, which checked them)."""
        from .notebooks import NotebookRunner

        runner = NotebookRunner(self.engine.cache.directory, self.engine.scratch_root, self.engine.block_env,
                                self.engine.environment, log=self.engine.log)
        return {page: self.linked_notebook(page, runner.executed(page, path))
                for page, path in sorted(notebooks.items())}

    def linked_notebook(self, page: str, executed: Path) -> Path:
        """``executed`` with the torch names of its Markdown cells linked; the executed copy itself when
        there is nothing to link, else a copy under the cache written (by a rename, only when its
        content differs) so that two builds at once never see half a file."""
        notebook = json.loads(executed.read_text(encoding="utf-8"))
        renderer = PageClaimRenderer(notebook_aliases(notebook["cells"]), self.checker, self.site_facts())
        for cell in notebook["cells"]:
            if cell.get("cell_type") == "markdown":
                cell["source"] = renderer.prose(cell_text(cell))
        if not renderer.linked:
            return executed
        self.linked += renderer.linked
        return write_if_changed(self.engine.cache.directory / "notebooks-linked" / page,
                                json.dumps(notebook, ensure_ascii=False, indent=1) + "\n")

    def snippet_downloads(self, snippets: dict[str, Path]) -> dict[str, Path]:
        """What the site serves for each snippet file: the file without the engine's header lines.

        Written under the cache (by a rename, so two builds at once never see half a file)
        and only when the content differs, so the download is exactly the code a page shows.
        """
        folder = self.engine.cache.directory / "downloads"
        served = {}
        for uri, path in sorted(snippets.items()):
            # checked as any snippet is (header, sections, line length), from the file MkDocs found
            snippet = read_snippet(path.parent, path.name, display=f"docs/{uri}")
            if snippet.header_lines:
                served[uri] = write_if_changed(folder / uri, snippet.body)
        return served

    def execute(self, pages: dict[str, str] | None = None, notebooks: dict[str, Path] | None = None) -> list[Block]:
        """Run every block of ``pages`` (default: the site's Markdown pages) and check the site: answer
        keys, card proofs, coverage, and the torch names of every page's and notebook's prose."""
        pages = pages if pages is not None else site_pages(self.engine.docs_dir)
        notebooks = notebooks if notebooks is not None else site_notebooks(self.engine.docs_dir)
        self.executed_pages = dict(pages)
        blocks = self.engine.collect(pages)
        self.blocks_by_page = {}
        for block in blocks:
            self.blocks_by_page.setdefault(block.page, []).append(block)
        claims = self.scan_claims(pages, notebooks)
        # the probe of torch names and inline values imports torch while the blocks run
        self.checker.start(*probe_targets(claims))
        try:
            self.engine.run(blocks)
            self.quiz_runs = {block.role: block for block in blocks if block.role}
            self.check_answer_keys(self.engine.questions)
            self.check_card_proofs(blocks)
            self.check_coverage(pages)
            self.check_claims(claims, blocks)
        finally:
            self.checker.cancel()
        self.compare_releases(blocks)
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

    def bank_runs(self, q: Question) -> dict[tuple[int, str], RunResult]:
        """The real run of the code with each wrong bank item in its blank: {(blank, item): result}."""
        found = {}
        for blank, item in wrong_bank_items(q) if q.type == "fill-blank" else []:
            block = self.quiz_runs.get((q.id, f"bank-{blank}-{q.bank.index(item)}"))
            result = self.engine.result_for(block) if block is not None else None
            if result is not None:
                found[(blank, item)] = result
        return found

    def proof_kind(self, q: Question) -> str:
        """How this question's key is proven: one of PROOF_KINDS."""
        answer, options, note = self.question_runs(q)
        if answer is None:
            return "gpu-unrecorded" if note else "explained"
        if q.type == "fill-blank":
            return "fill-unique" if len(self.bank_runs(q)) == len(wrong_bank_items(q)) else "fill-answer-runs"
        if q.prints:
            return "output-compared"
        wrong = [i for i, o in enumerate(q.options) if not o.correct]
        return "wrong-options-fail" if wrong and all(i in options for i in wrong) else "code-runs"

    def check_answer_keys(self, questions: list[Question]) -> None:
        """A 'what does this print' question's right option must equal the real output; a fill-in's key
        must be the only bank choice that runs and prints what the answer prints."""
        problems = []
        self.proof_counts = {kind: 0 for kind in PROOF_KINDS}
        for q in questions:
            self.proof_counts[self.proof_kind(q)] += 1
            if q.type == "fill-blank":
                problems += self._check_fill_key(q)
                continue
            if not q.prints:
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
        counts = self.proof_counts
        self.engine.log("answer keys: " + ", ".join(f"{counts[k]} {PROOF_KINDS[k]}" for k in PROOF_KINDS)
                        + f" (of {len(questions)} questions)")

    def _check_fill_key(self, q: Question) -> list[str]:
        answer, _, _ = self.question_runs(q)
        if answer is None:
            return []
        problems = []
        for (blank, item), result in self.bank_runs(q).items():
            if result.succeeded and result.text() == answer.text():
                problems.append(str(AuthoringError(
                    q.page, q.line, f"question {q.id!r}: with {item!r} in blank [{blank}] the code also runs and "
                    "prints exactly what the answer prints, so the key is not the only right answer",
                    "make the code show the difference (print what the blank changes), or drop that bank item")))
        return problems

    def check_coverage(self, pages) -> None:
        """Print the questions and cards of every lesson; stop when one has too few, warn for a draft (coverage.py)."""
        rows = coverage(learn_pages(pages), self.engine.questions, self.engine.decks)
        self.engine.log(report(rows))
        problems, warnings = draft_warnings(shortfalls(rows), drafts(pages))
        for warning in warnings:
            self.warn(warning)
        if problems:
            raise GuideError("\n".join(str(p) for p in problems))

    def site_facts(self) -> dict[str, int]:
        """Counts a page may quote with `{site} NAME`: what this build proved, computed now."""
        counts = getattr(self, "proof_counts", {})
        cards = getattr(self, "card_counts", {})
        proven = sum(counts.get(k, 0) for k in ("output-compared", "wrong-options-fail", "fill-unique"))
        return {"questions": sum(counts.values()), "questions_proven": proven,
                "questions_run": proven + counts.get("code-runs", 0) + counts.get("fill-answer-runs", 0),
                "questions_explained": counts.get("explained", 0) + counts.get("gpu-unrecorded", 0),
                **{f"questions_{k.replace('-', '_')}": v for k, v in counts.items()},
                "cards": cards.get("check", 0) + cards.get("proof", 0),
                "cards_checked": cards.get("check", 0), "cards_linked": cards.get("proof", 0),
                "statements_cited": self.claim_counts.get("sources", 0),
                **self.reading_minutes()}

    def reading_minutes(self) -> dict[str, int]:
        """`minutes_learn_ddp`: a Learn page's reading time, from the words of its prose at 200 a minute.

        Read once per build: every page's claims renderer asks for the site facts.
        """
        if getattr(self, "_reading_minutes", None) is None:
            self._reading_minutes = self._count_reading_minutes()
        return self._reading_minutes

    def _count_reading_minutes(self) -> dict[str, int]:
        found = {"reading_words_per_minute": WORDS_PER_MINUTE}
        for path in sorted((self.engine.docs_dir / "learn").glob("*.md")):
            words = sum(len(line.split()) for _, line in prose_lines(path.read_text(encoding="utf-8")))
            found["minutes_learn_" + re.sub(r"\W", "_", path.stem)] = max(1, round(words / WORDS_PER_MINUTE))
        return found

    # ------------------------------------------------------------------ flashcards
    def check_card_proofs(self, blocks: list[Block]) -> None:
        """Every card's proof: names a run that exists and really ran on this build (or its check ran)."""
        by_anchor: dict[tuple[str, str], Block] = {}
        for page, page_blocks in self.blocks_by_page.items():
            mine = [b for b in page_blocks if not b.role]
            for line, anchor in page_anchors(mine).items():
                by_anchor[(page, anchor)] = next(b for b in mine if b.line == line)
        problems = []
        self.card_counts = {"check": 0, "proof": 0}
        for deck in self.engine.decks:
            for card in deck.cards:
                if card.check:
                    self.card_counts["check"] += 1
                    continue
                page, _, anchor = card.proof.partition("#")
                block = by_anchor.get((page, anchor))
                if block is None:
                    known = sorted(a for p, a in by_anchor if p == page)
                    problems.append(str(AuthoringError(deck.page, card.line, f"card proof {card.proof!r} names no run",
                                                       (f"runs on {page}: " + ", ".join(known)) if known else
                                                       f"{page} has no runs (is the path right?)")))
                elif self.engine.result_for(block) is None:
                    problems.append(str(AuthoringError(deck.page, card.line, f"card proof {card.proof!r} names a "
                                                       "block this build does not run (skipped or GPU-only)",
                                                       "point at a run the CPU build makes, or give the card a check:")))
                else:
                    self.card_counts["proof"] += 1
        if problems:
            raise GuideError("\n".join(problems))
        self.engine.log(f"flashcards: {self.card_counts['check']} proven by their own check run, "
                        f"{self.card_counts['proof']} by a linked run on a Learn page, "
                        f"of {sum(len(d.cards) for d in self.engine.decks)} cards")

    def card_proofs(self, deck) -> list[dict]:
        """For each card: {"output": text of its check run} or {"proof": page#anchor}."""
        found = []
        for index, card in enumerate(deck.cards):
            if card.check:
                block = self.quiz_runs.get((deck.id, f"card-{index}"))
                result = self.engine.result_for(block) if block is not None else None
                if result is None:
                    raise GuideError(f"{deck.page}:{card.line}: no result for this card's check: build again")
                found.append({"output": output_text(result), "command": result.reader_command})
            else:
                found.append({"proof": card.proof})
        return found

    # ------------------------------------------------------------------ claims in prose
    def scan_claims(self, pages: dict[str, str], notebooks: dict[str, Path] | None = None) -> dict[str, PageClaims]:
        """The torch names and inline values of every page, the torch names of every notebook's
        Markdown cells (and the build's own values), after ``collect``."""
        snippets = self.engine.docs_dir / "snippets"
        claims = {page: scan_page(page, text, snippets,
                                  [q for q in self.engine.questions if q.page == page],
                                  [d for d in self.engine.decks if d.page == page])
                  for page, text in pages.items() if page.endswith(".md")}
        try:
            claims |= {page: scan_notebook(page, path.read_text(encoding="utf-8"))
                       for page, path in sorted((notebooks or {}).items())}
        except AuthoringError as exc:
            raise GuideError(str(exc)) from None
        claims["(build)"] = PageClaims({}, values=[InlineValue("(build)", 0, expr)
                                                   for expr in (BACKENDS_EXPR, TORCH_EXPR, CUDA_EXPR)])
        return claims

    def check_claims(self, claims: dict[str, PageClaims], blocks: list[Block]) -> None:
        """Resolve every torch name and compute every inline value of the site; stop on any that fails."""
        printed: dict[str, list[str]] = {}
        for block in blocks:
            result = self.engine.result_for(block)
            if result is not None:
                printed.setdefault(block.page, []).append(result.text())
        problems = check_site(claims, self.checker, {p: "\n".join(t) for p, t in printed.items()})
        facts = self.site_facts()
        problems += [str(AuthoringError(page, line, f"`{{site}} {name}` is not a fact of the build",
                                        "known: " + ", ".join(sorted(facts))))
                     for page, c in claims.items() for line, name in c.site_facts if name not in facts]
        if problems:
            raise GuideError("\n".join(problems))
        mentions = [m for c in claims.values() for m in c.mentions]
        values = [v for p, c in claims.items() if p != "(build)" for v in c.values]
        self.linked = 0
        self.claim_counts = {"mentions": sum(not m.not_api for m in mentions),
                             "names": len({m.name for m in mentions if not m.not_api}),
                             "not_api": sum(m.not_api for m in mentions), "values": len(values),
                             "probed": self.checker.probed}
        sources = [s for c in claims.values() for s in c.sources]
        self.claim_counts |= {"sources": len(sources), "sources_docs": sum(s.is_docs for s in sources),
                              "gpu_uncited": sum(len(c.gpu_uncited) for c in claims.values())}
        c = self.claim_counts
        self.engine.log(f"claims: {c['mentions']} mentions of {c['names']} torch names resolved, "
                        f"{c['not_api']} marked as not existing and shown failing, {c['values']} inline values "
                        f"computed ({c['probed']} names/values/sources probed now, the rest from the cache)")
        self.engine.log(f"claims: {c['sources']} statements not run here (GPU, NCCL) cite their source: "
                        f"{c['sources'] - c['sources_docs']} a file of the build's torch (checked), "
                        f"{c['sources_docs']} a PyTorch docs page; {c['gpu_uncited']} sentences name GPUs, CUDA or "
                        "NCCL with neither a citation in their paragraph nor a GPU block in their section (a "
                        "statement of fact among them needs one: `dpguide gpu-statements` lists them)")

    # ------------------------------------------------------------------ other torch releases
    def build_torch(self) -> str | None:
        """The build's torch version as ``torch.__version__`` says it (``2.15.0+cu132``)."""
        return self.checker.value(TORCH_EXPR)

    def compare_releases(self, blocks: list[Block]) -> None:
        """Compare every output with what each recorded release printed; log one line per release."""
        self.releases = ReleaseRecords(self.releases_dir)
        self.drift = Drift.of(self.releases, blocks, self.engine.result_for, self.build_torch())
        self.comparisons = self.drift.comparisons
        for release, row in self.drift.counts().items():
            self.engine.log(f"releases: {release}: " + ", ".join(f"{row[s]} {s}" for s in STATUSES))
        for torch, labels in self.drift.stale().items():
            self.warn(f"release record torch-{torch}.json is stale for {len(labels)} block(s) whose code changed "
                      f"after it was recorded ({', '.join(labels[:5])}{', ...' if len(labels) > 5 else ''}); "
                      f"their old runs are not shown. Refresh it: python3 tools/record_release.py {torch} --refresh")

    def drift_section(self) -> list[str]:
        return self.drift.report()

    def page_build_note(self) -> str:
        on = self.engine.environment
        return build_note(self.build_torch(), build_flavour(self.checker.value(CUDA_EXPR)), on["python"],
                          on["device"])

    def backends(self) -> str | None:
        """The process-group backends the build's torch offers (computed by a run, cached per environment)."""
        return self.checker.value(BACKENDS_EXPR)

    def report_links(self) -> None:
        self.engine.log(f"claims: {self.linked} code spans linked to their PyTorch reference entry")
        self.engine.log(self.diagrams.summary())

    def claim_renderer(self, page: str, markdown: str) -> PageClaimRenderer:
        return PageClaimRenderer(page_aliases(markdown, self.engine.docs_dir / "snippets"), self.checker,
                                 self.site_facts(), self.value_elsewhere, self.build_torch())

    def value_elsewhere(self, expr: str, value: str) -> list[tuple[str, str]]:
        """Where an inline value is something else on another recorded release (nothing before the
        releases are compared)."""
        return self.releases.value_differences(expr, value, self.build_torch()) if self.releases else []

    # ------------------------------------------------------------------ rendering
    def render_page(self, page: str, markdown: str, link_for=None) -> str:
        """The page's Markdown with every block followed by its real (or recorded) output,
        and every quiz or flashcard fence replaced by its widget."""
        if self.executed_pages.get(page) == markdown:    # as executed: its blocks are resolved already
            blocks = self.blocks_by_page.get(page, [])
        else:
            blocks, errors, _, _ = collect_site(self.engine.docs_dir, self.engine.environment, {page: markdown})
            if errors:
                raise GuideError("\n".join(map(str, errors)))
        rendered = {}
        anchors = page_anchors([b for b in blocks if not b.role])
        for block in blocks:
            if block.role:
                continue
            rendered[block.line] = (block.fenced.end_line,
                                    indent(self.render_block(block, anchors[block.line]), block.fenced.indent))
        questions, decks, fences = parse_page(page, markdown)
        claims = self.claim_renderer(page, markdown)
        by_line = {q.line: q for q in questions} | {d.line: d for d in decks}
        number = 0
        for fence in fences:
            item = by_line[fence.line]
            if isinstance(item, Question):
                number += 1
                html = render_question(item, *self.question_runs(item), number=number, claims=claims,
                                       proof=self.proof_kind(item), bank_runs=self.bank_runs(item))
                if number == 1:
                    html = score_bar_html(len(questions)) + "\n" + html
            else:
                html = render_deck(item, link_for or (lambda target: target), claims=claims,
                                   proofs=self.card_proofs(item))
            rendered[fence.line] = (fence.end_line, indent(["", html, ""], fence.indent))
        rendered.update(self.diagrams.replacements(page, markdown))
        prose = claims.prose(markdown)
        self.linked += claims.linked
        text = replace_blocks(prose, rendered) if rendered else prose
        if DRIFT_MARKER in text:
            text = text.replace(DRIFT_MARKER, "\n".join(self.drift_section()))
        if any(b.options.runs_on_cpu_build for b in blocks if not b.role):
            text = _after_title(text, self.page_build_note())
        return text

    def render_block(self, block: Block, anchor: str | None = None) -> list[str]:
        lines = source_block(block) + [""]
        if block.options.skip:
            return lines + skipped_section(block)
        if block.options.device == "cpu":
            result = self.engine.result_for(block)
            if result is None:
                raise GuideError(f"{block.label}: no result for this block: the page changed after the build ran its blocks; build again")
            return lines + self.run_and_releases(block, result, anchor)
        state = self.records.state(block)
        gpu = gpu_section(block, state)
        if block.options.device == "cuda":
            return lines + ['<div class="dpg-run" markdown>', "", *command_line(block), "", *gpu, "", "</div>"]
        cpu = self.run_and_releases(block, self.engine.result_for(block), anchor)
        return lines + ['=== "CPU (this build)"', "", *indent(cpu, "    "), "",
                        '=== "GPU (recorded)"', "", *indent(gpu, "    ")]

    def run_and_releases(self, block: Block, result: RunResult, anchor: str | None) -> list[str]:
        """The output of the build's run, and under it what the recorded other releases print."""
        section = run_section(block, result, self.backends(), anchor)
        extra = release_lines(self.comparisons.get(block.key, []),
                              self.releases.varies_here(block, result, self.build_torch()))
        return section[:-1] + ([""] + extra + [""] if extra else []) + section[-1:]


def _after_title(markdown: str, note: str) -> str:
    """``markdown`` with ``note`` as the paragraph after its title: the first line that is not blank,
    when it is a level-one heading (a ``#`` line later on may be a comment inside a code block)."""
    lines = markdown.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    at = first + 1 if lines and lines[first].startswith("# ") else 0
    return "\n".join(lines[:at] + ["", note, ""] + lines[at:])


def gpu_section(block: Block, state: RecordState) -> list[str]:
    record_cmd = f"dpguide record --only {block.identity}"
    needs = f"{block.options.gpus} CUDA GPU" + ("" if block.options.gpus == 1 else "s") + (f" with {block.options.backend}" if block.options.backend else "")
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
            f"    This block needs {needs}. No run of it on a real GPU has been recorded yet, so no output "
            f"is shown here: on a machine with {needs}, the *Run it* command above shows you what it "
            f"prints. (For the site's maintainers: `{record_cmd}` records it.)"]
