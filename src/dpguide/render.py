"""Rendering a block and its real output back into the page's Markdown.

The code stays as written (an include line stays an include line, expanded by
pymdownx.snippets). Under it come the command a reader types, a download link
for snippet files, and the output: one tab per rank plus the merged stream for
torchrun blocks, a single output box for python blocks. Output text is put in
fenced code blocks verbatim; labels such as ``[rank 1]`` in the merged tab are
added around the text, never inside it.
"""

from __future__ import annotations

import html
import posixpath
import re

from .blocks import INLINE_SCRIPT, Block
from .capture import GAP
from .results import LAUNCHER, MAIN, RunResult, terminal_text

MERGED_TAB = "all ranks, merged"
#: under the merged tab when the ranks were forked from the warm interpreter (their writes are stamped)
MERGED_NOTE_WRITTEN = ("*Lines in the order they were written: each rank notes the time of every write to its "
                       "stdout and stderr as it makes it, and the build merges both streams of all ranks by those "
                       "times. A line written from C++ code carries no time and follows the line before it in its own stream.*")
#: under the merged tab when the ranks ran as fresh interpreters (nothing stamps their writes)
MERGED_NOTE = ("*Lines as the build read them: each rank's stdout and stderr are separate files, read every "
               "20 ms, so the order within one stream is exact, but a print and an error written at the same "
               "moment may appear swapped.*")


def _fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def code_box(text: str, title: str | None = None, marked: list[int] | None = None) -> list[str]:
    """A fenced text box of ``text``; ``marked`` (line numbers from 1) are highlighted (``hl_lines``)."""
    text = terminal_text(text)
    fence = _fence_for(text)
    head = f'{fence}text' + (f' title="{title}"' if title else "") + \
        (f' hl_lines="{" ".join(map(str, marked))}"' if marked else "")
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
    body = fenced.body
    if block.snippet and block.snippet.header_lines and not fenced.section:
        # the whole file, shown from the first line after the engine's header (pymdownx.snippets' line range)
        body = body.replace(fenced.include, f"{fenced.include}:{block.snippet.header_lines + 1}:")
    return [f"{fenced.fence}python{attrs}", *body.split("\n"), fenced.fence]


def command_line(block: Block) -> list[str]:
    cmd = block.reader_command
    line = f'<span class="dpg-label">Run it:</span> `{cmd}`'
    if block.snippet:
        href = posixpath.relpath(f"snippets/{block.snippet.relpath}", posixpath.dirname(block.page) or ".")
        name = block.snippet.relpath.rsplit("/", 1)[-1]
        line += f' · [:material-download: Download {name}]({href}){{ download="{name}" .dpg-download }}'
    else:   # written in the page itself: there is no file to download
        line += f" · save the code above as `{INLINE_SCRIPT}` first"
    return [line]


def output_boxes(lines, label=lambda line: line.text, title: str | None = None, empty: str = "*Nothing printed.*",
                 marked=lambda line: False):
    """Code boxes of what was printed, split where the engine dropped output, with a note in the gap;
    the lines for which ``marked(line)`` holds are highlighted."""
    out: list[str] = []
    chunk: list[str] = []
    highlighted: list[int] = []

    def flush() -> None:
        if chunk:
            out.extend(code_box("\n".join(chunk), title, highlighted[:]))
            chunk.clear()
            highlighted.clear()

    for line in lines:
        if line.stream == GAP:
            flush()
            out += ["", '!!! warning "Output not kept here"', "", f"    {line.text}", ""]
        else:
            first = sum(len(x.split("\n")) for x in chunk) + 1
            chunk.append(label(line))
            if marked(line):
                highlighted.extend(range(first, first + len(chunk[-1].split("\n"))))
    flush()
    return out or [empty]


def output_tabs(result: RunResult, ranks: int | None = None) -> list[str]:
    """Rank tabs + merged tab for torchrun, a single box for python. With ``ranks`` (one node), a rank
    that printed nothing still gets its tab, saying so."""
    out: list[str] = []
    sources = result.sources()
    if result.launch == "python":
        out += output_boxes(result.lines_of(MAIN), title="Output", empty="*The program printed nothing.*")
    else:
        silent = [f"rank {r}" for r in range(ranks or 0) if f"rank {r}" not in sources]
        tabs = sorted([s for s in sources if s != LAUNCHER] + silent, key=_tab_order) + \
            ([LAUNCHER] if LAUNCHER in sources else [])
        for source in tabs:
            title = "torchrun (launcher)" if source == LAUNCHER else source
            out.append(f'=== "{title}"')
            out.append("")
            out += ["    " + line if line else "" for line in output_boxes(
                result.lines_of(source), empty="*This rank printed nothing.*")]
            out.append("")
        out.append(f'=== "{MERGED_TAB}"')
        out.append("")
        merged = output_boxes(result.lines, label=lambda line: f"[{line.source}] {line.text}")
        out += ["    " + line if line else "" for line in merged]
        out += ["", "    " + (MERGED_NOTE_WRITTEN if result.forked else MERGED_NOTE)]
        if not sources:
            out += ["", "*No rank printed anything.*"]
    if result.background_ended:
        out += ["", '!!! note "Processes left running"', "",
                f"    When the program ended, {result.background_ended} process(es) it had started were still "
                "running; the build ended them."]
    return out


def _tab_order(source: str) -> tuple:
    from .results import _source_order

    return _source_order(source)


def failure_note(result: RunResult) -> list[str]:
    summary = result.failure_summary()
    exceptions = result.exceptions()
    if exceptions:
        source, kind, message = exceptions[-1] if result.launch == "python" else _first_raiser(result, exceptions)
        who = "" if result.launch == "python" else f" on {source}"
        head = f"Fails as intended: {kind}{who}"
    else:
        head = "Fails as intended"
    return [f'!!! failure "{_quote(head)}"', "", f"    {terminal_text(summary)}"]


def _first_raiser(result: RunResult, exceptions):
    cause = result.root_cause()
    if cause:
        for item in exceptions:
            if item[0] == f"rank {cause['rank']}":
                return item
    return exceptions[0]


def provenance(block: Block, result: RunResult, backends: str | None = None) -> str:
    """One line saying what produced an output: when, torch, Python, device, ranks and nodes, backends, run time.

    Every fact comes from the run itself (kept in the cache with its output), so a
    cached output keeps its original run's date and versions.
    """
    on = result.ran_on
    when = (result.ran_at.replace("T", " ").replace("+00:00", " UTC") if result.ran_at
            else "an unrecorded date")
    device = "CPU" if on.get("device", "cpu") == "cpu" else on.get("device")
    parts = [f"Real run, {when}", f"torch {on.get('torch', '?')}",
             f"Python {on.get('python', '?')} on {device} ({on.get('machine', '?')})"]
    options = block.options
    if options.launch == "torchrun":
        nodes = options.nnodes
        where = f"{nodes} nodes × {options.nproc} processes, all on one machine" if nodes > 1 \
            else f"{options.nproc} processes"
        parts.append(f"torchrun, {where}" + (" (launcher and ranks forked from a warm interpreter)"
                                             if result.forked else ""))
    else:
        parts.append("one python process" + (" (forked from a warm interpreter)" if result.forked else ""))
    if backends:
        parts.append(f"process-group backends in this torch: {backends}")
    parts.append(f"{result.duration:.2f} s")
    text = html.escape(" · ".join(parts))
    skipped, noted = result.skipped_teardown()
    if skipped:
        who = "" if skipped == noted else f" ({skipped} of the {noted} processes that reached Python's exit)"
        href = html.escape(_relative_url(block.page, CLEAN_ENDING), quote=True)
        text += (f' · ended right after <code>atexit</code>, without Python\'s teardown{html.escape(who)} '
                 f'(<a href="{href}">why</a>)')
    return '<p class="dpg-provenance">' + text + "</p>"


#: the page (and section) that explains how the build ends its processes
CLEAN_ENDING = "how-outputs-are-made.md#the-clean-ending"


def _relative_url(page: str, target: str) -> str:
    """The link from ``page``'s built URL to ``target`` (both Markdown paths under docs/, with
    MkDocs' directory URLs: ``learn/ddp.md`` is served as ``learn/ddp/``)."""
    def served(path: str) -> str:
        folder, _, name = path.rpartition("/")
        stem = name[:-3]
        return folder if stem == "index" else f"{folder}/{stem}".lstrip("/")

    target_path, _, fragment = target.partition("#")
    here = served(page) or "."
    there = served(target_path) or "."
    link = posixpath.relpath(there, here)
    link = "./" if link == "." else link + "/"
    return link + (f"#{fragment}" if fragment else "")


def anchor_base(block: Block) -> str:
    """The name of a block's output box before de-duplication: its anchor option, else its snippet, else its line."""
    if block.options.anchor:
        return f"run-{block.options.anchor}"
    if block.snippet:
        name = block.snippet.relpath.removesuffix(".py") + (f"-{block.fenced.section}" if block.fenced.section else "")
        return "run-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"run-line-{block.line}"


def page_anchors(blocks: list[Block]) -> dict[int, str]:
    """A unique anchor for every block of one page, by the line of its fence (repeats get -2, -3, ...)."""
    anchors, seen = {}, {}
    for block in sorted(blocks, key=lambda b: b.line):
        base = anchor_base(block)
        seen[base] = seen.get(base, 0) + 1
        anchors[block.line] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return anchors


def run_section(block: Block, result: RunResult, backends: str | None = None, anchor: str | None = None) -> list[str]:
    lines = [f'<div class="dpg-run" id="{anchor}" markdown>' if anchor else '<div class="dpg-run" markdown>', ""]
    lines += command_line(block) + [""]
    if block.options.expect_fail:
        lines += failure_note(result) + [""]
    one_node = block.options.launch == "torchrun" and block.options.nnodes == 1
    lines += output_tabs(result, ranks=block.options.nproc if one_node else None)
    lines += ["", provenance(block, result, backends), "", "</div>"]
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
