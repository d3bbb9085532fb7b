"""Capturing output: every line a block prints, with its source, stream and arrival time.

Two readers feed one bounded ``LineSink``: ``PipeReader`` for a process's stdout
and stderr pipes, and ``RankLogTailer`` for the per-rank log files torchrun
writes with ``--redirects 3``. The sink keeps at most ``store_limit`` bytes: the
first half (the head) and the last half (a rolling tail); what falls between is
counted and marked by one ``gap`` line where it was, so a page never shows a
silent hole. It reports when ``hard_limit`` bytes have arrived in all so the
launcher can stop a block that floods its output. A line without an end is
cut into pieces of ``PIECE`` bytes, so output without newlines is counted too.
"""

from __future__ import annotations

import bisect
import collections
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

STORE_LIMIT = 256 * 1024
HARD_LIMIT = 32 * 1024 * 1024
PIECE = 64 * 1024

#: the stream of the engine's own marker where output was dropped (never a program's output)
GAP = "gap"


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
        if not (isinstance(source, str) and stream in ("stdout", "stderr", GAP) and isinstance(text, str)):
            raise ValueError(f"malformed line {item!r}")
        return cls(float(t), source, stream, text)


def gap_text(dropped_bytes: int, dropped_lines: int, store_limit: int = STORE_LIMIT) -> str:
    return (f"{dropped_bytes:,} bytes ({dropped_lines:,} lines) of output were not kept here: "
            f"the engine keeps the first and the last {store_limit // 2 // 1024} KiB of a block's output "
            f"and stops a block after {HARD_LIMIT // (1024 * 1024)} MiB")


class LineSink:
    """Thread-safe, bounded store of lines in arrival order: a head, a rolling tail, and a counted gap."""

    def __init__(self, store_limit: int = STORE_LIMIT, hard_limit: int = HARD_LIMIT):
        self.store_limit, self.hard_limit = store_limit, hard_limit
        self.head: list[Line] = []
        self.head_bytes = 0
        self.tail: collections.deque[tuple[Line, int]] = collections.deque()
        self.tail_bytes = 0
        self.received_bytes = 0
        self.dropped_bytes = 0
        self.dropped_lines = 0
        self.gap_t: float | None = None
        self.t0 = time.monotonic()
        self._lock = threading.Lock()

    def add(self, source: str, stream: str, raw: bytes, t: float | None = None) -> None:
        """Keep one line; ``t`` is when it was written (``time.monotonic()``), if known, else now."""
        t = time.monotonic() if t is None else t
        line = Line(t - self.t0, source, stream, raw.decode("utf-8", errors="replace").rstrip("\n"))
        with self._lock:
            self.received_bytes += len(raw)
            if not self.tail and self.head_bytes + len(raw) <= self.store_limit // 2:
                self.head.append(line)
                self.head_bytes += len(raw)
                return
            self.tail.append((line, len(raw)))
            self.tail_bytes += len(raw)
            while self.tail_bytes > self.store_limit // 2 and self.tail:
                dropped, size = self.tail.popleft()
                self.tail_bytes -= size
                self.dropped_bytes += size
                self.dropped_lines += 1
                if self.gap_t is None:
                    self.gap_t = dropped.t

    @property
    def lines(self) -> list[Line]:
        """What is kept, in arrival order, with a ``gap`` line where output was dropped."""
        with self._lock:
            gap = [Line(self.gap_t, "dpguide", GAP, gap_text(self.dropped_bytes, self.dropped_lines,
                                                              self.store_limit))] if self.dropped_bytes else []
            return [*self.head, *gap, *(line for line, _ in self.tail)]

    def finished_lines(self, rewrite_paths: dict[str, str]) -> list[Line]:
        """The kept lines with machine paths replaced (longest first), for showing on a page."""
        order = sorted(rewrite_paths.items(), key=lambda item: -len(item[0]))

        def rewrite(text: str) -> str:
            for old, new in order:
                text = text.replace(old, new)
            return text

        kept = sorted(self.lines, key=lambda line: line.t)  # stable: same-time lines keep arrival order
        return [line if line.stream == GAP else Line(line.t, line.source, line.stream, rewrite(line.text))
                for line in kept]

    def relabel(self, labels: dict[str, str]) -> None:
        """Rename sources (``node 1 rank 0`` -> ``rank 2 · node 1, local 0``) once the run has ended."""
        if not labels:
            return
        with self._lock:
            self.head = [Line(l.t, labels.get(l.source, l.source), l.stream, l.text) for l in self.head]
            self.tail = collections.deque((Line(l.t, labels.get(l.source, l.source), l.stream, l.text), size)
                                          for l, size in self.tail)

    @property
    def over_hard_limit(self) -> bool:
        return self.received_bytes > self.hard_limit


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
                if len(pending) > PIECE:  # a line without end: store it in pieces
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
                    if len(pending[stream]) > PIECE:  # a line without end: count and store it in pieces
                        self.sink.add(self.source, stream, pending[stream])
                        pending[stream] = b""
        for stream, rest in pending.items():
            if rest:
                self.sink.add(self.source, stream, rest)


_RANK_LOG = re.compile(r"attempt_(\d+)/(\d+)/(stdout|stderr)\.log$")


def rank_source(node: int, nnodes: int, nproc: int, local_rank: int, attempt: int) -> str:
    """The label of one worker's output: ``rank 1``, or ``node 1 rank 0`` for several agents."""
    label = f"rank {local_rank}" if nnodes == 1 else f"node {node} rank {local_rank}"
    return label if attempt == 0 else f"{label} (restart {attempt})"


class RankStamps:
    """The stamps file a forked rank writes beside its logs (``O|E monotonic_ns start end`` per
    write): when each byte range of its stdout and stderr was written."""

    STREAMS = {"O": "stdout", "E": "stderr"}

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.pending = b""
        self.writes: dict[str, list[tuple[int, int, float]]] = {"stdout": [], "stderr": []}
        self.ends: dict[str, list[int]] = {"stdout": [], "stderr": []}

    def read(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except OSError:
            return
        self.offset += len(chunk)
        *complete, self.pending = (self.pending + chunk).split(b"\n")
        for record in complete:
            try:
                tag, t_ns, start, end = record.decode().split()
                stream, start, end, t = self.STREAMS[tag], int(start), int(end), int(t_ns) / 1e9
            except (ValueError, KeyError):
                continue
            self.writes[stream].append((start, end, t))
            self.ends[stream].append(end)

    def time_of(self, stream: str, end: int) -> float | None:
        """When the write that ended the line at byte ``end`` (exclusive) happened; None if no stamped
        write covers that byte (written from C, or not stamped yet)."""
        i = bisect.bisect_left(self.ends[stream], end)
        if i < len(self.writes[stream]) and self.writes[stream][i][0] < end:
            return self.writes[stream][i][2]
        return None

    def written_since(self, stream: str, end: int) -> bool:
        """True if a stamped write of this stream starts at or after byte ``end``."""
        return bool(self.writes[stream]) and self.writes[stream][-1][0] >= end

    def time_before(self, stream: str, start: int) -> float | None:
        """The time of the last stamped write of this stream that ended at or before byte ``start``."""
        i = bisect.bisect_right(self.ends[stream], start)
        return self.writes[stream][i - 1][2] if i else None


class RankLogTailer(threading.Thread):
    """Polls torchrun's per-rank log files and feeds new lines to the sink as they appear.

    A forked rank stamps its writes (``forkserver.StampedWriter``): its lines then carry the time
    they were written, so both streams of all ranks can be merged in the order of writing. A line
    no stamp covers (written by C++ code, or by a rank started as a fresh interpreter) is placed
    right after the stamped write before it, or at the time it was read when there is none.
    """

    POLL_S = 0.02

    def __init__(self, log_dirs: list[Path], sink: LineSink, nproc: int):
        super().__init__(daemon=True)
        self.log_dirs, self.sink, self.nproc = log_dirs, sink, nproc
        self._halt = threading.Event()
        # path -> [offset, pending, source, stream, held]: held counts polls a line waited for its stamp
        self._files: dict[Path, list] = {}
        self._stamps: dict[Path, RankStamps] = {}  # rank folder -> its stamps

    @property
    def stamped(self) -> bool:
        """True if every rank whose output was read stamped its writes."""
        return bool(self._files) and all(path.parent in self._stamps for path in self._files)

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
                    self._files[path] = [0, b"", source, stream, 0]
            for path in log_dir.glob("*/attempt_*/*/stamps.log"):
                self._stamps.setdefault(path.parent, RankStamps(path))

    def _poll(self, final: bool = False) -> None:
        self._discover()
        now = time.monotonic()
        found: list[tuple[float, int, str, str, bytes]] = []
        for path, state in self._files.items():
            try:
                with open(path, "rb") as handle:
                    handle.seek(state[0])
                    chunk = handle.read(1 << 20)
            except OSError:
                continue
            state[0] += len(chunk)
            state[1] += chunk
        for stamps in self._stamps.values():  # after the logs: a write is stamped after it is made
            stamps.read()
        for path, state in self._files.items():
            offset, data, source, stream = state[0], state[1], state[2], state[3]
            stamps = self._stamps.get(path.parent)
            start = offset - len(data)  # the file offset of the first pending byte
            *complete, rest = data.split(b"\n")
            pieces = [line + b"\n" for line in complete]
            if rest and (final or len(rest) > PIECE):
                pieces.append(rest)
            used = 0
            previous = None
            for piece in pieces:
                end = start + used + len(piece)
                t = stamps.time_of(stream, end) if stamps else now
                if t is None:
                    if not final and state[4] == 0 and not stamps.written_since(stream, end):
                        state[4] = 1  # perhaps its stamp is on its way: wait one poll
                        break
                    t = stamps.time_before(stream, start + used)
                    t = now if t is None else max(t, previous or t)
                previous = t
                found.append((t, len(found), source, stream, piece))
                used += len(piece)
            else:
                state[4] = 0
            state[1] = data[used:]
        for t, _, source, stream, piece in sorted(found):
            self.sink.add(source, stream, piece, t=t)

    def total_file_bytes(self) -> int:
        return sum(state[0] for state in self._files.values())
