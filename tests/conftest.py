"""Shared fixtures: a throwaway project tree, an engine on a private cache, and a process-table check."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import psutil
import pytest

from dpguide.engine import Engine
from dpguide.processes import MARKER

ROOT = Path(__file__).resolve().parents[1]


def leftover_processes() -> list[psutil.Process]:
    """Every process still carrying a dpguide job marker (a zombie does not count)."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if MARKER in proc.environ() and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


@pytest.fixture
def clean_process_table():
    """Fails the test if any block process is still alive after it."""
    yield
    deadline = time.monotonic() + 3
    while leftover_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = leftover_processes()
    assert not alive, f"processes left alive: {[(p.pid, p.cmdline()) for p in alive]}"


class Project:
    """A minimal docs tree written into a temporary directory."""

    def __init__(self, root: Path):
        self.root = root
        self.docs = root / "docs"
        self.snippets = self.docs / "snippets"
        self.snippets.mkdir(parents=True)

    def page(self, name: str, text: str) -> Path:
        path = self.docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def snippet(self, name: str, text: str) -> Path:
        path = self.snippets / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def engine(self, **kwargs) -> Engine:
        kwargs.setdefault("log", lambda msg: None)
        return Engine(self.root, cache_dir=self.root / "cache", scratch_root=self.root / "scratch", **kwargs)


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path / "project")
