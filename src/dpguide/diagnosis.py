"""What can be read from a run's record about how it ended: which rank failed first and why, the
exceptions its processes raised, torchrun's failure summary, the two known flakes (gloo failing to
connect on a busy machine, the C++ abort at teardown), and one sentence for a failure report.

``RunDiagnosis`` is the half of ``RunResult`` (results.py) that interprets; the record itself, its
lines and its storage, stay there.
"""

from __future__ import annotations

import re

from .capture import Line

LAUNCHER = "torchrun"
MAIN = "python"
#: how many of the last merged lines a failure report shows
TAIL_LINES = 15

_PREFIX = re.compile(r"^\[rank\d+\]:\s?")
#: a line of torch's C++ log ("[E1205 17:59:54.296826133 ProcessGroupGloo.cpp:67] ..."): written straight
#: to the file descriptor, unstamped, it can land inside a Python traceback in the merged stream
_CPP_LOG_LINE = re.compile(r"^\[?[EWIF]\d{4} \d\d:\d\d:\d\d")
_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Timeout))(?::\s?(.*))?$")
#: how gloo's RuntimeError begins when a rank cannot set up its connections to the others
CONNECT_FLAKE = "Gloo connectFullMesh failed with"
_ROOT_RANK = re.compile(r"rank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\)\s*\n\s*exitcode\s*:\s*(-?\d+)")


def signal_name(code: int | None) -> str | None:
    """'SIGABRT' for an exit status of -6, None for a normal exit."""
    if code is None or code >= 0:
        return None
    import signal

    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class RunDiagnosis:
    """How a run ended, read from its lines, exit status and exit notes (mixed into ``RunResult``)."""

    lines: list[Line]
    launch: str
    returncode: int | None
    ended: str
    stuck_ranks: list[int]
    exit_notes: list[dict]

    def message_goes_on(self, source: str, exception_line: str) -> bool:
        """Whether the stderr line after ``exception_line`` (the last one of ``source`` that ends with
        it) continues the exception's message, rather than ending the stream or starting a log line."""
        texts = [_PREFIX.sub("", line.text) for line in self.lines if line.source == source and line.stream == "stderr"]
        ends = [i for i, text in enumerate(texts) if text.endswith(exception_line)]
        if not ends or ends[-1] + 1 >= len(texts):
            return False
        following = texts[ends[-1] + 1]
        return bool(following.strip()) and not _CPP_LOG_LINE.match(following) and not following.startswith("Traceback")

    def exceptions(self) -> list[tuple[str, str, str]]:
        """(source, exception type, message) for every traceback that ended a process."""
        found = []
        for source in self.sources():
            if source == LAUNCHER:
                continue
            last = None
            in_tb = False
            for line in self.lines:
                if line.source != source or line.stream != "stderr":
                    continue
                text = _PREFIX.sub("", line.text)
                if text.startswith("Traceback (most recent call last):"):
                    in_tb = True
                    continue
                if in_tb and not text.startswith((" ", "\t")):
                    if _CPP_LOG_LINE.match(text):
                        continue   # torch's C++ log, interleaved: the traceback goes on after it
                    match = _EXC_LINE.match(text)
                    if match:
                        last = (source, match[1], match[2] or "")
                    in_tb = False
            if last:
                found.append(last)
        return found

    def root_cause(self) -> dict | None:
        """torchrun's 'Root Cause' entry: the first rank that failed, its exit code and signal."""
        launcher = self.text(LAUNCHER)
        marker = launcher.find("Root Cause")
        if marker < 0:
            return None
        match = _ROOT_RANK.search(launcher, marker)
        if not match:
            return None
        code = int(match[3])
        return {"rank": int(match[1]), "local_rank": int(match[2]), "exitcode": code,
                "signal": signal_name(code)}

    def failed_ranks(self) -> list[dict]:
        """Every rank torchrun's last failure summary lists, once each: rank, exit code, signal."""
        launcher = self.text(LAUNCHER)
        start = launcher.rfind("Failures:")
        if start < 0:
            return []
        found: dict[int, dict] = {}
        for match in _ROOT_RANK.finditer(launcher, start):
            code = int(match[3])
            found.setdefault(int(match[1]), {"rank": int(match[1]), "exitcode": code, "signal": signal_name(code)})
        return list(found.values())

    def connect_flake_sources(self) -> list[str]:
        """Sources whose process group failed to connect to its peers ("Gloo connectFullMesh failed"),
        when no process raised anything else: gloo's rare failure to set up its connections on one
        busy machine (PyTorch's own gloo tests have hit it), not the program's fault. Empty when any
        process raised another exception (a rank that fails before the group exists leaves its peers
        unable to connect: that is the program's own failure)."""
        if self.ended != "exited" or self.returncode == 0:
            return []
        flaky, other = [], False
        for source, kind, message in self.exceptions():
            if kind == "RuntimeError" and message.startswith(CONNECT_FLAKE):
                flaky.append(source)
            else:
                other = True
        return [] if other else flaky

    def exit_abort_ranks(self) -> list[str]:
        """Sources that died of SIGABRT right after C++ printed 'terminate called without an active
        exception' and raised no Python exception: the known teardown flake (see the Contribute page).
        Empty unless every failing process ended exactly that way."""
        if self.ended != "exited" or self.returncode == 0:
            return []
        raisers = {source for source, _, _ in self.exceptions()}
        aborted = []
        for source in self.sources():
            if source == LAUNCHER:
                continue
            stderr = [line.text for line in self.lines if line.source == source and line.stream == "stderr"]
            if stderr and stderr[-1].strip() == "terminate called without an active exception":
                if source in raisers:
                    return []
                aborted.append(source)
        if self.launch == "python":
            return aborted if self.returncode == -6 else []
        cause = self.root_cause()
        return aborted if cause and cause["signal"] == "SIGABRT" else []

    def failure_summary(self) -> str:
        """One honest sentence on how the run ended."""
        if self.ended == "timeout":
            if self.launch == "python":
                return "killed at its timeout, still running"
            stuck = ", ".join(map(str, self.stuck_ranks)) or "none identified"
            return f"killed at its timeout; ranks still running: {stuck}"
        if self.ended == "output-limit":
            from .capture import HARD_LIMIT

            return (f"killed: it printed more than the engine's hard limit of {HARD_LIMIT // (1024 * 1024)} MiB")
        if self.ended == "interrupted":
            return "interrupted by the build being stopped"
        parts = []
        cause = self.root_cause()
        if cause:
            sig = f" ({cause['signal']})" if cause["signal"] else ""
            parts.append(f"rank {cause['rank']} failed first with exit code {cause['exitcode']}{sig}")
        elif self.returncode and self.returncode < 0:
            parts.append(f"killed by {signal_name(self.returncode)}")
        first = f"rank {cause['rank']}" if cause else None
        exceptions = self.exceptions()
        for source, kind, message in sorted(exceptions, key=lambda item: item[0] != first):
            parts.append(f"{source} raised {kind}: {message}".rstrip(": "))
        if not exceptions:  # ended without a traceback (argparse, sys.exit("...")): its last word
            who = first if first in self.sources() else (MAIN if self.launch == "python" else None)
            last = self.last_lines_of(who, 1, stream="stderr") if who else []
            if last and last[0].strip():
                parts.append(f"{who}'s last error line: {_PREFIX.sub('', last[0]).strip()}")
        parts.append(f"exit status {self.returncode}")
        if not self.lines:
            parts.append("it printed nothing")
        return "; ".join(parts)

    def first_failure_output(self, n: int = 10) -> tuple[str, list[str]] | None:
        """(who, their last ``n`` stderr lines) for the process that failed first: torchrun's root-cause
        rank (its last attempt) or the python process. The merged tail may hold only other ranks'
        lines; a failure report shows this too, so the failing rank's own error is never hidden."""
        if self.succeeded or self.ended != "exited":
            return None
        if self.launch == "python":
            who = MAIN
        else:
            cause = self.root_cause()
            if not cause:
                return None
            who = self.last_attempt_of(cause["rank"])
        own = [line for line in self.lines if line.source == who and line.stream == "stderr"][-n:]
        if own and all(line in self.lines[-TAIL_LINES:] for line in own):
            return None  # the merged tail already shows all of it
        return who, [line.text for line in own]

    def last_attempt_of(self, rank: int) -> str:
        """The source that printed a rank's last attempt (``rank 0 (restart 1)``), or ``rank N``."""
        name = f"rank {rank}"
        return ([s for s in self.sources() if s == name or s.startswith(name + " ")] or [name])[-1]

    def ranks_leaving_gloo_threads(self) -> dict[int, list[str]]:
        """Ranks (-1: a plain python process) of the last attempt that reached exit with gloo worker
        threads still running and then went through the interpreter's teardown, where those threads
        can abort the process (the build's own processes skip it: ``exit_probe/dpguide_main.py``)."""
        return {note["rank"]: note["gloo_threads"] for note in self.processes_leaving_gloo_threads()}

    def processes_leaving_gloo_threads(self) -> list[dict]:
        """The exit notes behind ``ranks_leaving_gloo_threads``, one per process (several processes
        that are not torchrun ranks all have rank -1)."""
        if not self.exit_notes:
            return []
        last = max(note["attempt"] for note in self.exit_notes)
        return [note for note in self.exit_notes
                if note["attempt"] == last and note["gloo_threads"] and note.get("teardown", True)]

    def skipped_teardown(self) -> tuple[int, int]:
        """(processes that skipped the interpreter's teardown, processes noted at exit)."""
        return sum(1 for note in self.exit_notes if note.get("teardown") is False), len(self.exit_notes)
