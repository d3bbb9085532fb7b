"""Finding and ending every process a block started, even ones that left their parent.

Each block's processes carry ``DPGUIDE_JOB=<token>`` in their environment, so a
process that was reparented (a torchrun worker whose agent died) is still
found by scanning the process table.
"""

from __future__ import annotations

import os
import signal
import time

import psutil

MARKER = "DPGUIDE_JOB"


def job_processes(token: str, roots: list[int] = ()) -> list[psutil.Process]:
    """Every live process of a job: the roots, their descendants, and any carrying the marker."""
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
            if proc.environ().get(MARKER) == token:
                found[proc.pid] = proc
        except psutil.Error:
            continue
    return [p for p in found.values() if _alive(p)]


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


def kill_job(token: str, roots: list[int] = (), grace_s: float = 0.0) -> int:
    """End every process of a job (SIGKILL, after ``grace_s`` of SIGTERM); return how many.

    The table is scanned again until nothing of the job is left, so a process that
    was being started during the first scan is found and ended too.
    """
    procs = job_processes(token, roots)
    if grace_s > 0 and procs:
        for proc in procs:
            _signal(proc, signal.SIGTERM)
        psutil.wait_procs(procs, timeout=grace_s)
    ended = {p.pid for p in procs}
    deadline = time.monotonic() + 10
    while procs and time.monotonic() < deadline:
        for proc in procs:
            _signal(proc, signal.SIGKILL)
        time.sleep(0.02)
        procs = job_processes(token, roots)
        ended |= {p.pid for p in procs}
    return len(ended)


def _signal(proc: psutil.Process, sig: int) -> None:
    try:
        proc.send_signal(sig)
    except psutil.Error:
        pass
