"""Finding the Python code blocks of a Markdown page, with their line, fence and options.

A block is a fenced ``python`` code block. Its fence may carry options
(``launch="torchrun" nproc="2"``). Its body is either inline code or exactly
one include line, ``--8<-- "path/in/snippets.py"`` (optionally ``:section``),
which pymdownx.snippets expands for display while the engine runs the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .options import raise_error

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>python|py)\b(?P<info>[^`]*)$")
_ATTR = re.compile(r"""\s*([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")
_INCLUDE = re.compile(r"""^-{1,}8<-{1,}\s+(["'])(?P<path>[^"':]+\.py)(?::(?P<section>[\w.-]+))?\1\s*$""")


@dataclass(frozen=True)
class FencedBlock:
    """A python fence as written in the page."""

    page: str        # docs-relative path of the page
    line: int        # 1-based line of the opening fence
    end_line: int    # 1-based line of the closing fence
    indent: str
    fence: str
    attrs: dict
    body: str
    include: str | None     # snippet path when the body is an include line
    section: str | None
    code_line: int | None = None   # the line just above the code's first line (a quiz's `code: |`), if not `line`

    def line_of(self, code_line: int) -> int:
        """The page line of line ``code_line`` (1-based) of the inline code."""
        return (self.code_line or self.line) + code_line

    @property
    def where(self) -> tuple[str, int]:
        return (self.page, self.line)


def parse_attrs(info: str, where: tuple[str, int]) -> dict[str, str]:
    info = info.strip()
    if info.startswith("{") and info.endswith("}"):
        info = info[1:-1]
    attrs: dict[str, str] = {}
    position = 0
    for match in _ATTR.finditer(info):
        if info[position:match.start()].strip():
            break
        key = match[1]
        if key in attrs:
            raise_error(where, f"option {key!r} is given twice")
        attrs[key] = next(v for v in match.groups()[1:] if v is not None)
        position = match.end()
    if info[position:].strip():
        raise_error(where, f"cannot read the fence options {info[position:].strip()!r}",
                    'write options as key="value" separated by spaces, e.g. launch="torchrun" nproc="2"')
    return attrs


def find_blocks(page: str, text: str) -> list[FencedBlock]:
    """Every python fence in ``text`` (other languages are left alone)."""
    lines = text.splitlines()
    blocks: list[FencedBlock] = []
    index = 0
    other_fence = None
    while index < len(lines):
        line = lines[index]
        if other_fence:
            if line.strip().startswith(other_fence) and set(line.strip()) == {other_fence[0]}:
                other_fence = None
            index += 1
            continue
        match = _OPEN.match(line)
        if not match:
            plain = re.match(r"^[ \t]*(`{3,}|~{3,})", line)
            if plain:
                other_fence = plain[1]
            index += 1
            continue
        indent, fence = match["indent"], match["fence"]
        where = (page, index + 1)
        attrs = parse_attrs(match["info"], where)
        body_lines = []
        end = index + 1
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                break
            body_lines.append(lines[end][len(indent):] if lines[end].startswith(indent) else lines[end].lstrip())
            end += 1
        else:
            raise_error(where, "this code fence is never closed", f"add a line {indent}{fence} after the code")
        body = "\n".join(body_lines)
        include = section = None
        non_empty = [b for b in body_lines if b.strip()]
        if non_empty and "8<" in non_empty[0] and non_empty[0].lstrip().startswith("-"):
            inc = _INCLUDE.match(non_empty[0].strip())
            if len(non_empty) != 1 or not inc:
                raise_error((page, index + 2), "an include block must hold exactly one line --8<-- \"file.py\"",
                            'write --8<-- "topic/file.py" or --8<-- "topic/file.py:section" alone in the fence')
            include, section = inc["path"], inc["section"]
        blocks.append(FencedBlock(page, index + 1, end + 1, indent, fence, attrs, body, include, section))
        index = end + 1
    return blocks
