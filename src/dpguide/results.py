"""What one run of a block produced: every line, the exit status, how it ended; read and stored.

What the record says about a failure (failing rank, exceptions, known flakes) is in diagnosis.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .capture import GAP, Line
from .diagnosis import LAUNCHER, MAIN, TAIL_LINES, RunDiagnosis

#: the last word of the engine's command when a block's processes were forked from the warm interpreter
FORKED_PYTHON = "(forked from the warm interpreter)"
FORKED_TORCHRUN = "(torchrun and each rank forked from the warm interpreter)"
#: an ANSI SGR sequence (bold, colour, reset): a terminal draws it as a style, not as text
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def terminal_text(text: str) -> str:
    """``text`` as a terminal shows it: style sequences (torch bolds parts of some errors) removed.
    The run's record keeps them; only what the page shows drops them."""
    return _SGR.sub("", text)


@dataclass
class RunResult(RunDiagnosis):
    """The real outcome of one run: every line, the exit status, and how it ended."""

    command: list[str]
    reader_command: str
    launch: str
    returncode: int | None
    duration: float
    lines: list[Line]
    ended: str = "exited"  # exited | timeout | output-limit | interrupted
    stuck_ranks: list[int] = field(default_factory=list)
    dropped_bytes: int = 0
    #: per process that reached the interpreter's exit: {"rank" (-1: not a torchrun rank), "attempt", "gloo_threads",
    #: "group_alive", "teardown" (False: it stopped after atexit, skipping the interpreter's teardown)}
    exit_notes: list[dict] = field(default_factory=list)
    #: processes the block left running when its main process exited, ended by the engine
    background_ended: int = 0
    #: when the run started (UTC, ISO 8601) and the machine facts it ran with (environment.fingerprint())
    ran_at: str = ""
    ran_on: dict = field(default_factory=dict)

    def __post_init__(self):
        # kept to the millisecond, as the cache stores it, so a page shows the same figure whether its
        # result comes from this build's run or from the cache (0.19496 s was "0.19" fresh, "0.20" cached)
        self.duration = round(self.duration, 3)

    # ------------------------------------------------------------------ reading it
    def sources(self) -> list[str]:
        """Who printed, ranks in order, the launcher last."""
        seen = {line.source for line in self.lines if line.stream != GAP}
        ranks = sorted((s for s in seen if s not in (LAUNCHER, MAIN)), key=_source_order)
        return ([MAIN] if MAIN in seen else []) + ranks + ([LAUNCHER] if LAUNCHER in seen else [])

    def lines_of(self, source: str | None = None) -> list[Line]:
        """The lines one source printed (all when None), with the engine's gap marker where output was dropped."""
        return [line for line in self.lines if source is None or line.source == source or line.stream == GAP]

    def text(self, source: str | None = None, stream: str | None = None) -> str:
        """What was printed (by one source, on one stream), without the engine's gap marker."""
        return "\n".join(line.text for line in self.lines
                         if line.stream != GAP
                         and (source is None or line.source == source)
                         and (stream is None or line.stream == stream))

    @property
    def forked(self) -> bool:
        """True if its processes were forked from the build's warm interpreter (see launch.py)."""
        return bool(self.command) and self.command[-1] in (FORKED_PYTHON, FORKED_TORCHRUN)

    @property
    def succeeded(self) -> bool:
        return self.ended == "exited" and self.returncode == 0

    def tail(self, n: int = TAIL_LINES) -> str:
        return "\n".join(f"[{line.source}] {line.text}" for line in self.lines[-n:])

    def last_lines_of(self, source: str, n: int = 3, stream: str | None = None) -> list[str]:
        return [line.text for line in self.lines
                if line.source == source and (stream is None or line.stream == stream)][-n:]

    # ------------------------------------------------------------------ storage
    def to_json(self) -> dict:
        return {"command": self.command, "reader_command": self.reader_command, "launch": self.launch,
                "returncode": self.returncode, "duration": self.duration, "ended": self.ended,
                "stuck_ranks": self.stuck_ranks, "dropped_bytes": self.dropped_bytes,
                "exit_notes": self.exit_notes, "background_ended": self.background_ended,
                "ran_at": self.ran_at, "ran_on": self.ran_on,
                "lines": [line.to_json() for line in self.lines]}

    @classmethod
    def from_json(cls, data: dict) -> "RunResult":
        required = {"command": list, "reader_command": str, "launch": str, "duration": (int, float),
                    "ended": str, "stuck_ranks": list, "dropped_bytes": int, "lines": list}
        for key, kind in required.items():
            if not isinstance(data.get(key), kind):
                raise ValueError(f"field {key!r} missing or of the wrong type")
        notes = data.get("exit_notes", [])
        if not isinstance(notes, list) or not all(
                isinstance(n, dict) and isinstance(n.get("rank"), int) and isinstance(n.get("attempt"), int)
                and isinstance(n.get("gloo_threads"), list) for n in notes):
            raise ValueError("field 'exit_notes' is malformed")
        if data.get("returncode") is not None and not isinstance(data["returncode"], int):
            raise ValueError("field 'returncode' is not an integer")
        return cls(command=data["command"], reader_command=data["reader_command"], launch=data["launch"],
                   returncode=data.get("returncode"), duration=float(data["duration"]),
                   lines=[Line.from_json(item) for item in data["lines"]], ended=data["ended"],
                   stuck_ranks=data["stuck_ranks"], dropped_bytes=data["dropped_bytes"],
                   exit_notes=list(notes), background_ended=int(data.get("background_ended", 0)),
                   ran_at=str(data.get("ran_at", "")), ran_on=dict(data.get("ran_on") or {}))

def _source_order(source: str) -> tuple:
    """Sort key: first attempt before restarts, then node, then rank."""
    def number(word: str) -> int:
        match = re.search(word + r" (\d+)", source)
        return int(match[1]) if match else 0

    return (number("restart"), number("node"), number("rank"), source)
