"""Finding and ending every process a block (or a whole build) started, even ones that left their parent.

Two markers travel in the environment of every process the engine starts:
``DPGUIDE_JOB=<token>`` names one run of one block, ``DPGUIDE_BUILD=<token>``
names the build process that started it (see ``guardian``). A process that
was reparented (a torchrun worker whose agent died, a daemon a block left
behind) is still found by scanning the process table for its marker.

Ending a tree is done in two passes: every process found is first stopped
(SIGSTOP, so none of them can fork or exit any more and its children stay
where they are), the table is scanned again until no new process appears,
and only then is everything killed. A process started between two scans is
found by the next one.
"""

from __future__ import annotations

import os
import signal
import time

import psutil

MARKER = "DPGUIDE_JOB"
BUILD_MARKER = "DPGUIDE_BUILD"


def marked_processes(name: str, value: str, roots: list[int] = ()) -> list[psutil.Process]:
    """Every live process whose environment has ``name=value``, plus ``roots`` and their descendants."""
    found: dict[int, psutil.Process] = {}
    for pid in roots:
        try:
            root = psutil.Process(pid)
            found[pid] = root
            for child in root.children(recursive=True):
                found[child.pid] = child
        except psutil.Error:
            pass
    me = os.getpid()
    for proc in psutil.process_iter(["pid"]):
        if proc.pid in found or proc.pid == me:
            continue
        try:
            if proc.environ().get(name) == value:
                found[proc.pid] = proc
        except psutil.Error:
            continue
    return [p for p in found.values() if _alive(p)]


def job_processes(token: str, roots: list[int] = ()) -> list[psutil.Process]:
    """Every live process of one job: the roots, their descendants, and any carrying the job marker."""
    return marked_processes(MARKER, token, roots)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def rank_of(proc: psutil.Process) -> int | None:
    """The RANK a torchrun worker was started with, or None for other processes."""
    try:
        env = proc.environ()
    except psutil.Error:
        return None
    if "LOCAL_RANK" in env and "RANK" in env:
        return int(env["RANK"])
    return None


def end_processes(find, grace_s: float = 0.0, limit_s: float = 10.0) -> int:
    """Stop, then kill, everything ``find()`` returns, rescanning until nothing is left; return how many.

    ``grace_s`` > 0 first asks politely (SIGTERM) and waits that long.
    """
    procs = find()
    if grace_s > 0 and procs:
        for proc in procs:
            _signal(proc, signal.SIGTERM)
        psutil.wait_procs(procs, timeout=grace_s)
        procs = find()
    ended: set[int] = set()
    deadline = time.monotonic() + limit_s
    # freeze: stopped processes cannot fork or exit, so their descendants stay findable from the roots
    while procs and time.monotonic() < deadline:
        new = [p for p in procs if p.pid not in ended]
        if not new:
            break
        for proc in new:
            _signal(proc, signal.SIGSTOP)
        ended |= {p.pid for p in new}
        procs = find()
    while procs and time.monotonic() < deadline:
        for proc in procs:
            _signal(proc, signal.SIGKILL)
            _signal(proc, signal.SIGCONT)
        ended |= {p.pid for p in procs}
        time.sleep(0.02)
        procs = find()
    return len(ended)


def kill_job(token: str, roots: list[int] = (), grace_s: float = 0.0) -> int:
    """End every process of a job; return how many there were."""
    return end_processes(lambda: job_processes(token, roots), grace_s)


def _signal(proc: psutil.Process, sig: int) -> None:
    try:
        proc.send_signal(sig)
    except psutil.Error:
        pass
