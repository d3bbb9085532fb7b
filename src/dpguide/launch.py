"""Launching one block: plain python (a fork of the warm server, or a fresh interpreter) or torchrun.

Every attempt runs in a scratch directory of its own (unique per attempt, so
two builds on one machine, or two attempts of one block, never share a file),
removed when it ends, with a clean environment, its own session and two
markers (this job, this build), under a timeout that ends the whole process
tree. Whatever a block leaves running when its main process exits is ended
and counted. torchrun jobs write each rank's output to its own files
(``--redirects 3 --log-dir``), tailed as they grow. Every process loads the
exit probe (``exit_probe/sitecustomize.py``), which notes the gloo threads it
leaves running. In what is shown, the scratch path is removed (a traceback names
``train.py``), the build's site-packages path reads ``<site-packages>`` and its virtual
environment ``<venv>``, so a page never carries the build machine's paths.
"""

from __future__ import annotations

import datetime
import json
import re
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from . import guardian, processes
from .environment import fingerprint
from .capture import FramedPipeReader, LineSink, PipeReader, RankLogTailer, rank_source
from .options import BlockOptions
from .results import FORKED_PYTHON, FORKED_TORCHRUN, LAUNCHER, MAIN, RunResult

#: the folder put on every block's PYTHONPATH: it holds only the exit probe's sitecustomize.py
EXIT_PROBE = Path(__file__).resolve().parent / "exit_probe"

#: set to 1 in the build's environment to start torchrun's agent and ranks as fresh interpreters
#: (the engine's path before version 5; the benchmark times both)
FRESH_RANKS = "DPGUIDE_FRESH_RANKS"

#: the build's own install paths, as shown output names them (a reader's differ)
SITE_PACKAGES = {path: "<site-packages>" for path in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}}

#: the interpreter's own library (a traceback through multiprocessing names it), wherever Python is installed
STDLIB = {sysconfig.get_paths()["stdlib"] + "/": "<stdlib>/"}

#: every machine path shown output may carry: site-packages, the interpreter's library, and the build's
#: virtual environment (torchrun names it: "of binary: <venv>/bin/python"); outside a venv, sys.prefix
#: is /usr: kept. Rewritten longest first, so site-packages inside the library stays <site-packages>.
MACHINE_PATHS = {**SITE_PACKAGES, **STDLIB,
                 **({sys.prefix + "/": "<venv>/"} if sys.prefix != sys.base_prefix else {})}


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
    """Lay out the job's files in a new directory of this attempt's own; return it.

    The directory is ``<scratch_root>/<key>-p<build pid>-<random>/files``: never reused, never
    shared with another build or attempt. Its parent also holds the attempt's logs. The build's
    guardian removes any such directory the build could not remove itself.
    """
    workdir = guardian.new_scratch_dir(scratch_root, job.key[:12]) / "files"
    workdir.mkdir()
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
    return argv + list(options.args)


#: words of a program that may create a process group or start processes of its own
_GROUP_OR_PROCESSES = re.compile(rb"torch\.distributed|init_process_group|init_device_mesh|multiprocessing|spawn")


def constructs_ddp(files: dict[str, bytes]) -> bool:
    """Whether a block's code names ``DistributedDataParallel``: such a program imports
    ``torch._dynamo`` itself when it first constructs one (see ``forks_with_dynamo``)."""
    return any(b"DistributedDataParallel" in code for code in files.values())


def forks_with_dynamo(files: dict[str, bytes], launch: str) -> bool:
    """Whether a block may fork from the server that has imported ``torch._dynamo`` too
    (``forkserver.DDP_PRELOAD``): a second or more saved per process here. Two kinds: a program that
    constructs ``DistributedDataParallel`` (its first construction imports it), and a single process
    that neither touches ``torch.distributed`` nor starts processes, where no process group exists
    whose messages the import could change; many of those import it anyway (an optimizer's
    ``__init__``, the first operation on a meta tensor). Any other block must not find it imported:
    it changes what some programs with a process group print."""
    if constructs_ddp(files):
        return True
    return launch == "python" and not _GROUP_OR_PROCESSES.search(b"\n".join(files.values()))


#: an import of one of torch.distributed's sharding packages (see ``forkserver.SHARDING_PRELOAD``)
_SHARDING_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+torch\.distributed\.(?:fsdp|tensor|checkpoint|optim)\b"
    rb"|import[ \t]+torch\.distributed\.(?:fsdp|tensor|checkpoint|optim)\b"
    rb"|from[ \t]+torch\.distributed[ \t]+import[ \t(]+[^\n]*\b(?:fsdp|tensor|checkpoint|optim)\b)",
    re.MULTILINE)


def imports_sharding(files: dict[str, bytes]) -> bool:
    """Whether a block's code imports FSDP, DTensor, distributed checkpointing or
    ``torch.distributed.optim``: such a block may fork from the server that has imported them
    (``forkserver.SHARDING_PRELOAD``), which saves each of its processes half a second to a second."""
    return any(_SHARDING_IMPORT.search(code) for code in files.values())


def server_kind(files: dict[str, bytes], launch: str) -> str:
    """Which warm server (``forkserver.SERVER_KINDS``) a forked block's processes come from."""
    if imports_sharding(files):
        return "sharding"
    return "ddp" if forks_with_dynamo(files, launch) else "warm"


def forks(options: BlockOptions) -> bool:
    """Whether a block's processes are forked from the warm server (when the build has one)."""
    return not options.fresh and (options.launch == "python" or os.environ.get(FRESH_RANKS) != "1")


def run_job(job: Job, scratch_root: Path, env: dict[str, str], forkserver, live: LiveJobs) -> RunResult:
    """Run a job to its end (or timeout) and return everything it printed (and nothing else)."""
    options = job.options
    forked = options.launch == "python" and forks(options) and forkserver is not None
    forked_ranks = options.launch == "torchrun" and forks(options) and forkserver is not None
    if forked or forked_ranks:
        socket_path = forkserver.ensure_started()  # its start is the build's cost, not the block's
    workdir = prepare_scratch(job, scratch_root)
    try:
        script = workdir / job.script
        token = uuid.uuid4().hex
        log_root = workdir.parent / "logs"
        notes_dir = log_root / "exit-notes"
        notes_dir.mkdir(parents=True)
        env = {**env, **job.extra_env, **guardian.marker_env(), processes.MARKER: token,
               "PYTHONPATH": str(EXIT_PROBE), "DPGUIDE_EXIT_PROBE": str(notes_dir)}
        if forked_ranks:  # each worker torchrun starts hands its rank to a fork of the warm server
            env["DPGUIDE_FORK_WORKER"] = socket_path
        # any other torchrun worker under the block (a fresh="true" block's, or one of a torchrun that
        # a python block starts itself) runs its script as a forked rank does, and ends the same way
        env["DPGUIDE_FRESH_END"] = "1"
        sink = LineSink()
        reader_command = options.reader_command(script.name)
        start = time.monotonic()
        ran_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        if forked:
            command = ["python", script.name, *options.args, FORKED_PYTHON]
            outcome = _run_forked(script, options.args, env, sink, forkserver, token, live, options.timeout)
        else:
            outcome = _run_subprocesses(options, script, log_root, env, sink, token, live,
                                        forkserver if forked_ranks else None)
            command = outcome[4]
            if forked_ranks:
                command = [*command, FORKED_TORCHRUN]
        duration = time.monotonic() - start
        exit_notes = read_exit_notes(notes_dir)
        ranks_left = read_background_notes(notes_dir)
        if options.launch == "torchrun" and options.nnodes > 1:
            sink.relabel(global_rank_labels(notes_dir, log_root, options))
    finally:
        shutil.rmtree(workdir.parent, ignore_errors=True)
    returncode, ended, stuck, background = outcome[:4]
    background += ranks_left
    # torchrun's logs live where the engine's --log-dir put them; a reader's torchrun picks a temporary
    # folder of its own, so shown output names it <log-dir>
    log_dirs = {str(log_root / f"node{node}"): "<log-dir>" for node in range(options.nnodes or 1)}
    lines = sink.finished_lines(rewrite_paths={str(script.parent) + "/": "", str(workdir): ".",
                                               **log_dirs, **MACHINE_PATHS})
    return RunResult(command=command, reader_command=reader_command, launch=options.launch,
                     returncode=returncode, duration=duration, lines=lines,
                     ended=ended, stuck_ranks=stuck, dropped_bytes=sink.dropped_bytes,
                     exit_notes=exit_notes, background_ended=background, ran_at=ran_at, ran_on=fingerprint())


def global_rank_labels(notes_dir: Path, log_root: Path, options: BlockOptions) -> dict[str, str]:
    """For a multi-node job: each worker's label by local rank (``node 1 rank 0``) -> by global rank
    (``rank 2 · node 1, local 0``), from the start notes the workers wrote (the node is the rank the
    rendezvous gave the agent, which need not be the order the engine started the agents in)."""
    labels = {}
    for path in notes_dir.glob("start-*.json"):
        try:
            note = json.loads(path.read_text())
            error_file = Path(note["torchelastic_error_file"])
            rank, local, group = int(note["rank"]), int(note["local_rank"]), int(note["group_rank"])
            attempt = int(note.get("torchelastic_restart_count") or 0)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for agent in range(options.nnodes):
            if error_file.is_relative_to(log_root / f"node{agent}"):
                old = rank_source(agent, options.nnodes, options.nproc or 1, local, attempt)
                new = f"rank {rank} · node {group}, local {local}"
                labels[old] = new if attempt == 0 else f"{new} (restart {attempt})"
    return labels


def read_exit_notes(folder: Path) -> list[dict]:
    """What the exit probe wrote for each process that reached the interpreter's exit (see
    exit_probe/sitecustomize.py); a process killed by a signal writes none."""
    notes = []
    for path in sorted(folder.glob("exit-*.json")):
        try:
            note = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # a rank killed while writing: its exit is reported by its status instead
        if isinstance(note, dict) and isinstance(note.get("rank"), int):
            notes.append({"rank": note["rank"], "attempt": int(note.get("attempt", 0)),
                          "gloo_threads": [str(n) for n in note.get("gloo_threads", [])],
                          "group_alive": note.get("group_alive") is True,
                          "teardown": note.get("teardown") is not False})
    return sorted(notes, key=lambda n: (n["attempt"], n["rank"]))


def read_background_notes(folder: Path) -> int:
    """How many processes forked ranks left running (their job leaders ended them; see dpguide_handover)."""
    count = 0
    for path in folder.glob("background-*.json"):
        try:
            count += int(json.loads(path.read_text())["background"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return count


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


class ForkedProcess:
    """A process forked by the warm server, with the part of ``Popen``'s interface the engine uses.

    Its stdout and stderr are pipes to the engine, plus one framed pipe for Python-level writes
    (their order across the two streams is exact). ``module`` runs ``python -m module argv...``.
    """

    def __init__(self, forkserver, argv: list[str], cwd: str, env: dict[str, str], sink: LineSink,
                 source: str, module: str | None = None):
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        framed_r, framed_w = os.pipe()
        self.readers = [PipeReader(out_r, sink, source, "stdout"), PipeReader(err_r, sink, source, "stderr"),
                        FramedPipeReader(framed_r, sink, source)]
        for reader in self.readers:
            reader.start()
        try:
            self.pid, status_reader, self._conn = forkserver.start(argv, cwd, env, out_w, err_w, framed_w,
                                                                   module=module)
        finally:
            for fd in (out_w, err_w, framed_w):
                os.close(fd)
        self.status: dict = {}
        self._waiter = threading.Thread(target=lambda: self.status.update(_read_status(status_reader)),
                                        daemon=True)
        self._waiter.start()

    @property
    def returncode(self):
        """The exit status; None while running; -SIGKILL when its job leader was killed (no status)."""
        return None if self._waiter.is_alive() else self.status.get("status", -9)

    def poll(self):
        return self.returncode

    def finished(self) -> bool:
        return not self._waiter.is_alive()

    def wait(self) -> None:
        self._waiter.join(10)
        for reader in self.readers:
            reader.join(10)
        self._conn.close()


def _run_forked(script: Path, args, env, sink, forkserver, token, live, timeout):
    proc = ForkedProcess(forkserver, [script.name, *args], str(script.parent), env, sink, MAIN)
    live.add(token, [proc.pid])
    ended = _wait(proc.finished, sink, timeout, live)
    background = 0
    if ended != "exited":
        processes.kill_job(token, [proc.pid])
    else:
        # the leader has ended what the block left behind; a process that cleared its environment
        # and escaped the leader is still found by the job marker
        background = proc.status.get("background", 0) + processes.kill_job(token, [])
    proc.wait()
    live.remove(token)
    return proc.status.get("status"), ended, [], background


def _read_status(reader) -> dict:
    line = reader.readline()
    return json.loads(line) if line else {}


def _run_subprocesses(options: BlockOptions, script: Path, log_root: Path, env, sink, token, live,
                      forkserver=None):
    """Run a python block in a fresh interpreter, or a torchrun block (its agents forked from the warm
    server when one is given, else started as fresh interpreters)."""
    if options.launch == "python":
        commands = [[sys.executable, script.name, *options.args]]
        log_dirs = []
    else:
        port = free_port() if options.nnodes > 1 else 0
        log_dirs = [log_root / f"node{node}" for node in range(options.nnodes)]
        commands = [torchrun_argv(options, script.name, log_dirs[node], node, port)
                    for node in range(options.nnodes)]
    source = MAIN if options.launch == "python" else LAUNCHER
    procs, readers = [], []
    for argv in commands:
        if forkserver is not None:  # torchrun's agent itself, forked: python -m torch.distributed.run ...
            proc = ForkedProcess(forkserver, argv[3:], str(script.parent), env, sink, source,
                                 module="torch.distributed.run")
            procs.append(proc)
            live.add(token, [proc.pid])
            continue
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
    background = 0
    if ended != "exited":
        if ended == "timeout":
            stuck = sorted({r for p in processes.job_processes(token, [q.pid for q in procs])
                            if (r := processes.rank_of(p)) is not None})
        processes.kill_job(token, [p.pid for p in procs])
    else:
        background = processes.kill_job(token, [])  # anything the block left running in the background
    for proc in procs:
        proc.wait()
    background += sum(p.status.get("background", 0) for p in procs if isinstance(p, ForkedProcess))
    for reader in readers:
        reader.join(10)
    if tailer:
        tailer.stop()
    live.remove(token)
    codes = [p.returncode for p in procs]
    returncode = next((c for c in codes if c != 0), 0)
    shown = [_display_argv(argv) for argv in commands]
    return returncode, ended, stuck, background, shown[0] if len(shown) == 1 else [" ".join(c) for c in shown]


def _display_argv(argv: list[str]) -> list[str]:
    if argv[:3] == [sys.executable, "-m", "torch.distributed.run"]:
        return ["torchrun", *argv[3:]]
    if argv[0] == sys.executable:
        return ["python", *argv[1:]]
    return argv
