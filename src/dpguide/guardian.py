"""The guardian: a small watcher process that ends everything a build started once the build is gone.

A build that is killed (SIGKILL, OOM, a closed terminal) runs no cleanup code
of its own, and the processes it started (the fork server, torchrun agents,
their ranks, anything those left running) would live on under init. So the
first time a build process launches anything, it starts one guardian in a
session of its own and keeps the write end of a pipe to it. Every process the
build starts carries ``DPGUIDE_BUILD=<token>`` in its environment. When the
pipe closes (the build exited, however it died), the guardian stops and kills
every process carrying that token, removes the build's scratch folders (the
build writes their glob patterns down the same pipe, one a line, as it makes
them), and exits. The guardian imports neither torch nor the engine.

Run as ``python -m dpguide.guardian TOKEN``.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

_lock = threading.Lock()
_state: dict = {"pid": None, "token": None, "proc": None}


def build_token() -> str:
    """This build process's token (``<pid>-<random>``); a forked copy of the build gets its own."""
    with _lock:
        if _state["pid"] != os.getpid():
            _state.update(pid=os.getpid(), token=f"{os.getpid()}-{uuid.uuid4().hex[:12]}", proc=None,
                          globs=set())
        return _state["token"]


def scratch_tag() -> str:
    """Part of every scratch folder name this build makes: ``p<pid>``, so leftovers can be matched."""
    return f"p{os.getpid()}"


def new_scratch_dir(root: Path, prefix: str) -> Path:
    """A new folder ``<root>/<prefix>-p<build pid>-<random>`` of this build's own: never reused,
    never shared with another build, and removed by the guardian if the build cannot remove it."""
    root.mkdir(parents=True, exist_ok=True)
    tag = scratch_tag()
    remove_at_exit(str(root.resolve() / f"*-{tag}-*"))
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-{tag}-", dir=root))


def new_temp_dir(prefix: str) -> str:
    """A new folder ``$TMPDIR/<prefix>-p<build pid>-<random>`` (short paths, for Unix sockets), removed
    by the guardian if the build cannot remove it."""
    head = f"{prefix}-{scratch_tag()}-"
    remove_at_exit(os.path.join(tempfile.gettempdir(), head + "*"))
    return tempfile.mkdtemp(prefix=head)


def marker_env() -> dict[str, str]:
    """The environment entry every process of this build carries; starts the guardian on first use."""
    from .processes import BUILD_MARKER

    token = build_token()
    with _lock:
        proc = _state["proc"]
        if proc is None or proc.poll() is not None:
            env = {k: v for k, v in os.environ.items() if not k.startswith("DPGUIDE_")}
            env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            _state["globs"] = set()
            _state["proc"] = subprocess.Popen(
                [sys.executable, "-m", "dpguide.guardian", token],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env, start_new_session=True, close_fds=True)
            atexit.register(_stop, _state["proc"])
    return {BUILD_MARKER: token}


def _stop(proc: subprocess.Popen) -> None:
    """At a normal exit: close the pipe and wait for the guardian's (empty) sweep, so that it is not
    left running by a build that is itself a block of another build (the Contribute page's gallery)."""
    try:
        proc.stdin.close()
        proc.wait(5)
    except (OSError, subprocess.TimeoutExpired):
        pass


def remove_at_exit(pattern: str) -> None:
    """Have the guardian remove what matches ``pattern`` (a glob) once this build is gone."""
    marker_env()
    with _lock:
        if pattern in _state.setdefault("globs", set()):
            return
        _state["globs"].add(pattern)
        try:
            _state["proc"].stdin.write(pattern.encode() + b"\n")
            _state["proc"].stdin.flush()
        except (OSError, ValueError):
            pass


def guardian_pid() -> int | None:
    proc = _state["proc"]
    return proc.pid if proc is not None and proc.poll() is None else None


def sweep(token: str, scratch_globs: list[str]) -> int:
    """End every process carrying this build's token and remove its scratch folders; return how many."""
    from .processes import BUILD_MARKER, end_processes, marked_processes

    ended = end_processes(lambda: marked_processes(BUILD_MARKER, token))
    for pattern in scratch_globs:
        for path in glob.glob(pattern):
            shutil.rmtree(path, ignore_errors=True)
    return ended


def main(argv: list[str]) -> int:
    token = argv[0]
    # each line is a scratch glob; the end of the stream means every holder of the write end is gone
    scratch_globs = [line.decode().rstrip("\n") for line in sys.stdin.buffer if line.strip()]
    sweep(token, scratch_globs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
