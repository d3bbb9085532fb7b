"""Blocks and results built in memory for the fast unit tests: no process is started, no file is run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dpguide.blocks import Block, resolve
from dpguide.capture import GAP, Line
from dpguide.errors import AuthoringError
from dpguide.markdown_blocks import find_blocks
from dpguide.quiz import parse_page
from dpguide.results import RunResult

ENVIRONMENT = {"torch": "2.13.0", "python": "3.12"}


def block_of(fence_info: str, body: str, snippets: Path | None = None, page: str = "page.md",
             environment: dict | None = None, prose_lines: int = 0) -> Block:
    """The one block of a page holding a single fence ``python <fence_info>`` with ``body``."""
    text = "\n" * prose_lines + f"```python {fence_info}\n{body}\n```\n"
    (fenced,) = find_blocks(page, text)
    return resolve(fenced, snippets or Path("/nonexistent"), ENVIRONMENT if environment is None else environment)


def line(source: str, text: str, stream: str = "stdout", t: float = 0.0) -> Line:
    return Line(t, source, stream, text)


def gap(text: str = "1,000 bytes were not kept here") -> Line:
    return Line(0.0, "dpguide", GAP, text)


def result_of(lines: list[Line], launch: str = "torchrun", returncode: int | None = 0, **extra) -> RunResult:
    return RunResult(command=extra.pop("command", ["x"]), reader_command="python x.py", launch=launch,
                     returncode=returncode,
                     duration=extra.pop("duration", 1.25), lines=lines, **extra)


def authoring_error(text: str, page: str = "set.md") -> str:
    """The message of the AuthoringError that parsing ``text`` (dedented, leading newlines dropped) raises."""
    with pytest.raises(AuthoringError) as info:
        parse_page(page, textwrap.dedent(text).lstrip("\n"))
    return str(info.value)
