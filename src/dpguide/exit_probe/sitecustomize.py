"""Loaded into every process a block starts: its folder is put on PYTHONPATH, and
forked python blocks load it by path before running the script.

At interpreter exit, before Python starts tearing itself down, it writes down
which gloo worker threads are still running. A rank that leaves them running
can abort at random at exit: a worker that frees a finished collective needs
the GIL while the interpreter is already finalizing, CPython ends that thread,
and the C++ runtime calls std::terminate ("terminate called without an active
exception", SIGABRT). The engine reads these notes and fails such a block on
every run, instead of failing it now and then. It prints nothing and changes
nothing the program sees, apart from this module being imported at start-up.

Each note says whether the process skips the interpreter's teardown (``dpguide_main.end``): a
process that does cannot abort there, so threads it leaves are harmless, and the engine checks
only the processes that go through Python's whole exit (those a block starts itself).

A torchrun worker of a build that forks ranks from its warm interpreter does not run the
script itself: before anything else, it hands its rank over (``dpguide_handover.py``), and
the forked rank loads this module again, without the hand-over. A worker started as a fresh
interpreter (``DPGUIDE_FRESH_END``) runs its script from here, once the probe is set up, and
ends as a forked rank ends (``dpguide_main.take_over``).
"""

import atexit
import json
import os
import sys

if os.environ.get("DPGUIDE_FORK_WORKER") and "TORCHELASTIC_RESTART_COUNT" in os.environ:  # a worker
    import dpguide_handover

    dpguide_handover.hand_over(os.environ["DPGUIDE_FORK_WORKER"])


def _gloo_threads() -> list:
    names = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/comm") as comm:
                name = comm.read().strip()
            if name.startswith("pt_gloo_runloop"):
                names.append(name)
    except OSError:
        pass
    return sorted(names)


def _group_alive():
    """True if this process still has a default process group (it never called destroy_process_group())."""
    dist = sys.modules.get("torch.distributed")
    try:
        return bool(dist is not None and dist.is_available() and dist.is_initialized())
    except Exception:  # noqa: BLE001 - a probe never breaks the program
        return None


def _write_note() -> None:
    folder = os.environ.get("DPGUIDE_EXIT_PROBE")
    if not folder:
        return  # not run by the build
    note = {"rank": int(os.environ.get("RANK", "-1")),  # -1: not a torchrun rank
            "attempt": int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")),
            "pid": os.getpid(), "gloo_threads": _gloo_threads(), "group_alive": _group_alive(),
            "teardown": not getattr(sys.modules.get("dpguide_main"), "SKIPS_TEARDOWN", False)}
    try:
        with open(os.path.join(folder, f"exit-{note['pid']}.json"), "w") as out:
            json.dump(note, out)
    except OSError:
        pass


def _write_start_note() -> None:
    """Under torchrun: which global rank this worker is, and which agent (node) started it.

    torchrun's log files name only the local rank; the engine reads these notes to label
    each worker's output with its real global rank and the node rank the rendezvous gave it.
    """
    folder = os.environ.get("DPGUIDE_EXIT_PROBE")
    if not folder or "RANK" not in os.environ:
        return
    note = {key.lower(): os.environ.get(key, "") for key in
            ("RANK", "LOCAL_RANK", "GROUP_RANK", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_ERROR_FILE")}
    try:
        with open(os.path.join(folder, f"start-{os.getpid()}.json"), "w") as out:
            json.dump(note, out)
    except OSError:
        pass


def _line_buffered_stdout() -> None:
    """Flush stdout at each newline, as it is when a reader runs the program at a terminal.

    The build's processes write into pipes and files. There, Python would buffer stdout in blocks
    (every line of a child process would arrive at its exit), and with ``PYTHONUNBUFFERED`` it
    writes a print's text and its newline separately, so two processes sharing one pipe can tear
    each other's lines. Line buffering gives each line in one write, in the order printed.
    stderr is line-buffered already (Python 3.9 and later).

    torchrun starts its workers as ``python -u``, which writes the same two pieces; a worker of a
    torchrun that a block starts itself shares its pipe with the other workers, so its stdout also
    gets a line at a time (``write_through`` off; the line is still written at its newline).
    """
    if not os.environ.get("DPGUIDE_EXIT_PROBE"):
        return  # not run by the build
    try:
        if sys.stdout is not None and (not sys.stdout.line_buffering or sys.stdout.write_through):
            sys.stdout.reconfigure(line_buffering=True, write_through=False)
    except (AttributeError, ValueError, OSError):
        pass  # not a text stream that can be reconfigured: leave it as the program has it


_line_buffered_stdout()
_write_start_note()
atexit.register(_write_note)

if os.environ.get("DPGUIDE_FRESH_END") and "TORCHELASTIC_RESTART_COUNT" in os.environ \
        and os.path.isfile(sys.argv[0]):  # a fresh torchrun worker running a script file
    import dpguide_main

    dpguide_main.take_over()
