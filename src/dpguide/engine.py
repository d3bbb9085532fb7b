"""The engine: collect every block, run what the cache does not hold (in parallel), check outcomes.

This is what the MkDocs hooks, the pytest plugin and the command line share.
Nothing here imports torch: a fully cached build starts no process at all.
"""

from __future__ import annotations

import atexit
import concurrent.futures as futures
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .blocks import Block, collect_site
from .capture import HARD_LIMIT, STORE_LIMIT
from .cache import RunCache
from .environment import block_environment, fingerprint
from .errors import BlockFailed, BuildInterrupted, GuideError
from .forkserver import SERVER_KINDS, ForkServer
from .launch import Job, LiveJobs, forks, run_job, server_kind
from .progress import BuildProgress
from .results import RunResult

#: one fork server per kind and build process (kept across `mkdocs serve` rebuilds): "bare" imports
#: nothing (for one or two blocks); the others are warm, each with what ``SERVER_KINDS`` names
_SERVERS: dict[str, ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def shared_forkserver(env: dict[str, str], kind: str = "warm") -> ForkServer:
    """The build process's fork server of ``kind`` ("bare" or a key of ``SERVER_KINDS``), started on
    first use; one made for another environment is closed and replaced."""
    with _SERVERS_LOCK:
        current = _SERVERS.get(kind)
        if current is None or current.env != env:
            if current is not None:
                current.close()
            current = ForkServer(env, preload=kind != "bare", also=SERVER_KINDS.get(kind, ()))
            atexit.register(current.close)
            _SERVERS[kind] = current
        return current


def _worth_warming(kind: str, blocks: list[Block]) -> bool:
    """Whether the warm server of ``kind`` pays for its start (a torch import, about a second here)
    on these blocks: from three processes on, or at no cost if it is running already."""
    return sum(map(_ranks, blocks)) >= 3 or _running(kind)


def _running(kind: str) -> bool:
    return kind in _SERVERS and _SERVERS[kind].running


@dataclass
class BlockStat:
    label: str
    launch: str
    ranks: int
    seconds: float
    source: str   # cached | run | skipped | gpu-record
    status: str


class WeightedSlots:
    """A semaphore where a job takes ``weight`` slots (at most all of them); see ``_weight``.

    Whichever waiting job fits takes what is free, so a job that needs several slots may wait while
    one-slot jobs go first. Strict turns (the build's order, longest first) kept slots idle behind a
    job that needs more than are free: measured on 2 cores, two cold builds each way, they made the
    cold build about 15 s longer and did not shorten the torchrun blocks' summed time."""

    def __init__(self, capacity: int):
        self.capacity, self.free = capacity, capacity
        self._cond = threading.Condition()

    def acquire(self, weight: int) -> int:
        weight = max(1, min(weight, self.capacity))
        with self._cond:
            self._cond.wait_for(lambda: self.free >= weight)
            self.free -= weight
        return weight

    def release(self, weight: int) -> None:
        with self._cond:
            self.free += weight
            self._cond.notify_all()


class Engine:
    def __init__(self, root: Path, docs_dir: Path | None = None, cache_dir: Path | None = None,
                 scratch_root: Path | None = None, slots: int | None = None, log=print):
        self.root = Path(root)
        self.docs_dir = Path(docs_dir) if docs_dir else self.root / "docs"
        self.cache = RunCache(Path(cache_dir) if cache_dir else self.root / ".cache" / "dpguide", report=log)
        self.scratch_root = Path(scratch_root) if scratch_root else Path(tempfile.gettempdir()) / "dpguide-run"
        self.slots = slots or int(os.environ.get("DPGUIDE_JOBS", 0)) or SLOTS_PER_CORE * (os.cpu_count() or 1)
        self.log = log
        #: progress display: True a bar, False plain lines, None a bar when stderr is a terminal
        self.progress_tty: bool | None = False
        self.environment = fingerprint()
        self.block_env = block_environment()
        self.live = LiveJobs()
        self.results: dict[str, RunResult] = {}
        self.failures: dict[str, str] = {}   # key -> why the block failed, for this build
        #: key -> the run of a block that did not do what its page says (kept for release records)
        self.failed_results: dict[str, RunResult] = {}
        self.questions: list = []
        self.retried: list[str] = []
        self.decks: list = []
        self.stats: list[BlockStat] = []

    # ------------------------------------------------------------------ collecting
    def collect(self, pages: dict[str, str] | None = None) -> list[Block]:
        blocks, errors, self.questions, self.decks = collect_site(self.docs_dir, self.environment, pages)
        if errors:
            raise GuideError("\n".join(str(e) for e in errors))
        return blocks

    # ------------------------------------------------------------------ running
    def run(self, blocks: list[Block]) -> None:
        """Run every block the cache does not hold; raise BlockFailed listing every failure."""
        self.stats = []
        todo: dict[str, Block] = {}
        hits = 0
        for block in blocks:
            if not block.options.runs_on_cpu_build:
                source = "skipped" if block.options.skip else "gpu-record"
                self.stats.append(BlockStat(block.label, block.options.launch, _ranks(block), 0.0, source, "-"))
                continue
            if block.key in self.results or block.key in todo:
                continue
            cached = self.cache.load(block.key)
            if cached is not None and self._still_passes(block, cached):
                hits += 1
                self.results[block.key] = cached
                self.stats.append(BlockStat(block.label, block.options.launch, _ranks(block),
                                            cached.duration, "cached", "ok"))
            else:
                todo[block.key] = block
        if todo:
            self._run_parallel(list(todo.values()), cached=hits)
        else:
            self.log(f"[dpguide] nothing to run: {hits} block(s) taken from the cache")

    def _still_passes(self, block: Block, cached: RunResult) -> bool:
        """A cache entry is used only if it passes today's outcome checks; otherwise the block runs again."""
        try:
            check_outcome(block, cached)
            return True
        except BlockFailed as exc:
            self.log(f"[dpguide] cached result of {block.label} no longer passes its checks "
                     f"({exc.reason.splitlines()[0]}); running it again")
            return False

    def _run_parallel(self, blocks: list[Block], cached: int) -> None:
        timings = self.cache.timings()
        # longest first: known timings, else a guess from the code (a cold build)
        blocks.sort(key=lambda b: -timings.get(b.identity, guessed_seconds(b)))
        slots = WeightedSlots(self.slots)
        server_of = self._fork_servers(blocks)
        failures: list[str] = []
        retried: list[str] = []
        kept = 0
        started = time.monotonic()
        lock = threading.Lock()
        progress = BuildProgress(len(blocks), cached, self.log, tty=self.progress_tty)

        def work(block: Block) -> None:
            nonlocal kept
            weight = slots.acquire(_weight(block))
            try:
                if self.live.stopping.is_set():
                    return
                progress.block_started()
                job = Job(block.key, block.label, block.files, block.script, block.options)
                server = server_of(block)
                result = run_job(job, self.scratch_root, self.block_env, server, self.live)
                flake = _known_flake(result)
                report = _retry_report(block, result) if flake else None
                if report is not None and not self.live.stopping.is_set():
                    # a known flake of torch on this machine (the Contribute page names its causes); one
                    # retry, said loudly, with the first try's report; a second failure fails the block
                    progress.say(f"[dpguide] RETRY {block.label}: {flake}; running it once more. The first try's "
                                 f"report:\n{_indent(report, '    ')}")
                    retried.append(block.label)
                    result = run_job(job, self.scratch_root, self.block_env, server, self.live)
            finally:
                slots.release(weight)
            if result.ended == "interrupted":
                return
            if result.background_ended:
                progress.say(f"[dpguide] {block.label}: its main process exited leaving "
                             f"{result.background_ended} process(es) running; the engine ended them")
            try:
                check_outcome(block, result)
                self.cache.store(block.key, result)
                self.results[block.key] = result
                with lock:
                    kept += 1
                status = "ok" if result.succeeded else "failed as expected"
                if block.label in retried:
                    status += " (retried)"
            except BlockFailed as exc:
                failures.append(str(exc))
                self.failures[block.key] = str(exc)
                self.failed_results[block.key] = result
                status = "FAILED"
            with lock:
                timings[block.identity] = round(result.duration, 2)
                self.stats.append(BlockStat(block.label, block.options.launch, _ranks(block),
                                            result.duration, "run", status))
            progress.block_finished(block.label, result.duration, status)

        pool = futures.ThreadPoolExecutor(max_workers=len(blocks))
        pending = {pool.submit(work, block) for block in blocks}
        try:
            while pending:
                finished, pending = futures.wait(pending, timeout=0.2)
                for future in finished:
                    future.result()
        except BaseException:
            progress.close()
            killed = self.live.kill_all()
            pool.shutdown(wait=True, cancel_futures=True)
            self.cache.save_timings(timings)
            raise BuildInterrupted(f"build interrupted: ended {killed} running process(es); "
                                   f"{kept} block(s) that finished and passed in this build kept in the cache")
        pool.shutdown(wait=True)
        progress.close()
        self.cache.save_timings(timings)
        self._log_run(len(blocks), time.monotonic() - started, cached, retried)
        self.retried = retried
        if failures:
            raise BlockFailed(f"{len(failures)} block(s) failed", "\n\n".join(failures))

    def _fork_servers(self, blocks: list[Block]):
        """Which fork server each block forks from (None: it starts its own interpreter).

        The warm server costs one torch import (about a second here): worth it from a few processes
        on (a torchrun block's ranks fork from it too); one or two python blocks (an edited snippet)
        fork from a bare server, importing what they need. Blocks that construct DDP, single processes
        with no process group, and blocks that import a sharding package fork from a server that has
        imported what they import too (``server_kind``), when they have enough processes between them
        to pay for its start; others from the warm one.
        """
        forkable = [b for b in blocks if forks(b.options)]
        warm = _worth_warming("warm", forkable)
        forkserver = shared_forkserver(self.block_env, "warm" if warm else "bare") if forkable else None
        kinds = {b.key: server_kind(b.files, b.options.launch) for b in forkable}
        servers = {kind: shared_forkserver(self.block_env, kind) for kind in set(kinds.values()) - {"warm"}
                   if warm and _worth_warming(kind, [b for b in forkable if kinds[b.key] == kind])}
        return lambda block: servers.get(kinds.get(block.key), forkserver)

    def _log_run(self, count: int, seconds: float, cached: int, retried: list[str]) -> None:
        slowest = sorted((s for s in self.stats if s.source == "run"), key=lambda s: -s.seconds)[:3]
        self.log(f"[dpguide] ran {count} block(s) in {seconds:.1f}s, {cached} cached; "
                 "slowest: " + ", ".join(f"{s.label} {s.seconds:.1f}s" for s in slowest))
        if retried:
            self.log(f"[dpguide] {len(retried)} block(s) ran twice after a known flake of torch "
                     "(an exit abort, or gloo failing to connect its ranks): " + ", ".join(retried))

    def result_for(self, block: Block) -> RunResult | None:
        return self.results.get(block.key)

    def abort(self) -> int:
        return self.live.kill_all()

    def summary_table(self) -> str:
        rows = [("block", "mode", "ranks", "seconds", "source", "status")]
        rows += [(s.label, s.launch, str(s.ranks), f"{s.seconds:.2f}", s.source, s.status) for s in self.stats]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows)


def _ranks(block: Block) -> int:
    return (block.options.nproc or 1) * block.options.nnodes if block.options.launch == "torchrun" else 1


#: ``time.sleep(10)``: seconds a program waits on purpose
_SLEEP = re.compile(rb"\bsleep\(\s*(\d+(?:\.\d+)?)\s*\)")
#: a fresh interpreter the program starts itself (which imports torch again: seconds here)
_FRESH_INTERPRETER = re.compile(rb"sys\.executable|\bspawn\(|get_context\(\s*[\'\"]spawn|torch\.distributed\.run")


def guessed_seconds(block: Block) -> float:
    """A guess of a block's run time when the cache has none, for the order of a cold build only
    (longest first, so a long block does not start last and hold the build up alone): a torchrun job
    more than a single process, plus the seconds the code sleeps and a few for each interpreter it
    starts itself, at most the block's timeout."""
    code = b"\n".join(block.files.values())
    guess = 6.0 * _ranks(block) if block.options.launch == "torchrun" else 1.0
    guess += sum(float(seconds) for seconds in _SLEEP.findall(code))
    guess += 3.0 * len(_FRESH_INTERPRETER.findall(code))
    return min(guess, block.options.timeout)


#: slots per CPU core (``DPGUIDE_JOBS`` sets the total instead). Most blocks spend their run
#: waiting: on a timeout they demonstrate, on a ``sleep`` in their lesson, on a rendezvous, on a
#: peer in a collective (gloo polls while it waits, so the cores look busy). The cold build with
#: one slot per core against two: ``benchmarks/slots_per_core.sh`` (its output is on the Contribute
#: page). The test suite built the site with two per core (DPGUIDE_JOBS=4) for many sessions before
#: that became the default. ``_weight`` says how many slots a block takes.
SLOTS_PER_CORE = 2


def _weight(block: Block) -> int:
    """The slots a block holds while it runs: one per process, so one per rank for torchrun.

    Two ranks once shared a slot, on the grounds that they mostly wait. Measured on 2 cores, three
    cold builds each way (figures in the commit that made this change), a slot per rank kept the
    cold build within the spread of the old way's and cut the torchrun blocks' summed time by about
    two fifths: ranks that compute at once on too few cores only slow each other, and each block's
    own time (which its page shows) then says more about its neighbours than about the program.
    """
    return _ranks(block) if block.options.launch == "torchrun" else 1


def _known_flake(result: RunResult) -> str | None:
    """Why a failed run is worth one more try, or None: only the two failures of torch itself that
    this machine shows now and then, whatever the program does (the Contribute page lists both)."""
    aborted = result.exit_abort_ranks()
    if aborted:
        return (f"{', '.join(aborted)} aborted at exit ('terminate called without an active exception', "
                "SIGABRT) after its output")
    unconnected = result.connect_flake_sources()
    if unconnected:
        return (f"{', '.join(unconnected)} could not connect to its peers while creating the process "
                "group ('Gloo connectFullMesh failed'), and no process raised anything else")
    return None


def _first_failure(result: RunResult) -> str:
    """The failing process's own last error lines, for a report (empty when nothing failed)."""
    found = result.first_failure_output()
    cause = result.root_cause()
    others = _other_failed_ranks(result, cause["rank"] if cause else None)
    if found is None:
        return others
    who, lines = found
    if not lines:
        report = f"\n  {who} printed nothing on stderr"
    else:
        report = f"\n  {who}'s own last stderr lines:\n" + _indent("\n".join(lines), "    ")
    return report + others


def _other_failed_ranks(result: RunResult, shown: int | None) -> str:
    """How every other rank torchrun lists as failed ended, and its own last error lines: the rank
    that failed first in torchrun's eyes is not always the one that broke the run (a rank killed by a
    signal writes no error file, so a peer that raised a second later is named the root cause)."""
    report = ""
    for failed in result.failed_ranks():
        if failed["rank"] == shown:
            continue
        who = f"rank {failed['rank']}"
        how = f"exit code {failed['exitcode']}" + (f" ({failed['signal']})" if failed["signal"] else "")
        own = result.last_lines_of(result.last_attempt_of(failed["rank"]), 6, stream="stderr")
        report += (f"\n  {who} also failed, {how}; its own last stderr lines:\n" + _indent("\n".join(own), "    ")
                   if own else f"\n  {who} also failed, {how}, and printed nothing on stderr")
    return report


def check_outcome(block: Block, result: RunResult) -> None:
    """Raise BlockFailed unless the run did what the page says it does."""
    where = block.label
    details = (f"  command: {result.reader_command}\n  how it ended: {result.failure_summary()}\n"
               f"  last output:\n" + _indent(result.tail(), "    ") + _first_failure(result))
    if result.ended == "timeout":
        limit = f"timed out after {block.options.timeout:g} s (the block's timeout) and was killed"
        if result.launch == "python":
            raise BlockFailed(where, limit, details + "\n  fix: find what the program waits for (a loop that "
                              "never ends, input(), a lock, a child it waits on), or raise timeout=\"...\" "
                              "if the block is just slow")
        stuck = result.stuck_ranks
        last = "".join(f"\n    rank {r}: " + " | ".join(result.last_lines_of(f"rank {r}") or ["(nothing)"])
                       for r in stuck)
        raise BlockFailed(where, f"{limit}; ranks still running: {', '.join(map(str, stuck)) or 'none identified'} "
                          "(a collective one rank never reached?)" + (f"\n  their last output:{last}" if stuck else ""),
                          details + "\n  fix: make every rank call the same collectives in the same order, "
                          "or raise timeout=\"...\" if the block is just slow")
    if result.ended == "output-limit":
        raise BlockFailed(where, f"printed more than {HARD_LIMIT // (1024 * 1024)} MiB, the engine's hard output "
                          "limit, and was stopped (a page keeps at most the first and the last "
                          f"{STORE_LIMIT // 2 // 1024} KiB of a block's output)", details +
                          "\n  fix: print less (a summary, every Nth step), or write bulk output to a file")
    if block.options.outcome_any:
        return
    if block.options.expect_fail:
        if result.succeeded:
            raise BlockFailed(where, "marked expect=\"fail\" but it succeeded (exit status 0)",
                              details + "\n  fix: remove expect=\"fail\" or make the example fail as the page says")
        if block.options.raises:
            kinds = [kind for _, kind, _ in result.exceptions()]
            wanted = block.options.raises
            if not any(kind == wanted or kind.rsplit(".", 1)[-1] == wanted for kind in kinds):
                raise BlockFailed(where, f"expected to raise {wanted} but raised "
                                  f"{', '.join(kinds) or 'no exception'}", details)
        return
    if not result.succeeded:
        fix = "correct the code, or mark the block expect=\"fail\" if the failure is the lesson"
        port = hard_coded_port(block)
        if port and _ADDRESS_IN_USE.search(result.text()):
            fix = (f"the block hard-codes a port ({port}) and failed with 'address already in use': the build "
                   "runs blocks (and other builds) at the same time on this machine, so another one may hold "
                   "that port. Let torchrun choose one (--standalone), or pick a free port at run time")
        raise BlockFailed(where, "block failed: " + result.failure_summary(), details + "\n  fix: " + fix)
    lingering = result.processes_leaving_gloo_threads()
    if lingering and not block.options.threads_at_exit:
        ranks = _who(lingering, threads=True)
        never_destroyed = _who([n for n in lingering if n.get("group_alive")])
        why = ("it never called dist.destroy_process_group() (" + never_destroyed + "), so the group "
               "and its threads live until the interpreter tears down" if never_destroyed else
               "something still holds the process group, so dist.destroy_process_group() could not join "
               "its threads")
        raise BlockFailed(where, "reached interpreter exit with a process group's gloo worker threads "
                          f"still running: {ranks}: {why}. These processes go through Python's teardown (the "
                          "build ends its own processes before it, but not those a block starts itself, "
                          "nor a fresh=\"true\" python block), and such a script aborts now and then there "
                          "(SIGABRT after 'terminate called without an active exception') although its output "
                          "is right", details + "\n  fix: call dist.destroy_process_group() at the end, after "
                          "`del` of every DDP/FSDP model (each holds the group), and import torch.distributed.nn "
                          "before init_process_group(): that module evaluates `group=group.WORLD` as a default "
                          "argument of ten functions when it is first imported, and DDP imports it (through "
                          "torch._dynamo) after init, so those defaults would hold the live group for good. "
                          "See Learn > Debugging > Ending a script cleanly")


def _who(notes: list[dict], threads: bool = False) -> str:
    """The processes of exit notes, for a message: ``rank 0 (2 threads)``, or ``2 processes (2 threads
    each)`` for processes that are not torchrun ranks (the children of mp.spawn, say)."""
    def count(group: list[dict]) -> str:
        sizes = sorted({len(n["gloo_threads"]) for n in group})
        each = " each" if len(group) > 1 and len(sizes) == 1 else ""
        return f" ({', '.join(map(str, sizes))} threads{each})" if threads else ""

    parts = [f"rank {n['rank']}{count([n])}" for n in sorted(notes, key=lambda n: n["rank"]) if n["rank"] >= 0]
    others = [n for n in notes if n["rank"] < 0]
    if others:
        parts.append(("the process" if len(others) == 1 else f"{len(others)} processes") + count(others))
    return ", ".join(parts)


_ADDRESS_IN_USE = re.compile(r"EADDRINUSE|address already in use", re.IGNORECASE)
_PORT_IN_CODE = re.compile(r"""MASTER_PORT["']?\s*\]?\s*[=:,]\s*["']?(\d{2,5})|tcp://[^"'\s]*:(\d{2,5})|--master[-_]port[= ](\d{2,5})""")


def hard_coded_port(block: Block) -> str | None:
    """The port number a block's own code fixes (MASTER_PORT = "29500", tcp://host:port), if any."""
    for data in block.files.values():
        match = _PORT_IN_CODE.search(data.decode("utf-8", errors="replace"))
        if match:
            return next(group for group in match.groups() if group)
    return None


def _retry_report(block: Block, result: RunResult) -> str | None:
    """For a run that may have hit a known flake: what to log with its retry, or None when it keeps
    its run. It runs again when it did not end the way its page says (logged: that report), or when
    any ending is accepted (a quiz's wrong bank item, whose page would show the flake as that item's
    real error; logged: its last lines). A block whose lesson is a failure and that failed as it
    says keeps its run."""
    report = _failure_report(block, result)
    if report:
        return report
    return result.tail() if block.options.outcome_any else None


def _needs_retry(block: Block, result: RunResult) -> bool:
    """Whether ``_retry_report`` would run the block again."""
    return _retry_report(block, result) is not None


def _failure_report(block: Block, result: RunResult) -> str:
    """What ``check_outcome`` says of a failed run (empty if the run passes)."""
    try:
        check_outcome(block, result)
    except BlockFailed as exc:
        return str(exc)
    return ""


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines()) or prefix + "(no output)"
