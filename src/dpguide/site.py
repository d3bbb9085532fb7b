"""A whole-site build: run every block up front, then render each page from the results.

``SiteBuild`` is what ``hooks/execute.py`` adapts to MkDocs; it is usable (and
tested) without MkDocs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .blocks import Block, collect_site, site_notebooks, site_pages
from .cache import sweep_stale_temporaries
from .claims import PageClaimRenderer, notebook_aliases, page_aliases, probe_targets
from .diagrams import DiagramRecords
from .coverage import check_coverage
from .engine import Engine
from .site_claims import BACKENDS_EXPR, CUDA_EXPR, TORCH_EXPR, SiteClaims
from .proofs import SiteProofs
from .site_facts import build_facts, reading_minutes
from .site_files import linked_notebook, snippet_downloads
from .errors import GuideError
from .gpu_records import GpuRecords, RecordState
from .guardian import marker_env
from .release_records import STATUSES, ReleaseComparison, ReleaseRecords, build_flavour
from .release_drift import Drift
from .release_render import DRIFT_MARKER, build_note, release_lines
from .results import RunResult
from .quiz import Question, parse_page
from .quiz_render import render_deck, render_question, score_bar_html
from .render import page_anchors, indent, output_tabs, replace_blocks, run_section, skipped_section, source_block, command_line

log = logging.getLogger("mkdocs.plugins.dpguide")


class SiteBuild:
    """One build of the site: ``execute`` runs and checks everything, then ``render_page`` writes each
    page from the results; proofs, claims, site facts and served files each live in their own module."""

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
        if swept := sweep_stale_temporaries(self.engine.cache.directory):
            self.engine.log(f"removed {swept} temporary file(s) that a killed build left in "
                            f"{self.engine.cache.directory}")
        self.blocks_by_page: dict[str, list[Block]] = {}
        self.executed_pages: dict[str, str] = {}       # page -> the text execute() resolved its blocks from
        self.claims = SiteClaims(self.engine, {**self.engine.block_env, **marker_env()})
        self.linked = 0     # code spans linked to their reference entry, counted as pages render
        self.proofs = SiteProofs(self.engine, self.records)
        self._reading_minutes: dict[str, int] | None = None

    # what this build proved, for tests and tools that read them off the build
    proof_counts = property(lambda self: self.proofs.proof_counts)
    card_counts = property(lambda self: self.proofs.card_counts)
    proof_kind = property(lambda self: self.proofs.proof_kind)
    checker = property(lambda self: self.claims.checker)
    claim_counts = property(lambda self: self.claims.counts)

    def execute_notebooks(self, notebooks: dict[str, Path]) -> dict[str, Path]:
        """Executed (cached) copies of the site's notebooks, by page, with the torch names of their
        Markdown cells linked as on a page (after ``execute``, which checked them)."""
        from .notebooks import NotebookRunner

        runner = NotebookRunner(self.engine.cache.directory, self.engine.scratch_root, self.engine.block_env,
                                self.engine.environment, log=self.engine.log)
        return {page: self.linked_notebook(page, runner.executed(page, path))
                for page, path in sorted(notebooks.items())}

    def linked_notebook(self, page: str, executed: Path) -> Path:
        """``executed`` with the torch names of its Markdown cells linked as on a page (site_files)."""
        def renderer_for(cells):
            return PageClaimRenderer(notebook_aliases(cells), self.checker, self.site_facts())

        path, linked = linked_notebook(executed, renderer_for, self.engine.cache.directory / "notebooks-linked" / page)
        self.linked += linked
        return path

    def snippet_downloads(self, snippets: dict[str, Path]) -> dict[str, Path]:
        """What the site serves for each snippet file: the file without the engine's header lines."""
        return snippet_downloads(self.engine.cache.directory / "downloads", snippets)

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
        claims = self.claims.scan(pages, notebooks)
        # the probe of torch names and inline values imports torch while the blocks run
        self.checker.start(*probe_targets(claims))
        try:
            self.engine.run(blocks)
            self.proofs.check(blocks, self.blocks_by_page)
            check_coverage(pages, self.engine.questions, self.engine.decks, self.engine.log, self.warn)
            self.claims.check(claims, blocks, self.site_facts())
            self.linked = 0
        finally:
            self.checker.cancel()
        self.compare_releases(blocks)
        for warning in self.records.warnings(blocks):
            self.warn(warning)
        return blocks

    def site_facts(self) -> dict[str, int]:
        """Counts a page may quote with `{site} NAME`: what this build proved, computed now."""
        return build_facts(self.proofs.proof_counts, self.proofs.card_counts, self.claim_counts,
                           self.reading_minutes())

    def reading_minutes(self) -> dict[str, int]:
        """Each Learn page's reading time, counted once per build: every page's claims renderer asks
        for the site facts."""
        if self._reading_minutes is None:
            self._reading_minutes = reading_minutes(self.engine.docs_dir)
        return self._reading_minutes

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
                html = render_question(item, *self.proofs.question_runs(item), number=number, claims=claims,
                                       proof=self.proofs.proof_kind(item), bank_runs=self.proofs.bank_runs(item))
                if number == 1:
                    html = score_bar_html(len(questions)) + "\n" + html
            else:
                html = render_deck(item, link_for or (lambda target: target), claims=claims,
                                   proofs=self.proofs.card_proofs(item))
            rendered[fence.line] = (fence.end_line, indent(["", html, ""], fence.indent))
        rendered.update(self.diagrams.replacements(page, markdown))
        prose = claims.prose(markdown)
        self.linked += claims.linked
        text = replace_blocks(prose, rendered) if rendered else prose
        if DRIFT_MARKER in text:
            text = text.replace(DRIFT_MARKER, "\n".join(self.drift.report()))
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
