"""Capturing output: every line a block prints, with its source, stream and arrival time.

Two readers feed one bounded ``LineSink``: ``PipeReader`` for a process's stdout
and stderr pipes, and ``RankLogTailer`` for the per-rank log files torchrun
writes with ``--redirects 3``. The sink stores at most ``store_limit`` bytes
(later lines are counted, not kept) and reports when ``hard_limit`` bytes have
arrived so the launcher can stop a block that floods its output.
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

STORE_LIMIT = 256 * 1024
HARD_LIMIT = 32 * 1024 * 1024


@dataclass(frozen=True)
class Line:
    """One line of output: seconds since start, who printed it, which stream, the text."""

    t: float
    source: str
    stream: str
    text: str

    def to_json(self) -> list:
        return [round(self.t, 4), self.source, self.stream, self.text]

    @classmethod
    def from_json(cls, item: list) -> "Line":
        t, source, stream, text = item
        if not (isinstance(source, str) and stream in ("stdout", "stderr") and isinstance(text, str)):
            raise ValueError(f"malformed line {item!r}")
        return cls(float(t), source, stream, text)


class LineSink:
    """Thread-safe, bounded store of lines in arrival order."""

    def __init__(self, store_limit: int = STORE_LIMIT, hard_limit: int = HARD_LIMIT):
        self.store_limit, self.hard_limit = store_limit, hard_limit
        self.lines: list[Line] = []
        self.stored_bytes = 0
        self.dropped_bytes = 0
        self.t0 = time.monotonic()
        self._lock = threading.Lock()

    def add(self, source: str, stream: str, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").rstrip("\n")
        with self._lock:
            if self.stored_bytes + len(raw) <= self.store_limit:
                self.lines.append(Line(time.monotonic() - self.t0, source, stream, text))
                self.stored_bytes += len(raw)
            else:
                self.dropped_bytes += len(raw)

    @property
    def over_hard_limit(self) -> bool:
        return self.stored_bytes + self.dropped_bytes > self.hard_limit


class PipeReader(threading.Thread):
    """Reads one pipe to its end, line by line, into a sink."""

    def __init__(self, fd: int, sink: LineSink, source: str, stream: str):
        super().__init__(daemon=True)
        self.fd, self.sink, self.source, self.stream = fd, sink, source, stream

    def run(self) -> None:
        with os.fdopen(self.fd, "rb", buffering=0) as pipe:
            pending = b""
            while True:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    self.sink.add(self.source, self.stream, line + b"\n")
                if len(pending) > 65536:  # a line without end: store it in pieces
                    self.sink.add(self.source, self.stream, pending)
                    pending = b""
            if pending:
                self.sink.add(self.source, self.stream, pending)


class FramedPipeReader(threading.Thread):
    """Reads the fork server's tagged frames (``O``/``E`` + length + bytes) into a sink, in order."""

    STREAMS = {b"O": "stdout", b"E": "stderr"}

    def __init__(self, fd: int, sink: LineSink, source: str):
        super().__init__(daemon=True)
        self.fd, self.sink, self.source = fd, sink, source

    def run(self) -> None:
        pending = {"stdout": b"", "stderr": b""}
        buffer = b""
        with os.fdopen(self.fd, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= 5:
                    size = int.from_bytes(buffer[1:5], "big")
                    if len(buffer) < 5 + size:
                        break
                    stream = self.STREAMS.get(buffer[:1], "stderr")
                    data = pending[stream] + buffer[5:5 + size]
                    buffer = buffer[5 + size:]
                    *complete, pending[stream] = data.split(b"\n")
                    for line in complete:
                        self.sink.add(self.source, stream, line + b"\n")
        for stream, rest in pending.items():
            if rest:
                self.sink.add(self.source, stream, rest)


_RANK_LOG = re.compile(r"attempt_(\d+)/(\d+)/(stdout|stderr)\.log$")


def rank_source(node: int, nnodes: int, nproc: int, local_rank: int, attempt: int) -> str:
    """The label of one worker's output: ``rank 1``, or ``node 1 rank 0`` for several agents."""
    label = f"rank {local_rank}" if nnodes == 1 else f"node {node} rank {local_rank}"
    return label if attempt == 0 else f"{label} (restart {attempt})"


class RankLogTailer(threading.Thread):
    """Polls torchrun's per-rank log files and feeds new lines to the sink as they appear."""

    POLL_S = 0.02

    def __init__(self, log_dirs: list[Path], sink: LineSink, nproc: int):
        super().__init__(daemon=True)
        self.log_dirs, self.sink, self.nproc = log_dirs, sink, nproc
        self._halt = threading.Event()
        self._files: dict[Path, list] = {}  # path -> [offset, pending, source, stream]

    def stop(self) -> None:
        self._halt.set()
        self.join()

    def run(self) -> None:
        while not self._halt.is_set():
            self._poll()
            self._halt.wait(self.POLL_S)
        self._poll(final=True)

    def _discover(self) -> None:
        for node, log_dir in enumerate(self.log_dirs):
            for path in log_dir.glob("*/attempt_*/*/std*.log"):
                if path in self._files:
                    continue
                match = _RANK_LOG.search(path.as_posix())
                if match:
                    attempt, local_rank, stream = int(match[1]), int(match[2]), match[3]
                    source = rank_source(node, len(self.log_dirs), self.nproc, local_rank, attempt)
                    self._files[path] = [0, b"", source, stream]

    def _poll(self, final: bool = False) -> None:
        self._discover()
        # within one poll, stdout before stderr: a traceback follows the prints before it
        for path, state in sorted(self._files.items(), key=lambda item: (item[1][2], item[1][3])):
            try:
                with open(path, "rb") as handle:
                    handle.seek(state[0])
                    chunk = handle.read(1 << 20)
            except OSError:
                continue
            state[0] += len(chunk)
            data = state[1] + chunk
            *complete, rest = data.split(b"\n")
            for line in complete:
                self.sink.add(state[2], state[3], line + b"\n")
            if final and rest:
                self.sink.add(state[2], state[3], rest)
                rest = b""
            state[1] = rest

    def total_file_bytes(self) -> int:
        return sum(state[0] for state in self._files.values())
