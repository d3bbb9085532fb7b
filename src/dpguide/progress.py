"""What a build shows while its blocks run: one updating line on a terminal, plain lines in a log.

On a terminal (stderr is a TTY) a tqdm bar counts the blocks that ran, with the running, cached and
failed counts beside it; messages are printed above the bar. Elsewhere (CI logs, a pipe) every
finished block is one plain line with the same counts, so a log reads top to bottom.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Callable, TextIO


class BuildProgress:
    """Counts for one engine run: ``total`` blocks to run, ``cached`` found in the cache."""

    def __init__(self, total: int, cached: int, log: Callable[[str], None], stream: TextIO | None = None,
                 tty: bool | None = None):
        self.total, self.cached, self.log = total, cached, log
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.running = self.done = self.failed = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._bar = None
        if self.tty and total:
            from tqdm import tqdm

            # a terminal that reports no size (a pty under `script`, some IDEs) counts as 100 x 20:
            # tqdm would otherwise draw nothing at all
            size = shutil.get_terminal_size((100, 20))
            self._bar = tqdm(total=total, file=self.stream, unit="block", leave=True, desc="[dpguide] blocks",
                             ncols=size.columns, nrows=size.lines)
            self._refresh()

    def counts(self) -> str:
        return (f"{self.done}/{self.total} run, {self.running} running, {self.cached} cached, "
                f"{self.failed} failed, {time.monotonic() - self.started:.0f}s")

    def block_started(self) -> None:
        with self._lock:
            self.running += 1
            self._refresh()

    def block_finished(self, label: str, seconds: float, status: str) -> None:
        with self._lock:
            self.running -= 1
            self.done += 1
            self.failed += status == "FAILED"
            if self._bar is not None:
                self._bar.update(1)
                self._refresh()
                if status == "FAILED":
                    self.say(f"[dpguide] FAILED {label}")
            else:
                self.log(f"[dpguide] {self.counts()} | {seconds:5.1f}s {status:>18}  {label}")

    def say(self, message: str) -> None:
        """A message that must not be overwritten by the bar."""
        if self._bar is not None:
            self._bar.write(message, file=self.stream)
        else:
            self.log(message)

    def close(self) -> None:
        if self._bar is not None:
            self._refresh()
            self._bar.close()
            self._bar = None

    def _refresh(self) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.running} running, {self.cached} cached, {self.failed} failed",
                                      refresh=True)
