"""A whole-site build: run every block up front, then render each page from the results.

``SiteBuild`` is what ``hooks/execute.py`` adapts to MkDocs; it is usable (and
tested) without MkDocs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .blocks import Block
from .engine import Engine
from .errors import GuideError
from .gpu_records import GpuRecords, RecordState
from .render import indent, output_tabs, replace_blocks, run_section, skipped_section, source_block, command_line

log = logging.getLogger("mkdocs.plugins.dpguide")


class SiteBuild:
    def __init__(self, root: Path, docs_dir: Path | None = None, cache_dir: Path | None = None,
                 records_dir: Path | None = None, warn=None, info=None):
        self.warn = warn or log.warning
        self.engine = Engine(root, docs_dir=docs_dir, cache_dir=cache_dir, log=info or log.info)
        self.records = GpuRecords(records_dir or Path(root) / "records" / "gpu")
        self.blocks_by_page: dict[str, list[Block]] = {}

    def execute(self, pages: dict[str, str] | None = None) -> list[Block]:
        blocks = self.engine.collect(pages)
        self.blocks_by_page = {}
        for block in blocks:
            self.blocks_by_page.setdefault(block.page, []).append(block)
        self.engine.run(blocks)
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

    def render_page(self, page: str, markdown: str) -> str:
        """The page's Markdown with every block followed by its real (or recorded) output."""
        blocks = self.blocks_by_page.get(page)
        if not blocks:
            return markdown
        current = {b.line: b for b in self.engine.collect({page: markdown})}
        rendered = {}
        for line, block in current.items():
            rendered[line] = (block.fenced.end_line, indent(self.render_block(block), block.fenced.indent))
        return replace_blocks(markdown, rendered)

    def render_block(self, block: Block) -> list[str]:
        lines = source_block(block) + [""]
        if block.options.skip:
            return lines + skipped_section(block)
        if block.options.device == "cpu":
            result = self.engine.result_for(block)
            if result is None:
                raise GuideError(f"{block.label}: no result for this block (it was not run in this build)")
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
