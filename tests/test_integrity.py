"""Engine integrity under concurrent, hostile and killed builds: each fault is provoked for real.

Two builds of one block at once, a build killed with SIGKILL in the middle of a
torchrun block and of forked blocks, a block that daemonises a child, output
without newlines and output past the keep-limit, and the messages a contributor
reads when such things happen.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from conftest import ROOT, processes_of_build, wait_until
from dpguide.capture import GAP, HARD_LIMIT, STORE_LIMIT
from dpguide.errors import BlockFailed
from minisite import make_site, mkdocs_command

pytestmark = pytest.mark.usefixtures("clean_process_table")


def run_one(project, page: str, snippets: dict[str, str] = {}, expect_failure: bool = False):
    for name, code in snippets.items():
        project.snippet(name, code)
    project.page("p.md", page)
    engine = project.engine()
    blocks = engine.collect()
    if expect_failure:
        with pytest.raises(BlockFailed) as info:
            engine.run(blocks)
        return engine, blocks, str(info.value)
    engine.run(blocks)
    return engine, blocks, ""


# ---------------------------------------------------------------------------- 1. one folder per attempt

RUN_ONE_BLOCK = """
import json, sys
from pathlib import Path
from dpguide.engine import Engine
engine = Engine(Path(sys.argv[1]), cache_dir=Path(sys.argv[2]), log=lambda m: None)
[block] = engine.collect()
engine.run([block])
result = engine.result_for(block)
print(json.dumps({s: result.text(s) for s in result.sources()}))
"""


def test_two_builds_of_one_block_at_once_each_keep_only_what_their_own_ranks_printed(tmp_path):
    """Two engines (two checkouts, one machine, one TMPDIR) run the same torchrun block a moment apart."""
    site = make_site(tmp_path / "site", {"index.md": """
        ```python
        --8<-- "both.py"
        ```
    """}, {"both.py": """
        #| run: torchrun --standalone --nproc-per-node=2 both.py
        import os, time
        from pathlib import Path
        time.sleep(1.5)
        print("rank", os.environ["RANK"], "sees", sorted(p.name for p in Path(".").iterdir()))
    """})
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(shared_tmp), "PYTHONPATH": str(ROOT / "src")}
    procs = []
    for n in range(2):
        procs.append(subprocess.Popen([sys.executable, "-c", RUN_ONE_BLOCK, str(site), str(tmp_path / f"cache{n}")],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        time.sleep(0.7)
    outputs = [proc.communicate(timeout=120) for proc in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
        texts = json.loads(out.strip().splitlines()[-1])
        assert texts["rank 0"] == "rank 0 sees ['both.py']"
        assert texts["rank 1"] == "rank 1 sees ['both.py']"
        assert "can't open file" not in out
    assert not [p for p in (shared_tmp / "dpguide-run").glob("*") if p.is_dir()], "scratch folders left behind"


def test_every_attempt_gets_a_folder_of_its_own_that_is_removed_after_it(project):
    engine, [first, second], _ = run_one(project, '''
        ```python
        import os
        print(os.getcwd())
        ```

        ```python
        import os
        print(os.getcwd())
        print("again")
        ```
    ''')
    seen = [engine.result_for(b).text() for b in (first, second)]
    # the scratch path is replaced by "." in what a page shows; the folders themselves are gone
    assert [s.splitlines()[0] for s in seen] == [".", "."]
    assert not list((project.root / "scratch").glob("*"))


# ---------------------------------------------------------------------------- 3. a killed build

def _start_build(site: Path) -> subprocess.Popen:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DPGUIDE_JOBS": "4"}
    return subprocess.Popen(mkdocs_command(site), cwd=site, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _started_by(pid: int) -> list[psutil.Process]:
    """What the build runs now: its descendants and anything carrying its build marker."""
    try:
        found = {p.pid: p for p in psutil.Process(pid).children(recursive=True)}
    except psutil.Error:
        found = {}
    found.update({p.pid: p for p in processes_of_build(pid)})
    return [p for p in found.values() if _alive(p)]


def _sigkill_then_count(proc: subprocess.Popen, running: int, wanted: int) -> tuple[int, list]:
    """Wait until ``running`` processes whose command line names ``wanted``... run, SIGKILL the build, and
    return how many processes it had started and which of them are alive 5 s later."""
    def ready():
        return len([p for p in _started_by(proc.pid) if wanted(p)]) >= running

    if not wait_until(ready, timeout=90):
        proc.kill()   # do not leave a build running into the next tests
        raise AssertionError("the build never started its block processes")
    time.sleep(1)  # let the rest of what is being started appear (a worker's forked rank)
    started = _started_by(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    time.sleep(5)
    return len(started), [(p.pid, p.cmdline()) for p in started if _alive(p)]


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _cmdline_has(word: str):
    def test(proc: psutil.Process) -> bool:
        try:
            return any(word in part for part in proc.cmdline())
        except psutil.Error:
            return False
    return test


def test_sigkill_of_a_build_in_a_torchrun_block_leaves_nothing_running_5_s_later(tmp_path):
    site = make_site(tmp_path, {"index.md": """
        ```python
        --8<-- "slow.py"
        ```
    """}, {"slow.py": """
        #| run: torchrun --standalone --nproc-per-node=2 slow.py
        import time
        time.sleep(300)
    """})
    # the workers torchrun started name the script (each hands its rank to a fork of the warm server;
    # torchrun's agent is a fork of it too)
    before, survivors = _sigkill_then_count(_start_build(site), running=2, wanted=_cmdline_has("slow.py"))
    assert before >= 6   # the fork server, the agent's leader and the agent, two workers, their ranks
    assert survivors == []


def test_sigkill_of_a_build_in_forked_blocks_leaves_nothing_running_5_s_later(tmp_path):
    sleepers = "".join(f"\n```python\nimport time\ntime.sleep({300 + n})\n```\n" for n in range(3))
    site = make_site(tmp_path, {"index.md": "# P\n" + sleepers})
    build = _start_build(site)
    # the warm fork server and, forked from it, the three blocks (each under its job leader)
    before, survivors = _sigkill_then_count(build, running=4, wanted=_cmdline_has("dpguide.forkserver"))
    assert before >= 4
    assert survivors == []
    assert not list(Path(tempfile.gettempdir()).glob(f"dpguide-fork-p{build.pid}-*")), "socket folder left"


# ---------------------------------------------------------------------------- 4. background processes

DAEMON = '''
import os, sys, time
PIDFILE = "daemon.pid"
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:          # the daemon: no parent, its own session, holds stdout open
        with open(PIDFILE, "w") as out:
            out.write(str(os.getpid()))
        time.sleep(300)
    os._exit(0)
os.waitpid(pid, 0)
while not os.path.exists(PIDFILE) or not open(PIDFILE).read():
    time.sleep(0.01)
print("daemon", open(PIDFILE).read(), flush=True)
'''


def _daemon_pid(result) -> int:
    return int(result.text().split("daemon ")[1].split()[0])


@pytest.mark.parametrize("fence", ['python', 'python fresh="true"'])
def test_a_daemonised_grandchild_is_ended_at_block_end_and_the_block_says_so(project, fence):
    started = time.monotonic()
    engine, [a, b, c], _ = run_one(project, "\n".join(f"```{fence}\n{DAEMON}\n```\n" for _ in range(3)))
    assert time.monotonic() - started < 20  # not held open by the daemon's copy of stdout
    for block in (a, b, c):
        result = engine.result_for(block)
        assert result.background_ended >= 1
        assert not psutil.pid_exists(_daemon_pid(result)) or \
            psutil.Process(_daemon_pid(result)).status() == psutil.STATUS_ZOMBIE
    from dpguide.render import output_tabs
    assert any("still running; the build ended them" in line for line in output_tabs(engine.result_for(a)))


def test_a_rank_that_daemonises_a_child_has_it_ended_too(project):
    engine, [block], _ = run_one(project, '''
        ```python
        --8<-- "d.py"
        ```
    ''', {"d.py": "#| run: torchrun --standalone --nproc-per-node=2 d.py\n" + DAEMON.replace(
        'PIDFILE = "daemon.pid"', 'PIDFILE = f"daemon{os.environ[\'RANK\']}.pid"')})
    result = engine.result_for(block)
    assert result.background_ended >= 2
    for source in ("rank 0", "rank 1"):
        pid = int(result.text(source).split()[1])
        assert wait_until(lambda: not psutil.pid_exists(pid) or
                          psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, timeout=5)


# ---------------------------------------------------------------------------- 5. output limits

def test_forked_output_without_newlines_is_counted_and_stopped_at_the_hard_limit(project):
    started = time.monotonic()
    _, _, message = run_one(project, '''
        ```python timeout="100"
        import sys
        while True:
            sys.stdout.write("x" * 65536)
        ```

        ```python
        print("two more")
        ```

        ```python
        print("blocks, so the warm server forks the first")
        ```
    ''', expect_failure=True)
    assert time.monotonic() - started < 60, "ran to its timeout: output without newlines was not counted"
    assert f"printed more than {HARD_LIMIT // 2**20} MiB" in message
    assert f"the first and the last {STORE_LIMIT // 2 // 1024} KiB" in message


def test_kept_output_is_head_and_tail_with_one_visible_gap_where_bytes_were_dropped(project):
    engine, [block], _ = run_one(project, '''
        ```python
        for i in range(40000):
            print(f"line {i:05d} " + "x" * 20)
        print("the very last line")
        ```
    ''')
    result = engine.result_for(block)
    kept = [line for line in result.lines if line.stream != GAP]
    gaps = [line for line in result.lines if line.stream == GAP]
    assert len(gaps) == 1 and result.dropped_bytes > 0
    assert kept[0].text.startswith("line 00000") and kept[-1].text == "the very last line"
    assert sum(len(line.text) + 1 for line in kept) <= STORE_LIMIT
    index = result.lines.index(gaps[0])
    before, after = result.lines[index - 1].text, result.lines[index + 1].text
    dropped_lines = int(after.split()[1]) - int(before.split()[1]) - 1
    assert f"{dropped_lines:,} lines" in gaps[0].text and f"{result.dropped_bytes:,} bytes" in gaps[0].text
    assert "first and the last 128 KiB" in gaps[0].text and "32 MiB" in gaps[0].text
    from dpguide.render import output_tabs
    rendered = output_tabs(result)
    note = rendered.index('!!! warning "Output not kept here"')
    assert rendered.count('!!! warning "Output not kept here"') == 1
    assert any(line.startswith("line 00000") for line in rendered[:note])
    assert "the very last line" in rendered[note:]
    assert not any(gaps[0].text in line for line in rendered if line.startswith("line"))


# ---------------------------------------------------------------------------- 6. messages

def test_a_torchrun_job_ended_by_argparse_is_summarised_with_the_ranks_last_error_line(project):
    _, _, message = run_one(project, '''
        ```python
        --8<-- "cli.py"
        ```
    ''', {"cli.py": '''
        #| run: torchrun --standalone --nproc-per-node=2 cli.py
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("epochs", type=int)
        parser.parse_args()
    '''}, expect_failure=True)
    assert "last error line: cli.py: error: the following arguments are required: epochs" in message


def test_script_arguments_on_the_run_line_are_passed_shown_and_part_of_the_key(project):
    project.snippet("args.py", '''
        #| run: torchrun --standalone --nproc-per-node=2 args.py 50 10
        import os, sys
        print(os.environ["RANK"], sys.argv[1:])
    ''')
    project.page("p.md", '''
        ```python
        --8<-- "args.py"
        ```

        ```python args="7"
        --8<-- "args.py"
        ```
    ''')
    engine = project.engine()
    first, second = engine.collect()
    engine.run([first, second])
    assert first.reader_command == "torchrun --standalone --nproc-per-node=2 args.py 50 10"
    assert engine.result_for(first).text("rank 1") == "1 ['50', '10']"
    assert second.reader_command == "torchrun --standalone --nproc-per-node=2 args.py 7"
    assert engine.result_for(second).text("rank 0") == "0 ['7']"
    assert first.key != second.key


def test_a_hard_coded_master_port_in_use_is_named_as_the_cause(project):
    with socket.socket() as holder:  # another block (or build) holding the port, for real
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        _, _, message = run_one(project, f'''
            ```python
            import os
            import torch.distributed as dist
            os.environ["MASTER_ADDR"] = "127.0.0.1"
            os.environ["MASTER_PORT"] = "{port}"
            dist.init_process_group("gloo", rank=0, world_size=1)
            ```
        ''', expect_failure=True)
    assert f"hard-codes a port ({port})" in message
    assert "address already in use" in message and "--standalone" in message


def test_a_single_process_timeout_speaks_of_no_collective_and_of_one_timeout(project):
    _, _, message = run_one(project, '''
        ```python timeout="3"
        import time
        time.sleep(60)
        ```
    ''', expect_failure=True)
    head = message.split("\n  fix:")[0]
    assert "timed out after 3 s" in head
    assert "collective" not in message
    assert " s timeout" not in message.replace("after 3 s (the block's timeout)", "")


def test_counts_say_how_many_were_really_cached_and_really_kept(project):
    lines = []
    project.page("p.md", '''
        ```python
        print("same")
        ```

        ```python
        print("same")
        ```

        ```python expect="fail"
        print("fails where it should not")
        ```
    ''')
    engine = project.engine(log=lines.append)
    with pytest.raises(BlockFailed):
        engine.run(engine.collect())
    progress = [line for line in lines if " run, " in line]
    assert progress and all(" 0 cached," in line for line in progress), progress
    lines.clear()
    engine = project.engine(log=lines.append)
    with pytest.raises(BlockFailed):
        engine.run(engine.collect())
    progress = [line for line in lines if " run, " in line]
    assert progress and all(" 1 cached," in line for line in progress), lines


def test_dpguide_run_block_time_excludes_the_warm_interpreters_start(tmp_path):
    site = make_site(tmp_path, {"index.md": """
        # P

        ```python
        print("quick")
        ```
    """})
    done = subprocess.run([sys.executable, "-m", "dpguide.cli", "run", "docs/index.md:3"], cwd=site,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seconds = float(done.stdout.rsplit("(", 1)[1].split(" s)")[0])
    assert seconds < 0.5, done.stdout  # a print; importing torch in the server takes about a second here


def test_the_exit_probe_explains_the_import_and_names_a_missing_destroy(project):
    # ranks started by mp.spawn end as Python ends, teardown included (the build's own processes
    # skip it, so a torchrun block like this one passes: tests/test_faults.py)
    _, _, message = run_one(project, '''
        ```python
        --8<-- "nodestroy.py"
        ```
    ''', {"nodestroy.py": '''
        #| run: python nodestroy.py
        import torch
        import torch.distributed as dist
        import torch.multiprocessing as mp


        def work(rank, path):
            dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=2)
            dist.all_reduce(torch.ones(1))


        if __name__ == "__main__":
            import os, tempfile
            mp.spawn(work, args=(os.path.join(tempfile.mkdtemp(), "store"),), nprocs=2)
    '''}, expect_failure=True)
    assert "never called dist.destroy_process_group() (2 processes)" in message
    assert "still running: 2 processes (" in message
    assert "evaluates `group=group.WORLD` as a default argument" in message


# ---------------------------------------------------------------------------- 7. leftovers

def test_a_build_leaves_no_scratch_or_socket_folder_behind(tmp_path):
    site = make_site(tmp_path / "site", {"index.md": """
        # P

        ```python
        print(1)
        ```

        ```python
        print(2)
        ```

        ```python
        print(3)
        ```

        ```python
        --8<-- "t.py"
        ```

        ```python
        --8<-- "d.py"
        ```
    """}, {"t.py": "#| run: torchrun --standalone --nproc-per-node=2 t.py\nprint('t')\n",
           # names DDP, so its ranks fork from the server that has imported torch._dynamo too,
           # whose import makes an inductor cache folder (by default under the temp dir)
           "d.py": "#| run: torchrun --standalone --nproc-per-node=3 d.py\nprint('DistributedDataParallel')\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(tmp)}
    done = subprocess.run(mkdocs_command(site), cwd=site, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    leftovers = wait_until(lambda: not [p for p in tmp.rglob("*") if p.name != "dpguide-run"], timeout=5)
    assert leftovers, sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


# ---------------------------------------------------------------------------- the test runner itself

HANGING_TEST = '''
import textwrap
from pathlib import Path
import pytest
from dpguide.engine import Engine

@pytest.mark.timeout({limit})
def test_hangs(tmp_path):
    (tmp_path / "docs" / "snippets").mkdir(parents=True)
    (tmp_path / "docs" / "snippets" / "hang.py").write_text(
        "#| run: torchrun --standalone --nproc-per-node=2 hang.py\\nimport time\\ntime.sleep(600)\\n")
    (tmp_path / "docs" / "p.md").write_text('```python timeout="600"\\n--8<-- "hang.py"\\n```\\n')
    engine = Engine(tmp_path, cache_dir=tmp_path / "cache", scratch_root=tmp_path / "scratch",
                    log=lambda m: None)
    engine.run(engine.collect())
'''


def _pytest_on(tmp_path: Path, limit: int) -> subprocess.Popen:
    (tmp_path / "test_hang.py").write_text(HANGING_TEST.format(limit=limit))
    return subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_hung_test_fails_by_its_own_timeout_and_leaves_no_block_process(tmp_path):
    runner = _pytest_on(tmp_path, limit=10)
    assert wait_until(lambda: len([p for p in _started_by(runner.pid) if _cmdline_has("hang.py")(p)]) >= 2,
                      timeout=60)
    time.sleep(1)  # the two workers (named hang.py) have handed their ranks to forks
    started = _started_by(runner.pid)
    out, _ = runner.communicate(timeout=120)
    assert runner.returncode == 1 and "Timeout" in out, out
    time.sleep(5)
    assert [p.pid for p in started if _alive(p)] == []


def test_sigterm_of_the_test_runner_leaves_no_block_process_5_s_later(tmp_path):
    runner = _pytest_on(tmp_path, limit=600)
    assert wait_until(lambda: len([p for p in _started_by(runner.pid) if _cmdline_has("hang.py")(p)]) >= 2,
                      timeout=60)
    time.sleep(1)
    started = _started_by(runner.pid)
    runner.send_signal(signal.SIGTERM)
    runner.communicate(timeout=30)
    time.sleep(5)
    assert [(p.pid, p.cmdline()) for p in started if _alive(p)] == []


BACKGROUND_BUILD_CONFTEST = """
import sys
sys.path.insert(0, {tests!r})
from background_build import BackgroundSiteBuild

BUILD = BackgroundSiteBuild({site!r}, limit_s=600)

def pytest_collection_finish(session):
    BUILD.start()

def pytest_unconfigure(config):
    BUILD.stop()
"""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["interrupted", "killed"])
def test_the_site_build_beside_the_tests_ends_with_the_test_run(tmp_path, how):
    # the suite builds the site in the background (conftest.py's SITE_BUILD): a test run that is
    # interrupted (Ctrl-C) or killed outright must not leave that build or its blocks running
    site = make_site(tmp_path / "site", {"index.md": '''
        ```python timeout="600"
        --8<-- "hang.py"
        ```
    '''}, {"hang.py": "#| run: torchrun --standalone --nproc-per-node=2 hang.py\nimport time\ntime.sleep(600)\n"})
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "conftest.py").write_text(BACKGROUND_BUILD_CONFTEST.format(tests=str(ROOT / "tests"), site=str(site)))
    (runs / "test_wait.py").write_text("import time\n\ndef test_waits():\n    time.sleep(600)\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # Ctrl-C as a terminal delivers it, whatever this suite inherited: a suite started in the
    # background by a non-interactive shell (`make test &`) ignores SIGINT, and so would the runner
    runner = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:timeout",
                               str(runs)], cwd=runs, env={**os.environ, "TMPDIR": str(tmp)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = []
    try:
        assert wait_until(lambda: len([p for p in _started_by(runner.pid) if _cmdline_has("hang.py")(p)]) >= 2,
                          timeout=90), "the background build never started its block"
        time.sleep(1)
        started = _started_by(runner.pid)
        runner.send_signal(how)
        runner.communicate(timeout=60)
        time.sleep(5)
        assert [(p.pid, p.cmdline()) for p in started if _alive(p)] == []
        if how == signal.SIGINT:        # an interrupted run also removes the build's folder
            assert not list(tmp.glob("dpguide-test-site-*"))
    finally:                            # a failure here must not leave the inner run to the next tests
        for proc in [*_started_by(runner.pid), *started]:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        runner.kill()
        runner.communicate()
