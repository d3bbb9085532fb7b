"""A warm interpreter that has imported torch once and forks a clean child per block.

Importing torch costs about a second per fresh interpreter; forking a process
that already imported it costs milliseconds. Each request forks a *job leader*:
it takes its own session, becomes a child subreaper (so every process the
block leaves behind, daemons included, is reparented to it and not to init)
and forks the block's process, which gets the working directory, environment,
argv and the stdout/stderr pipes of the engine (passed over a Unix socket) and
runs the script as ``__main__`` the way ``python FILE.py`` would: same
traceback (through ``sys.excepthook``), same exit status, new random seeds.
A request may instead name a module (torchrun's agent runs as ``python -m
torch.distributed.run``), or come from a torchrun worker's stand-in
(``exit_probe/dpguide_handover.py``), whose stdout and stderr are its rank's log
files ("plain" streams, each write stamped with its time, ``StampedWriter``, so the engine can
merge the two files in the order of writing). When the block's process exits, the leader kills
whatever it left running and reports both the exit status and how many
processes it had to end; if the asker goes away first, the leader kills the
process. The block's process runs from the top of the stack; if it fails it
ends through the interpreter's normal exit, teardown included, as ``python
FILE`` ends; if it succeeds it stops after ``atexit`` (see ``exit_probe/dpguide_main.py``).

The server exits when it sees that its build is gone; anything of a killed
build that is still running is ended by the guardian (``guardian.py``).

Run as ``python -m dpguide.forkserver SOCKET PARENT_PID``; ``ForkServer`` is the client.
"""

from __future__ import annotations

import array
import ctypes
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

#: imported once by the warm server, so no forked process pays for them
PRELOAD = ("torch", "torch.nn", "torch.distributed", "torch.utils.data", "numpy")
#: imported besides by the server that forks the processes of blocks that construct
#: ``DistributedDataParallel`` (its first construction in a process imports ``torch._dynamo``: about
#: a second here; it brings ``torch.distributed.nn`` with it, imported before any group exists) and
#: of single processes that have no process group (``launch.forks_with_dynamo``). Other blocks never
#: get it: importing it changes what some programs with a group print (a C++ warning of
#: ``ProcessGroup::hasHooks`` appears in one of this site's examples)
DDP_PRELOAD = ("torch._dynamo",)
#: imported besides by the server that forks the processes of blocks that import one of
#: torch.distributed's sharding packages (``launch.imports_sharding``): importing those costs about
#: half a second to a second per process here, and every such program of this site imports
#: ``torch._dynamo`` as well at its first FSDP or DTensor call, optimizer step or DDP()
SHARDING_PRELOAD = (*DDP_PRELOAD, "torch.distributed.fsdp", "torch.distributed.tensor.debug",
                    "torch.distributed.checkpoint", "torch.distributed.checkpoint.state_dict",
                    "torch.distributed.optim")
#: what each kind of warm server imports besides ``PRELOAD``; a "bare" server imports nothing
SERVER_KINDS = {"warm": (), "ddp": DDP_PRELOAD, "sharding": SHARDING_PRELOAD}


# --------------------------------------------------------------------------- server side

PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the guardian still ends what a dead build left


def serve(socket_path: str, parent: int, preload: bool = True, also: tuple[str, ...] = ()) -> tuple[dict, list[int]] | None:
    """Fork a job leader per request until the build is gone. Returns None in the server; in a
    block's process (a fork of a fork) it returns that block's (request, fds), so the block runs
    from the top of the stack and ends the way ``python FILE`` ends."""
    # No PR_SET_PDEATHSIG here: it fires when the *thread* that started us ends (an engine worker
    # thread), not the build. The loop below notices a dead build within 10 ms instead.
    if os.getppid() != parent:
        return
    for name in (*PRELOAD, *also) if preload else ():
        try:
            __import__(name)
        except ImportError:
            pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    waiting: dict[int, socket.socket] = {}
    while True:
        for key, _ in selector.select(timeout=0.01):
            conn, _ = listener.accept()
            request, fds = _receive(conn)
            if request is None:
                conn.close()
                continue
            pid = os.fork()
            if pid == 0 and _lead(request, fds, conn, [listener, *waiting.values()]):
                selector.close()
                return request, fds   # the block's process
            for fd in fds:
                os.close(fd)
            waiting[pid] = conn
        while waiting:  # the leaders report to the engine themselves; reap them
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                conn.close()
        if os.getppid() != parent:  # the engine is gone: do not outlive it
            return


def _receive(conn: socket.socket) -> tuple[dict | None, list[int]]:
    fds = array.array("i")
    msg, ancdata, _, _ = conn.recvmsg(1 << 20, socket.CMSG_LEN(3 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    if not msg:
        return None, list(fds)
    return json.loads(msg.decode()), list(fds)


class RawWriter:
    """What ``io.TextIOWrapper`` needs of a raw, write-only stream on file descriptor ``fd``."""

    def __init__(self, fd: int):
        self.fd = fd
        self.closed = False

    def readable(self): return False
    def writable(self): return True
    def seekable(self): return False
    def flush(self): pass
    def close(self): self.closed = True
    def fileno(self): return self.fd
    def isatty(self): return False


class FramedWriter(RawWriter):
    """A raw binary stream that writes ``tag + length + bytes`` frames to one shared pipe."""

    CHUNK = 4000  # below PIPE_BUF, so each frame is written atomically

    def __init__(self, fd: int, tag: bytes):
        super().__init__(fd)
        self.tag = tag

    def write(self, data) -> int:
        data = bytes(data)
        for start in range(0, len(data), self.CHUNK):
            part = data[start:start + self.CHUNK]
            os.write(self.fd, self.tag + len(part).to_bytes(4, "big") + part)
        return len(data)


class StampedWriter(RawWriter):
    """A raw binary stream for a torchrun rank: writes to a log file as ``python -u`` would, and
    notes in a stamps file when each write happened (``O|E monotonic_ns start end``, byte offsets of
    the log file). torchrun keeps a rank's stdout and stderr in two files; the stamps let the engine
    merge the two, and all ranks, in the order they were written."""

    def __init__(self, fd: int, tag: str, stamps_fd: int):
        super().__init__(fd)
        self.tag, self.stamps_fd = tag, stamps_fd

    def write(self, data) -> int:
        data = memoryview(bytes(data))
        start = os.lseek(self.fd, 0, os.SEEK_CUR)
        written = 0
        while written < len(data):
            written += os.write(self.fd, data[written:])
        end = start + written
        try:
            os.write(self.stamps_fd, f"{self.tag} {time.monotonic_ns()} {start} {end}\n".encode())
        except OSError:
            pass  # a stamp is for ordering only: never let it break the program's own write
        return written


def _load_exit_probe() -> None:
    sys.modules.pop("sitecustomize", None)   # the server's own, if any: the block gets its probe afresh
    _load_probe_module("sitecustomize")


def _lead(request: dict, fds: list[int], conn: socket.socket, others: list[socket.socket]) -> bool:
    """In the forked job leader: fork the block's process, wait for it, end what it left, report.

    Returns True only in the block's process; the leader itself ends here."""
    try:
        for sock in others:
            sock.close()
        os.setsid()
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        pid = os.fork()
    except BaseException:  # noqa: BLE001 - a leader that cannot start its block reports nothing
        os._exit(1)
    if pid == 0:
        conn.close()
        return True
    try:
        for fd in fds:
            os.close(fd)
        conn.sendall(json.dumps({"pid": pid, "leader": os.getpid()}).encode() + b"\n")
        code = _wait_or_kill(pid, conn)
        background = end_children()
        conn.sendall(json.dumps({"status": code, "background": background}).encode() + b"\n")
    finally:
        os._exit(0)


def _wait_or_kill(pid: int, conn: socket.socket) -> int:
    """Wait for the block's process; kill it if the one who asked for it goes away first.

    The asker is the engine (a python block) or a torchrun worker's stand-in: if that process
    dies (killed by torchrun, or by the engine at a timeout), its end of the connection closes.
    """
    watch = selectors.DefaultSelector()
    watch.register(conn, selectors.EVENT_READ)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if watch.select(timeout=0.01):
            try:
                gone = conn.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                gone = True
            if gone:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                return os.waitstatus_to_exitcode(status)
            watch.unregister(conn)  # the asker never writes again; stop watching a readable socket


def _children() -> list[tuple[int, str]]:
    """(pid, state) of this process's children, read from /proc."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me:
            found.append((int(name), fields[0].decode()))
    return found


def end_children() -> int:
    """Kill every child (and, as a subreaper, every orphan that lands here) until none is left.

    Returns how many were still running; children that had already exited (zombies) are only reaped.
    """
    ended: set[int] = set()
    while True:
        children = _children()
        if not children:
            break
        for pid, state in children:
            if state != "Z":
                ended.add(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    return len(ended)


def _repoint_log_handlers(replacements: list[tuple]) -> None:
    """Logging handlers made while the server imported torch write to the server's ``sys.stderr``
    object (torch's own logger has one): point them at the child's streams, where the program's
    other writes go (and, for a rank, where they are stamped)."""
    import logging

    loggers = [logging.getLogger(), *(logger for logger in logging.Logger.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler):
                for old, new in replacements:
                    if handler.stream is old:
                        handler.setStream(new)
                        break


def _reseed() -> None:
    """Give the child the random state a new interpreter has: a fork copies the server's, so two
    ranks (or two blocks) would otherwise draw the same "random" numbers. A new interpreter seeds
    Python's ``random``, numpy's global generator and torch's CPU generator from the OS."""
    import random

    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.default_generator.seed()


def _child(request: dict, fds: list[int]) -> int:
    """In the block's process: take the engine's pipes, run the script as __main__, return its exit
    status (the caller ends the process with it: ``dpguide_main.end``)."""
    import io

    out_fd, err_fd = fds[:2]
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.close(out_fd)
    os.close(err_fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    module = request.get("module")
    script = os.path.abspath(request["argv"][0]) if not module else None
    sys.argv = list(request["argv"]) if not module else ["-m", *request["argv"]]
    sys.path[0] = os.path.dirname(script) if not module else request["cwd"]
    sys.stdin = open(os.devnull)
    old_streams = (sys.stdout, sys.stderr)
    if request.get("streams") == "plain":
        # a torchrun rank: fds 1 and 2 are its log files, written as `python -u` would write them,
        # each write stamped with its time when the stand-in named a stamps file
        stamps = request.get("stamps")
        if stamps:
            stamps_fd = os.open(stamps, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
            out, err = StampedWriter(1, "O", stamps_fd), StampedWriter(2, "E", stamps_fd)
        else:
            out, err = io.FileIO(1, "w", closefd=False), io.FileIO(2, "w", closefd=False)
        sys.stdout = sys.__stdout__ = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        sys.stderr = sys.__stderr__ = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                                       write_through=True)
    else:
        # Python-level writes go, tagged by stream, through one pipe so their order is exact;
        # C-level writes to fds 1 and 2 (and child processes) still reach the plain pipes.
        # Line-buffered, as at a reader's terminal: a line is one frame, so processes forked
        # from the block (a fork-started multiprocessing pool) cannot tear each other's lines.
        framed_fd = fds[2]
        sys.stdout = sys.__stdout__ = io.TextIOWrapper(FramedWriter(framed_fd, b"O"), encoding="utf-8",
                                                       line_buffering=True)
        sys.stderr = sys.__stderr__ = io.TextIOWrapper(FramedWriter(framed_fd, b"E"), encoding="utf-8",
                                                       errors="backslashreplace", line_buffering=True)
    _repoint_log_handlers([(old_streams[0], sys.stdout), (old_streams[1], sys.stderr)])
    _reseed()
    if os.environ.get("DPGUIDE_EXIT_PROBE"):  # what `python FILE` gets from PYTHONPATH
        _load_exit_probe()
    return _load_probe_module("dpguide_main").run_as_main(script, module)


def _load_probe_module(name: str):
    """A module of ``exit_probe/`` (standard library only), loaded by path and kept in ``sys.modules``
    under its own name, as a fresh interpreter with that folder on PYTHONPATH would have it."""
    import importlib.util

    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exit_probe", f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- client side

class ForkServer:
    """Starts the warm server on first use and runs scripts in forked children."""

    def __init__(self, env: dict[str, str], preload: bool = True, also: tuple[str, ...] = ()):
        self.env, self.preload, self.also = env, preload, tuple(also)
        self._proc: subprocess.Popen | None = None
        self._dir = None
        self._lock = threading.Lock()

    def ensure_started(self) -> str:
        """Start the server if it is not running (so a block's run time never includes its start)."""
        from . import guardian

        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return self._socket
            self._remove_dir()
            self._dir = guardian.new_temp_dir("dpguide-fork")
            self._socket = os.path.join(self._dir, "s")
            src = str(Path(__file__).resolve().parents[1])
            env = {**self.env, **guardian.marker_env()}  # its forked blocks show this marker too
            env["PYTHONPATH"] = src
            # importing torch._dynamo makes inductor's cache folder (by default $TMPDIR/torchinductor_<user>,
            # left behind): the server's goes in its own folder, removed with it. A forked block gets its
            # own environment back, so what it compiles is cached where `python FILE` would cache it.
            env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(self._dir, "inductor")
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "dpguide.forkserver", self._socket, str(os.getpid())]
                + ([] if self.preload else ["--bare"]) + [f"--also={name}" for name in self.also],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, cwd=self._dir)
            ready = self._proc.stdout.readline()
            if ready.strip() != b"ready":
                raise RuntimeError("the warm fork server did not start")
            return self._socket

    def start(self, argv: list[str], cwd: str, env: dict[str, str], out_fd: int, err_fd: int, framed_fd: int,
              module: str | None = None):
        """Fork a job for ``python argv...`` (or ``python -m module argv...``); returns (leader pid,
        reader, connection).

        The reader yields one JSON line when the block's process has exited and its leftovers are
        ended: ``{"status": exit status, "background": processes ended}``; nothing if the leader was killed.
        """
        path = self.ensure_started()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        message = json.dumps({"argv": argv, "cwd": cwd, "env": env, "module": module}).encode()
        conn.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [out_fd, err_fd, framed_fd]))])
        reader = conn.makefile("rb")
        line = reader.readline()
        if not line:
            conn.close()
            raise RuntimeError("the warm fork server closed the connection without starting the block")
        reply = json.loads(line)
        return reply["leader"], reader, conn

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
            self._remove_dir()

    def _remove_dir(self) -> None:
        if self._dir:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


if __name__ == "__main__":
    job = serve(sys.argv[1], int(sys.argv[2]), preload="--bare" not in sys.argv[3:],
                also=tuple(arg.split("=", 1)[1] for arg in sys.argv[3:] if arg.startswith("--also=")))
    if job is not None:
        _load_probe_module("dpguide_main").end(_child(*job))   # the block's process
