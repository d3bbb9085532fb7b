"""Every fenced block of a Markdown page, whatever its language, with its lines as written.

A fence opens with three or more backticks or tildes (indented or not) and an info string, and
closes at the first later line that is the same fence character, at least as long, alone on its
line. A fence inside another fence is part of that fence's body, so a lesson that shows Markdown
in a ````markdown block never has its example read as a block of the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")


@dataclass(frozen=True)
class Fence:
    """One fenced block: ``line`` and ``end_line`` are 1-based (``end_line`` is None when unclosed)."""

    line: int
    end_line: int | None
    indent: str
    fence: str
    info: str
    body_lines: tuple[str, ...]

    @property
    def lang(self) -> str:
        """The first word of the info string (``python``, ``mermaid``, ``text``), '' when there is none."""
        word = self.info.strip().lstrip("{").split(maxsplit=1)
        return word[0].lstrip(".").rstrip("}") if word else ""

    @property
    def body(self) -> str:
        return "\n".join(self.body_lines)


def closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened with ``fence``."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def scan_fences(text: str) -> list[Fence]:
    """The outermost fences of ``text``, in page order; an unclosed one runs to the end of the text."""
    lines = text.splitlines()
    found: list[Fence] = []
    index = 0
    while index < len(lines):
        match = _OPEN.match(lines[index])
        if not match:
            index += 1
            continue
        indent, fence = match["indent"], match["fence"]
        end = index + 1
        while end < len(lines) and not closes(lines[end], fence):
            end += 1
        body = tuple(line[len(indent):] if line.startswith(indent) else line.lstrip()
                     for line in lines[index + 1:end])
        found.append(Fence(index + 1, end + 1 if end < len(lines) else None, indent, fence,
                           match["info"].strip(), body))
        index = end + 1
    return found
