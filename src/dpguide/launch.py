"""Launching one block: plain python (a fork of the warm server, or a fresh interpreter) or torchrun.

Every launch runs in its own scratch directory with a clean environment, its
own session and a job marker, under a timeout that ends the whole process
tree. torchrun jobs write each rank's output to its own files
(``--redirects 3 --log-dir``), tailed as they grow. Every process loads the exit
probe (``exit_probe/sitecustomize.py``), which notes the gloo threads it leaves running.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from . import processes
from .capture import FramedPipeReader, LineSink, PipeReader, RankLogTailer
from .options import BlockOptions
from .results import LAUNCHER, MAIN, RunResult

#: the folder put on every block's PYTHONPATH: it holds only the exit probe's sitecustomize.py
EXIT_PROBE = Path(__file__).resolve().parent / "exit_probe"


@dataclass
class Job:
    """One thing to run: files to lay out in a scratch directory, the script, how to launch it."""

    key: str
    label: str
    files: dict[str, bytes]
    script: str  # path of the script inside the scratch directory
    options: BlockOptions
    extra_env: dict[str, str] = field(default_factory=dict)


class LiveJobs:
    """The jobs running right now, so an interrupted build can end all of them."""

    def __init__(self):
        self._jobs: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    def add(self, token: str, pids: list[int]) -> None:
        with self._lock:
            self._jobs.setdefault(token, []).extend(pids)

    def remove(self, token: str) -> None:
        with self._lock:
            self._jobs.pop(token, None)

    def kill_all(self) -> int:
        self.stopping.set()
        with self._lock:
            jobs = dict(self._jobs)
        return sum(processes.kill_job(token, pids) for token, pids in jobs.items())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare_scratch(job: Job, scratch_root: Path) -> Path:
    """Lay out the job's files in a fresh directory named after its key."""
    workdir = scratch_root / job.key[:16]
    shutil.rmtree(workdir, ignore_errors=True)
    for relpath, data in job.files.items():
        target = workdir / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return workdir


def torchrun_argv(options: BlockOptions, script_name: str, log_dir: Path, node: int, port: int) -> list[str]:
    """The engine's torchrun command: the reader's, plus per-rank log files (and a port for nnodes>1)."""
    argv = [sys.executable, "-m", "torch.distributed.run"]
    if options.nnodes == 1:
        argv.append("--standalone")
    else:
        argv += [f"--nnodes={options.nnodes}", "--rdzv-backend=c10d",
                 f"--rdzv-endpoint=127.0.0.1:{port}", f"--rdzv-id=dpguide-{port}"]
    argv += [f"--nproc-per-node={options.nproc}", f"--log-dir={log_dir}", "--redirects=3"]
    if options.max_restarts:
        argv.append(f"--max-restarts={options.max_restarts}")
    argv.append(script_name)
    return argv


def run_job(job: Job, scratch_root: Path, env: dict[str, str], forkserver, live: LiveJobs) -> RunResult:
    """Run a job to its end (or timeout) and return everything it printed."""
    workdir = prepare_scratch(job, scratch_root)
    script = workdir / job.script
    token = uuid.uuid4().hex
    env = {**env, **job.extra_env, processes.MARKER: token}
    options = job.options
    sink = LineSink()
    start = time.monotonic()
    reader_command = options.reader_command(script.name)
    log_root = scratch_root / (job.key[:16] + "-logs")
    shutil.rmtree(log_root, ignore_errors=True)
    notes_dir = log_root / "exit-notes"
    notes_dir.mkdir(parents=True)
    env = {**env, "PYTHONPATH": str(EXIT_PROBE), "DPGUIDE_EXIT_PROBE": str(notes_dir)}
    if options.launch == "python" and not options.fresh and forkserver is not None:
        command = ["python", script.name, "(forked from the warm interpreter)"]
        result = _run_forked(script, env, sink, forkserver, token, live, options.timeout)
    else:
        result = _run_subprocesses(options, script, log_root, env, sink, token, live)
        command = result[3]
    exit_notes = read_exit_notes(notes_dir)
    returncode, ended, stuck = result[:3]
    return RunResult(command=command, reader_command=reader_command, launch=options.launch,
                     returncode=returncode, duration=time.monotonic() - start, lines=list(sink.lines),
                     ended=ended, stuck_ranks=stuck, dropped_bytes=sink.dropped_bytes,
                     exit_notes=exit_notes)


def read_exit_notes(folder: Path) -> list[dict]:
    """What the exit probe wrote for each rank that ended normally (see exit_probe/sitecustomize.py)."""
    notes = []
    for path in sorted(folder.glob("exit-*.json")):
        try:
            note = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # a rank killed while writing: its exit is reported by its status instead
        if isinstance(note, dict) and isinstance(note.get("rank"), int):
            notes.append({"rank": note["rank"], "attempt": int(note.get("attempt", 0)),
                          "gloo_threads": [str(n) for n in note.get("gloo_threads", [])]})
    return sorted(notes, key=lambda n: (n["attempt"], n["rank"]))


def _wait(is_done, sink: LineSink, timeout: float, live: LiveJobs, extra_limit=lambda: 0) -> str:
    deadline = time.monotonic() + timeout
    while not is_done():
        if live.stopping.is_set():
            return "interrupted"
        if time.monotonic() > deadline:
            return "timeout"
        if sink.over_hard_limit or extra_limit() > sink.hard_limit:
            return "output-limit"
        time.sleep(0.01)
    return "exited"


def _run_forked(script: Path, env, sink, forkserver, token, live, timeout):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    framed_r, framed_w = os.pipe()
    readers = [PipeReader(out_r, sink, MAIN, "stdout"), PipeReader(err_r, sink, MAIN, "stderr"),
               FramedPipeReader(framed_r, sink, MAIN)]
    for reader in readers:
        reader.start()
    try:
        pid, status_reader, conn = forkserver.start([script.name], str(script.parent), env,
                                                    out_w, err_w, framed_w)
    finally:
        for fd in (out_w, err_w, framed_w):
            os.close(fd)
    live.add(token, [pid])
    status: dict = {}
    waiter = threading.Thread(target=lambda: status.update(_read_status(status_reader)), daemon=True)
    waiter.start()
    ended = _wait(lambda: not waiter.is_alive(), sink, timeout, live)
    if ended != "exited":
        processes.kill_job(token, [pid])
        waiter.join(10)
    else:
        processes.kill_job(token, [])  # anything the block left running in the background
    for reader in readers:
        reader.join(10)
    conn.close()
    live.remove(token)
    return status.get("status"), ended, []


def _read_status(reader) -> dict:
    import json

    line = reader.readline()
    return json.loads(line) if line else {}


def _run_subprocesses(options: BlockOptions, script: Path, log_root: Path, env, sink, token, live):
    if options.launch == "python":
        commands = [[sys.executable, script.name]]
        log_dirs = []
    else:
        port = free_port() if options.nnodes > 1 else 0
        log_dirs = [log_root / f"node{node}" for node in range(options.nnodes)]
        commands = [torchrun_argv(options, script.name, log_dirs[node], node, port)
                    for node in range(options.nnodes)]
    source = MAIN if options.launch == "python" else LAUNCHER
    procs, readers = [], []
    for argv in commands:
        proc = subprocess.Popen(argv, cwd=script.parent, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        procs.append(proc)
        live.add(token, [proc.pid])
        for pipe, stream in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            reader = PipeReader(os.dup(pipe.fileno()), sink, source, stream)
            pipe.close()
            reader.start()
            readers.append(reader)
    tailer = RankLogTailer(log_dirs, sink, options.nproc or 1) if log_dirs else None
    if tailer:
        tailer.start()
    ended = _wait(lambda: all(p.poll() is not None for p in procs), sink, options.timeout, live,
                  extra_limit=(tailer.total_file_bytes if tailer else (lambda: 0)))
    stuck: list[int] = []
    if ended != "exited":
        if ended == "timeout":
            stuck = sorted({r for p in processes.job_processes(token, [q.pid for q in procs])
                            if (r := processes.rank_of(p)) is not None})
        processes.kill_job(token, [p.pid for p in procs])
    else:
        processes.kill_job(token, [])
    for proc in procs:
        proc.wait()
    for reader in readers:
        reader.join(10)
    if tailer:
        tailer.stop()
    live.remove(token)
    codes = [p.returncode for p in procs]
    returncode = next((c for c in codes if c != 0), 0)
    shown = [_display_argv(argv) for argv in commands]
    return returncode, ended, stuck, shown[0] if len(shown) == 1 else [" ".join(c) for c in shown]


def _display_argv(argv: list[str]) -> list[str]:
    if argv[:3] == [sys.executable, "-m", "torch.distributed.run"]:
        return ["torchrun", *argv[3:]]
    if argv[0] == sys.executable:
        return ["python", *argv[1:]]
    return argv
