"""Whether two runs of a block printed the same thing, once what differs on every run is blurred.

Two runs of one program never print byte for byte the same: process ids, ports,
timings, dates, temporary folders, memory addresses and, across torch releases,
line numbers inside torch's own files change. ``shown_lines`` blurs exactly
those (``NOISE``, each rule tested on a real pair of outputs) and nothing else, so
a changed number, word or exception still counts. Lines are compared per
printer (each rank, the launcher) in the order it wrote them; the order in
which ranks interleave is not compared, since it is a race on every run.
"""

from __future__ import annotations

import difflib
import re

from .capture import GAP
from .results import RunResult, terminal_text

#: (what, pattern, replacement), applied in this order to every printed line
NOISE: list[tuple[str, re.Pattern, str]] = [
    ("a log line's stamp", re.compile(r"^((?:\[rank\d+\]:)?\[?[EWIF])\d{4} \d\d:\d\d:\d\d\.\d+(?:\s+\d+)?\s+"),
     r"\1<stamp> "),
    ("a date and time", re.compile(r"\b\d{4}-\d\d-\d\d[T _]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"),
     "<time>"),
    ("a line number inside torch", re.compile(r'(File "<site-packages>/[^"]+", line )\d+'), r"\1<n>"),
    ("a line number inside torch", re.compile(r"((?:<site-packages>/)?torch/[\w/.-]+\.py):\d+"), r"\1:<n>"),
    ("a line number in torch's C++ source", re.compile(r"\b([\w/.-]+\.(?:cpp|cc|cu|h|hpp)):\d+"), r"\1:<n>"),
    ("a process or thread id", re.compile(r"\b(pid|tid|PID|process|thread)(\s*[:=]?\s*)\d+"), r"\1\2<id>"),
    ("a port", re.compile(r"((?:\blocalhost|\b127\.0\.0\.1|\[[\d.:]*\]|\b0\.0\.0\.0|\b[\w-]+\.local)):\d{2,5}\b"),
     r"\1:<port>"),
    ("a port", re.compile(r"((?:\b|_)port\s*[:=]?\s*)\d{2,5}\b", re.I), r"\1<port>"),
    ("a duration", re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:ms|us|µs|ns|s|sec|seconds?|secs)\b"), "<duration>"),
    ("a memory address", re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x<addr>"),
    ("an object's id", re.compile(r"\b\d{12,16}\b"), "<id>"),
    ("the name the venv gives its interpreter", re.compile(r"(<venv>/bin/python)3(?:\.\d+)?\b"), r"\1"),
    # records made before the engine named it <stdlib>, or on a machine whose Python lives elsewhere
    ("the interpreter's own library", re.compile(r'(File ")/[^"]*/lib/python3\.\d+/(?!site-packages/)'), r"\1<stdlib>/"),
    ("a temporary path", re.compile(r"/tmp/[\w.+-]+(?:/[\w.+-]+)*"), "<tmp>"),
    ("a caret line under a torch source line", re.compile(r"^(\[rank\d+\]:)?\s*[~^]+\s*$"), ""),
]


def blur(text: str) -> str:
    """``text`` with every kind of ``NOISE`` replaced by its placeholder."""
    text = terminal_text(text).rstrip()
    for _, pattern, replacement in NOISE:
        text = pattern.sub(replacement, text)
    return text


def _blurred(result: RunResult) -> dict[str, list[tuple[int, str]]]:
    """Per printer, (index into ``result.lines``, blurred text) of each line that is more than noise."""
    found: dict[str, list[tuple[int, str]]] = {}
    for index, line in enumerate(result.lines):
        if line.stream == GAP:
            continue
        text = blur(line.text)
        if text:
            found.setdefault(line.source, []).append((index, text))
    return found


def shown_lines(result: RunResult) -> dict[str, list[str]]:
    """Per printer (``python``, ``rank 0``, ``torchrun``), its blurred lines in the order it wrote them."""
    return {source: [text for _, text in items] for source, items in _blurred(result).items()}


def differing_lines(a: RunResult, b: RunResult) -> set[int]:
    """Indices into ``b.lines`` of the lines ``a`` did not print: per printer, noise blurred, the lines
    of ``b`` that an alignment of the two runs (``difflib``) leaves unmatched or replaced."""
    ours = shown_lines(a)
    marked: set[int] = set()
    for source, items in _blurred(b).items():
        matcher = difflib.SequenceMatcher(None, ours.get(source, []), [t for _, t in items], autojunk=False)
        for tag, _, _, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                marked.update(items[j][0] for j in range(j1, j2))
    return marked


def same_output(a: RunResult, b: RunResult) -> bool:
    """Whether ``a`` and ``b`` printed the same, noise blurred, and ended the same way."""
    return ending(a) == ending(b) and shown_lines(a) == shown_lines(b)


def ending(result: RunResult) -> tuple:
    """How a run ended, as comparable: how, exit status, and the exceptions raised (kind only)."""
    return (result.ended, result.returncode, sorted({kind for _, kind, _ in result.exceptions()}))


def first_difference(a: RunResult, b: RunResult) -> str:
    """One sentence naming where ``b`` first differs from ``a`` (for reports; '' when the same)."""
    if ending(a) != ending(b):
        return f"ends differently: {ending(a)} vs {ending(b)}"
    left, right = shown_lines(a), shown_lines(b)
    for source in sorted(set(left) | set(right)):
        x, y = left.get(source, []), right.get(source, [])
        for i, (p, q) in enumerate(zip(x, y)):
            if p != q:
                return f"{source}, line {i + 1}: {p!r} vs {q!r}"
        if len(x) != len(y):
            return f"{source}: {len(x)} lines vs {len(y)}"
    return ""
