"""A torchrun worker that hands its rank to a fork of the build's warm interpreter.

torchrun starts each worker as ``python train.py`` (the reader's command, unchanged). When the
engine sets ``DPGUIDE_FORK_WORKER`` (the warm server's socket), this module, loaded by
``sitecustomize`` before anything else, sends the worker's argv, working directory, environment
and standard output and error (the per-rank log files torchrun opened, and a stamps file beside
them where the rank notes when it wrote what) to the warm server, which
forks a child that has already imported torch and runs the script there as ``__main__``. This
process stays as the rank's stand-in, the one torchrun watches: it passes on every signal torchrun
sends, and exits the way the rank exited (same status, or killed by the same signal). If it is
killed itself, the warm server's job leader sees its connection close and kills the rank.

Standard library only: it runs before ``site-packages`` matter and must cost milliseconds.
"""

import array
import json
import os
import signal
import socket

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def hand_over(socket_path: str) -> None:
    """Run this worker as a fork of the warm server; never returns."""
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DPGUIDE_FORK_WORKER", "DPGUIDE_FRESH_END")}
    pending: list[int] = []
    child = {"pid": 0}

    def forward(signum, _frame):
        if child["pid"]:
            try:
                os.kill(child["pid"], signum)
            except ProcessLookupError:
                pass
        else:
            pending.append(signum)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    code = 1
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(socket_path)
        request = {"argv": list(sys.argv), "cwd": os.getcwd(), "env": env, "streams": "plain",
                   "stamps": _stamps_path()}
        conn.sendmsg([json.dumps(request).encode()],
                     [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [1, 2]))])
        reader = conn.makefile("rb")
        started = json.loads(reader.readline())
        child["pid"] = started["pid"]
        for signum in pending:
            forward(signum, None)
        line = reader.readline()
        if not line:
            os.write(2, b"dpguide: the warm server's job leader ended without a status\n")
            os._exit(1)
        ended = json.loads(line)
        code = ended["status"]
        _note_background(ended.get("background", 0))
    except (OSError, ValueError, KeyError) as exc:
        os.write(2, f"dpguide: could not hand this worker to the warm server: {exc}\n".encode())
        os._exit(1)
    if code < 0:  # the rank was killed by a signal: end the same way, so torchrun reports it
        try:
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL cannot be handled: it needs no reset
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def _stamps_path():
    """Where the rank notes when it wrote what: beside torchrun's ``stdout.log`` for this rank, or
    None when stdout is not such a log file (torchrun run without ``--redirects``)."""
    try:
        target = os.readlink("/proc/self/fd/1")
    except OSError:
        return None
    if os.path.basename(target) != "stdout.log":
        return None
    return os.path.join(os.path.dirname(target), "stamps.log")


def _note_background(count: int) -> None:
    """Tell the engine how many processes the rank left running (its leader ended them)."""
    folder = os.environ.get("DPGUIDE_EXIT_PROBE")
    if not folder or not count:
        return
    try:
        with open(os.path.join(folder, f"background-{os.getpid()}.json"), "w") as out:
            json.dump({"background": count}, out)
    except OSError:
        pass
