"""Commands that run beside the tests: started when collection ends, waited for by the tests that
need their outcome, and never outliving the test run. The site build (conftest.py's SITE_BUILD)
and the quick benchmark (QUICK_BENCHMARK) are the two; both are subprocesses that mostly wait on
block processes, so running them beside the serial tests takes minutes off the suite's wall time."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest


class BackgroundSiteBuild:
    """`mkdocs build --strict` of the site in ``root``, run beside the tests that do not need it.

    It runs at nice 10, so the tests in front get most of the CPU and the build the rest (not all:
    the build runs many processes at once, and the quick benchmark takes about twice its time
    alone beside it). That works only inside the test run's own session: Linux's autogroup shares
    the CPU equally between sessions whatever their nice values, and a build in a session of its
    own pushed the quick benchmark past its time limit. So it gets a process group
    of its own (a terminal's Ctrl-C reaches only the tests; ``stop`` ends the build) and dies with
    this test process (PR_SET_PDEATHSIG), so neither an interrupted nor a killed test run leaves it
    running. The process-table checks of other tests leave out its descendants and whatever carries
    its build token.
    """

    def __init__(self, root: Path, limit_s: float):
        self.root, self.limit_s = root, limit_s
        self.proc: subprocess.Popen | None = None
        self.folder: Path | None = None
        self.started = 0.0

    def start(self) -> None:
        if self.proc is not None:
            return
        self.folder = Path(tempfile.mkdtemp(prefix="dpguide-test-site-"))
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        with open(self.folder / "build.log", "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(self.folder / "site")],
                cwd=self.root, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_low_priority_group_that_dies_with_parent)
        self.started = time.monotonic()

    def wait_if_started(self) -> None:
        """Let a started build fill the cache first (two cold runs of one block waste a core); its
        outcome is not checked here: whoever waits next reports each block's own failure."""
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=self._time_left())

    def _time_left(self) -> float:
        return max(1.0, self.limit_s - (time.monotonic() - self.started))

    def descendants(self) -> set[int]:
        """The build's process and everything under it, while it runs."""
        return process_tree(self.proc)

    def token_prefix(self) -> str | None:
        return f"{self.proc.pid}-" if self.proc is not None and self.proc.poll() is None else None

    def wait(self) -> Path:
        self.start()
        try:
            code = self.proc.wait(timeout=self._time_left())
        except subprocess.TimeoutExpired:
            tail = self.log_tail()
            self.stop()
            pytest.fail(f"the site build did not end within {self.limit_s} s:\n{tail}", pytrace=False)
        assert code == 0, f"`mkdocs build --strict` exited {code}:\n{self.log_tail()}"
        return self.folder / "site"

    def log_tail(self, chars: int = 20000) -> str:
        text = (self.folder / "build.log").read_text(errors="replace")
        return text[-chars:]

    def stop(self) -> None:
        """End the build if it still runs (SIGTERM: it ends its blocks; then SIGKILL), remove its folder."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def process_tree(proc: subprocess.Popen | None) -> set[int]:
    """The pids of ``proc`` and everything under it while it runs (empty once it has ended)."""
    if proc is None or proc.poll() is not None:
        return set()
    try:
        top = psutil.Process(proc.pid)
        return {top.pid} | {child.pid for child in top.children(recursive=True)}
    except psutil.Error:
        return set()


def _low_priority_group_that_dies_with_parent() -> None:
    os.setpgid(0, 0)
    os.nice(10)
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG


class BackgroundCommand:
    """A command run beside the tests, like the site build (a low-priority process group of its own
    that dies with the test run); ``wait`` gives its exit status and output."""

    def __init__(self, command: list[str], cwd: Path, limit_s: float, env: dict[str, str] | None = None):
        self.command, self.cwd, self.limit_s, self.env = command, cwd, limit_s, env
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.output = b""

    def start(self) -> None:
        if self.proc is None:
            self._log = tempfile.TemporaryFile()
            self.proc = subprocess.Popen(self.command, cwd=self.cwd, env={**os.environ, **(self.env or {})},
                                         stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                         preexec_fn=_low_priority_group_that_dies_with_parent)
            self.started = time.monotonic()

    def wait(self) -> tuple[int, str]:
        """(exit status, everything it printed); fails the test when it runs past its limit."""
        self.start()
        try:
            code = self.proc.wait(timeout=max(1.0, self.limit_s - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.stop()
            pytest.fail(f"{' '.join(self.command)} did not end within {self.limit_s} s", pytrace=False)
        self._log.seek(0)
        return code, self._log.read().decode(errors="replace")

    def descendants(self) -> set[int]:
        return process_tree(self.proc)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
