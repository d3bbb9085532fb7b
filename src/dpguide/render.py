"""Rendering a block and its real output back into the page's Markdown.

The code stays as written (an include line stays an include line, expanded by
pymdownx.snippets). Under it come the command a reader types, a download link
for snippet files, and the output: one tab per rank plus the merged stream for
torchrun blocks, a single output box for python blocks. Output text is put in
fenced code blocks verbatim; labels such as ``[rank 1]`` in the merged tab are
added around the text, never inside it.
"""

from __future__ import annotations

import posixpath
import re

from .blocks import Block
from .capture import GAP
from .results import LAUNCHER, MAIN, RunResult

MERGED_TAB = "all ranks, in arrival order"


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def code_box(text: str, title: str | None = None) -> list[str]:
    fence = _fence_for(text)
    head = f'{fence}text' + (f' title="{title}"' if title else "")
    return [head, *text.split("\n"), fence]


def _quote(value: str) -> str:
    return value.replace('"', "'")


def source_block(block: Block) -> list[str]:
    """The code as the page wrote it, with our options removed and display options kept."""
    fenced = block.fenced
    display = dict(block.options.display)
    if block.snippet and "title" not in display:
        display["title"] = block.snippet.relpath.rsplit("/", 1)[-1]
    attrs = "".join(f' {k}="{_quote(v)}"' for k, v in sorted(display.items()))
    return [f"{fenced.fence}python{attrs}", *fenced.body.split("\n"), fenced.fence]


def command_line(block: Block) -> list[str]:
    cmd = block.reader_command
    line = f'<span class="dpg-label">Run it:</span> `{cmd}`'
    if block.snippet:
        href = posixpath.relpath(f"snippets/{block.snippet.relpath}", posixpath.dirname(block.page) or ".")
        name = block.snippet.relpath.rsplit("/", 1)[-1]
        line += f' · [:material-download: Download {name}]({href}){{ download="{name}" .dpg-download }}'
    return [line]


def output_boxes(lines, label=lambda line: line.text, title: str | None = None, empty: str = "*Nothing printed.*"):
    """Code boxes of what was printed, split where the engine dropped output, with a note in the gap."""
    out: list[str] = []
    chunk: list[str] = []

    def flush() -> None:
        if chunk:
            out.extend(code_box("\n".join(chunk), title))
            chunk.clear()

    for line in lines:
        if line.stream == GAP:
            flush()
            out += ["", '!!! warning "Output not kept here"', "", f"    {line.text}", ""]
        else:
            chunk.append(label(line))
    flush()
    return out or [empty]


def output_tabs(result: RunResult) -> list[str]:
    """Rank tabs + merged tab for torchrun, a single box for python."""
    out: list[str] = []
    sources = result.sources()
    if result.launch == "python":
        out += output_boxes(result.lines_of(MAIN), title="Output", empty="*The program printed nothing.*")
    else:
        for source in sources:
            title = "torchrun (launcher)" if source == LAUNCHER else source
            out.append(f'=== "{title}"')
            out.append("")
            out += ["    " + line if line else "" for line in output_boxes(result.lines_of(source))]
            out.append("")
        out.append(f'=== "{MERGED_TAB}"')
        out.append("")
        merged = output_boxes(result.lines, label=lambda line: f"[{line.source}] {line.text}")
        out += ["    " + line if line else "" for line in merged]
        if not sources:
            out += ["", "*No rank printed anything.*"]
    if result.background_ended:
        out += ["", '!!! note "Processes left running"', "",
                f"    When the program ended, {result.background_ended} process(es) it had started were still "
                "running; the build ended them."]
    return out


def failure_note(result: RunResult) -> list[str]:
    summary = result.failure_summary()
    exceptions = result.exceptions()
    if exceptions:
        source, kind, message = exceptions[-1] if result.launch == "python" else _first_raiser(result, exceptions)
        who = "" if result.launch == "python" else f" on {source}"
        head = f"Fails as intended: {kind}{who}"
    else:
        head = "Fails as intended"
    return [f'!!! failure "{_quote(head)}"', "", f"    {summary}"]


def _first_raiser(result: RunResult, exceptions):
    cause = result.root_cause()
    if cause:
        for item in exceptions:
            if item[0] == f"rank {cause['rank']}":
                return item
    return exceptions[0]


def run_section(block: Block, result: RunResult) -> list[str]:
    lines = ['<div class="dpg-run" markdown>', ""]
    lines += command_line(block) + [""]
    if block.options.expect_fail:
        lines += failure_note(result) + [""]
    lines += output_tabs(result)
    lines += ["", "</div>"]
    return lines


def skipped_section(block: Block) -> list[str]:
    return ['<div class="dpg-run" markdown>', "", *command_line(block), "",
            f'!!! note "Not run by the build"', "", f"    {block.options.skip}", "", "</div>"]


def indent(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line else "" for line in lines]


def replace_blocks(text: str, rendered: dict[int, list[str]]) -> str:
    """Replace each fenced block (keyed by its opening line) by its rendered lines."""
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    spans = sorted(rendered.items())
    for start, (end, new_lines) in ((s, v) for s, v in spans):
        out += lines[index:start - 1]
        out += new_lines
        index = end
    out += lines[index:]
    return "\n".join(out)
