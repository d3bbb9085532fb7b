"""A warm interpreter that has imported torch once and forks a clean child per block.

Importing torch costs about a second per fresh interpreter; forking a process
that already imported it costs milliseconds. Each child gets its own session
(process group), working directory, environment, argv and the stdout/stderr
pipes of the engine (passed over a Unix socket), then runs the script as
``__main__`` the way ``python FILE.py`` would: same traceback, same exit status.

Run as ``python -m dpguide.forkserver SOCKET``; ``ForkServer`` is the client.
"""

from __future__ import annotations

import array
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

PRELOAD = ("torch", "torch.nn", "torch.distributed", "torch.utils.data", "numpy")


# --------------------------------------------------------------------------- server side

def serve(socket_path: str, preload: bool = True) -> None:
    for name in PRELOAD if preload else ():
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
            if pid == 0:
                _child(request, fds, listener, conn, list(waiting.values()))
            for fd in fds:
                os.close(fd)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            waiting[pid] = conn
        while waiting:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                except OSError:
                    pass
                conn.close()
        if os.getppid() == 1:  # the engine is gone: do not outlive it
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


class FramedWriter:
    """A raw binary stream that writes ``tag + length + bytes`` frames to one shared pipe."""

    CHUNK = 4000  # below PIPE_BUF, so each frame is written atomically

    def __init__(self, fd: int, tag: bytes):
        self.fd, self.tag = fd, tag
        self.closed = False

    def write(self, data) -> int:
        data = bytes(data)
        for start in range(0, len(data), self.CHUNK):
            part = data[start:start + self.CHUNK]
            os.write(self.fd, self.tag + len(part).to_bytes(4, "big") + part)
        return len(data)

    def readable(self): return False
    def writable(self): return True
    def seekable(self): return False
    def flush(self): pass
    def close(self): self.closed = True
    def fileno(self): return self.fd
    def isatty(self): return False


def _load_exit_probe() -> None:
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exit_probe", "sitecustomize.py")
    spec = importlib.util.spec_from_file_location("sitecustomize", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["sitecustomize"] = module


def _child(request: dict, fds: list[int], *sockets) -> None:
    """In the forked child: become the block's process and run its script as __main__."""
    import io
    import atexit
    import threading as _threading
    import traceback
    import types

    for sock in sockets:
        for one in sock if isinstance(sock, list) else [sock]:
            one.close()
    os.setsid()
    out_fd, err_fd, framed_fd = fds
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.close(out_fd)
    os.close(err_fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    script = os.path.abspath(request["argv"][0])
    sys.argv = list(request["argv"])
    sys.path[0] = os.path.dirname(script)
    sys.stdin = open(os.devnull)
    # Python-level writes go, tagged by stream, through one pipe so their order is exact;
    # C-level writes to fds 1 and 2 (and child processes) still reach the plain pipes.
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(FramedWriter(framed_fd, b"O"), encoding="utf-8",
                                                   write_through=True, line_buffering=True)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(FramedWriter(framed_fd, b"E"), encoding="utf-8",
                                                   errors="backslashreplace", write_through=True,
                                                   line_buffering=True)
    if os.environ.get("DPGUIDE_EXIT_PROBE"):  # what `python FILE` gets from PYTHONPATH
        _load_exit_probe()
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    code = 0
    try:
        with open(script, "rb") as handle:
            source = handle.read()
        exec(compile(source, script, "exec"), main.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException as exc:  # noqa: BLE001 - reported exactly as python would
        tb = exc.__traceback__.tb_next if exc.__traceback__ else None
        traceback.print_exception(type(exc), exc, tb)
        code = 1
    try:
        _threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


# --------------------------------------------------------------------------- client side

class ForkServer:
    """Starts the warm server on first use and runs scripts in forked children."""

    def __init__(self, env: dict[str, str], preload: bool = True):
        self.env, self.preload = env, preload
        self._proc: subprocess.Popen | None = None
        self._dir = None
        self._lock = threading.Lock()

    def _ensure_started(self) -> str:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return self._socket
            self._dir = tempfile.mkdtemp(prefix="dpguide-fork-")
            self._socket = os.path.join(self._dir, "s")
            src = str(Path(__file__).resolve().parents[1])
            env = dict(self.env)
            env["PYTHONPATH"] = src
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "dpguide.forkserver", self._socket] + ([] if self.preload else ["--bare"]),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, cwd=self._dir)
            ready = self._proc.stdout.readline()
            if ready.strip() != b"ready":
                raise RuntimeError("the warm fork server did not start")
            return self._socket

    def start(self, argv: list[str], cwd: str, env: dict[str, str], out_fd: int, err_fd: int, framed_fd: int):
        """Fork a child for ``argv``; returns (pid, connection) where the exit status will arrive."""
        path = self._ensure_started()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        message = json.dumps({"argv": argv, "cwd": cwd, "env": env}).encode()
        conn.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [out_fd, err_fd, framed_fd]))])
        reader = conn.makefile("rb")
        reply = json.loads(reader.readline())
        return reply["pid"], reader, conn

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            self._proc = None


if __name__ == "__main__":
    serve(sys.argv[1], preload="--bare" not in sys.argv[2:])
