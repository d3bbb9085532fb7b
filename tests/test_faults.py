"""The failure matrix: each fault is provoked for real and must end clearly, quickly and cleanly."""

from __future__ import annotations

import json
import textwrap
import time

import pytest

from dpguide.errors import BlockFailed
from dpguide.render import provenance

pytestmark = pytest.mark.usefixtures("clean_process_table")


def build(project, page: str, snippets: dict[str, str], **engine_kwargs):
    for name, code in snippets.items():
        project.snippet(name, code)
    project.page("faults.md", page)
    engine = project.engine(**engine_kwargs)
    blocks = engine.collect()
    started = time.monotonic()
    with pytest.raises(BlockFailed) as info:
        engine.run(blocks)
    return engine, blocks, str(info.value), time.monotonic() - started


def test_mismatched_collective_is_killed_at_timeout_naming_the_stuck_rank(project):
    engine, [block], message, seconds = build(project, '''
        Intro line.

        ```python timeout="12"
        --8<-- "mismatch.py"
        ```
    ''', {"mismatch.py": '''
        #| run: torchrun --standalone --nproc-per-node=3 mismatch.py
        import time
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        print(f"rank {rank} before the collective", flush=True)
        if rank == 0:
            dist.all_reduce(torch.ones(1))      # ranks 1 and 2 never call it
        else:
            time.sleep(3600)
    '''})
    assert "faults.md:3" in message and "docs/snippets/mismatch.py" in message
    # 12 s: three ranks make the engine start its warm server (torch imported before the clock starts),
    # so they fork, meet and print within a second or two even on a loaded 2-core machine (two ranks
    # would import torch on the clock: over 8 s seen beside a full build, when this limit was 30 s)
    assert "timed out after 12 s" in message
    assert "ranks still running: 0, 1, 2" in message
    assert "rank 0 before the collective" in message     # their last output
    assert seconds < 12 + 60                             # killed at its timeout, not left to hang


def test_one_rank_raising_ends_the_others_long_before_the_timeout(project):
    engine, [block], message, seconds = build(project, '''
        ```python timeout="120"
        --8<-- "crash.py"
        ```
    ''', {"crash.py": '''
        #| run: torchrun --standalone --nproc-per-node=3 crash.py
        import time
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        if dist.get_rank() == 2:
            raise RuntimeError("rank two found a bad batch")
        try:
            dist.barrier()
            dist.all_reduce(torch.ones(1))
        except RuntimeError:
            # gloo notices the lost peer at once; a rank that then lingered (cleanup, logging) must
            # still be ended by the launcher, and must not be taken for the first failure
            time.sleep(60)
            raise
    '''})
    assert "rank 2 failed first with exit code 1" in message
    assert "rank 2 raised RuntimeError: rank two found a bad batch" in message
    assert seconds < 40


def test_a_rank_killed_by_a_signal_is_named_with_the_signal(project):
    engine, [block], message, _ = build(project, '''
        ```python
        --8<-- "abort.py"
        ```
    ''', {"abort.py": '''
        #| run: torchrun --standalone --nproc-per-node=2 abort.py
        import os
        import torch.distributed as dist
        dist.init_process_group("gloo")
        if dist.get_rank() == 1:
            os.abort()
        dist.barrier()
    '''})
    assert "rank 1 failed first with exit code -6 (SIGABRT)" in message


def test_endless_output_is_stopped_and_memory_stays_bounded(project):
    engine, [block], message, seconds = build(project, '''
        ```python timeout="60"
        while True:
            print("spam " * 20)
        ```
    ''', {})
    assert "hard output limit" in message
    assert seconds < 30


def test_eight_torchrun_blocks_at_once_do_not_clash_or_cross_talk(project):
    fences = "\n".join(f'```python\n--8<-- "job{i}.py"\n```\n' for i in range(8))
    snippets = {f"job{i}.py": f'''
        #| run: torchrun --standalone --nproc-per-node=2 job{i}.py
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        value = torch.tensor([{i}.0 + dist.get_rank()])
        dist.all_reduce(value)
        print("job {i}", dist.get_world_size(), value.item())
        dist.destroy_process_group()
    ''' for i in range(8)}
    for name, code in snippets.items():
        project.snippet(name, code)
    project.page("many.md", fences)
    engine = project.engine(slots=16)
    blocks = engine.collect()
    engine.run(blocks)
    for i, block in enumerate(blocks):
        result = engine.result_for(block)
        expected = f"job {i} 2 {2 * i + 1.0}"
        assert result.text("rank 0", "stdout") == expected
        assert result.text("rank 1", "stdout") == expected


def test_corrupt_truncated_or_edited_cache_entries_are_rerun_not_trusted(project):
    project.page("c.md", '```python\nprint("real output")\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    path = engine.cache.path_for(block.key)
    original = path.read_text()
    reports = []
    for damage in ("edit", "truncate", "garbage"):
        if damage == "edit":
            path.write_text(original.replace('"real output"', '"fake output"'))
        elif damage == "truncate":
            path.write_text(original[: len(original) // 2])
        else:
            path.write_text("not json at all")
        fresh = project.engine(log=reports.append)
        fresh.run(fresh.collect())
        assert fresh.stats[0].source == "run"                   # re-run, not trusted
        assert fresh.result_for(block).text() == "real output"
        assert json.loads(path.read_text())["digest"]          # a complete entry again
    assert len([r for r in reports if "is corrupt" in r]) == 3
    assert len(list((project.root / "cache" / "corrupt").iterdir())) >= 1


FLAKY = '''
    #| run: torchrun --standalone --nproc-per-node=2 flaky.py
    import os, sys
    import torch.distributed as dist
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    print(f"rank {rank} finished its work")
    dist.barrier()
    dist.destroy_process_group()
    marker = "{marker}"
    if rank == 1 and ({always} or not os.path.exists(marker)):
        open(marker, "w").close()
        sys.stdout.flush()
        # what the platform flake looks like: C++ terminate at exit, no Python traceback
        os.write(2, b"terminate called without an active exception\\n")
        os.abort()
'''


def test_an_exit_abort_is_retried_once_and_the_retry_is_logged(project):
    log = []
    project.snippet("flaky.py", FLAKY.replace("{always}", "False").replace("{marker}", str(project.root / "once")))
    project.page("f.md", '```python\n--8<-- "flaky.py"\n```\n')
    engine = project.engine(log=log.append)
    [block] = engine.collect()
    engine.run([block])
    assert engine.result_for(block).succeeded
    assert any("RETRY f.md:1" in m and "rank 1 aborted at exit" in m for m in log)
    assert engine.retried == [block.label]


def test_an_abort_every_time_still_fails_the_build(project):
    project.snippet("flaky.py", FLAKY.replace("{always}", "True").replace("{marker}", str(project.root / "once")))
    project.page("f.md", '```python\n--8<-- "flaky.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    with pytest.raises(BlockFailed, match=r"exit code -6 \(SIGABRT\)"):
        engine.run([block])


UNCONNECTED = '''
    #| run: torchrun --standalone --nproc-per-node=2 unconnected.py
    import os
    import torch.distributed as dist
    marker = "{marker}"
    if int(os.environ["RANK"]) == 1 and ({always} or not os.path.exists(marker)):
        open(marker, "w").close()
        # gloo's rare failure, as a CI build reported it (test_failure_reports.py)
        raise RuntimeError("Gloo connectFullMesh failed with [pair.cc:553] Connection closed by peer")
    dist.init_process_group("gloo")
    print(f"rank {{dist.get_rank()}} connected")
    dist.barrier()
    dist.destroy_process_group()
'''


def unconnected_block(project, always: bool):
    code = UNCONNECTED.replace("{marker}", str(project.root / "once")).replace("{always}", str(always))
    project.snippet("unconnected.py", code.replace("{{", "{").replace("}}", "}"))
    project.page("f.md", '```python timeout="60"\n--8<-- "unconnected.py"\n```\n')


def test_a_group_that_could_not_connect_is_retried_once_and_the_retry_is_logged(project):
    log = []
    unconnected_block(project, always=False)
    engine = project.engine(log=log.append)
    [block] = engine.collect()
    engine.run([block])
    assert engine.result_for(block).succeeded
    assert "rank 1 connected" in engine.result_for(block).text()
    [retry] = [m for m in log if "RETRY f.md:1" in m]
    assert "rank 1 could not connect to its peers" in retry
    # the first try's whole report comes with it: the failing rank's own error line
    assert "first try's report:" in retry and "RuntimeError: Gloo connectFullMesh failed with" in retry
    assert engine.retried == [block.label]


def test_a_group_that_never_connects_still_fails_the_build(project):
    unconnected_block(project, always=True)
    engine = project.engine()
    [block] = engine.collect()
    with pytest.raises(BlockFailed, match="Gloo connectFullMesh failed"):
        engine.run([block])
    assert engine.retried == [block.label]   # tried twice, then reported


def test_a_python_exception_is_never_retried(project):
    log = []
    project.page("f.md", '```python\nraise RuntimeError("deterministic")\n```\n')
    engine = project.engine(log=log.append)
    with pytest.raises(BlockFailed):
        engine.run(engine.collect())
    assert not any("RETRY" in m for m in log)


LIVE_GROUP = '''
    #| run: {run}
    import torch
    import torch.distributed as dist
    {init}
    group = dist.new_group()                 # a handle that outlives destroy_process_group()
    dist.all_reduce(torch.ones(1), group=group)
    print("right answer")
    dist.barrier()
    {drop}
    dist.destroy_process_group()
'''
TORCHRUN = {"run": "torchrun --standalone --nproc-per-node=2 live.py", "init": 'dist.init_process_group("gloo")'}
FORKED = {"run": "python live.py",
          "init": 'dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)'}


def live_group(kind: dict, drop: str = "pass") -> str:
    return LIVE_GROUP.format(**kind, drop=drop)


def test_a_group_left_alive_in_a_process_that_tears_down_fails_every_run_with_the_fix(project):
    """A fresh python block ends as `python FILE` ends, teardown included: there the threads can abort it."""
    engine, [block], message, seconds = build(project, '```python fresh="true"\n--8<-- "live.py"\n```\n',
                                              {"live.py": live_group(FORKED)})
    assert engine.retried == []                           # certain, so never retried
    assert "faults.md:1" in message
    assert "gloo worker threads still running" in message
    assert "the process (" in message
    assert "import torch.distributed.nn before init_process_group()" in message
    assert "Ending a script cleanly" in message
    assert "right answer" in message                      # its output was right: that is the trap


@pytest.mark.parametrize("kind, fence", [(TORCHRUN, ""), (TORCHRUN, ' fresh="true"'), (FORKED, "")],
                         ids=["forked-ranks", "fresh-ranks", "forked-python"])
def test_the_builds_own_processes_skip_the_teardown_so_a_live_group_cannot_abort_them(project, kind, fence):
    project.snippet("live.py", live_group(kind))
    project.page("f.md", f'```python{fence}\n--8<-- "live.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    result = engine.result_for(block)
    # the program's processes: torchrun's ranks (its agent, rank -1, holds no group), or the one process
    notes = [note for note in result.exit_notes if note["rank"] >= 0 or kind is FORKED]
    assert result.succeeded and sorted(note["rank"] for note in notes) == ([0, 1] if kind is TORCHRUN else [-1])
    assert all(note["gloo_threads"] for note in notes)         # the threads were there at exit,
    assert all(note["teardown"] is False for note in notes)    # but no teardown followed
    assert result.ranks_leaving_gloo_threads() == {}
    assert set(result.text().splitlines()) == {"right answer"}          # the probe printed nothing
    shown = provenance(block, result)                                    # and the page says so
    assert "ended right after <code>atexit</code>, without Python's teardown" in shown
    # a fresh torchrun agent ends as `python -m torch.distributed.run` ends: the line counts who skipped it
    assert ("(2 of the 3 processes that reached Python&#x27;s exit)" in shown) == (fence != "")
    assert 'href="../how-outputs-are-made/#the-clean-ending"' in shown   # f.md is served as f/


def test_workers_of_a_torchrun_that_a_block_starts_itself_end_as_the_builds_ranks_do(project):
    code = textwrap.dedent(live_group(TORCHRUN)).split("\n", 2)[2]     # without its `#| run:` header
    project.snippet("live_source.py", f'SOURCE = """\n{code}"""\n')
    project.snippet("starts.py", '''
        import pathlib, subprocess, sys
        from live_source import SOURCE         # the engine copies a snippet the block imports
        pathlib.Path("live.py").write_text(SOURCE)
        subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node=2", "live.py"], check=True)
        ''')
    project.page("f.md", '```python\n--8<-- "starts.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    result = engine.result_for(block)
    workers = [note for note in result.exit_notes if note["rank"] >= 0]
    seen = f"notes {result.exit_notes}, output:\n{result.text()}"
    assert result.succeeded and sorted(note["rank"] for note in workers) == [0, 1], seen
    assert all(note["gloo_threads"] and note["teardown"] is False for note in workers), seen
    assert result.text(stream="stdout").splitlines() == ["right answer"] * 2, seen


@pytest.mark.parametrize("fail, status", [("raise ValueError('gives up')", 1), ("sys.exit(3)", 3)],
                         ids=["raises", "exits-3"])
def test_a_python_block_that_fails_skips_the_teardown_and_keeps_its_traceback_and_status(project, fail, status):
    project.page("f.md", f'''
        ```python expect="fail"
        import sys
        import torch.distributed as dist
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        dist.barrier()  # a gloo worker thread names itself when it first runs: after this, it has
        print("before")
        {fail}
        ```
        ''')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    result = engine.result_for(block)
    assert result.returncode == status and result.text(stream="stdout") == "before"
    assert ("ValueError: gives up" in result.text(stream="stderr")) == (status == 1)
    [note] = result.exit_notes                      # noted although it failed, with its live group,
    assert note["gloo_threads"] and note["teardown"] is False   # and no teardown followed
    assert "without Python's teardown" in provenance(block, result)


@pytest.mark.parametrize("fail, status", [("raise ValueError('rank 1 gives up')", 1), ("sys.exit(3)", 3)],
                         ids=["raises", "exits-3"])
def test_a_fresh_worker_that_fails_keeps_its_traceback_and_exit_status(project, fail, status):
    engine, [block], message, seconds = build(project, '```python fresh="true"\n--8<-- "quits.py"\n```\n', {
        "quits.py": f'''
            #| run: torchrun --standalone --nproc-per-node=2 quits.py
            import os, sys
            print("rank", os.environ["RANK"], "starts")
            if os.environ["RANK"] == "1":
                {fail}
            '''})
    assert f"exitcode  : {status}" in message
    assert ("ValueError: rank 1 gives up" in message) == (status == 1)
    # the traceback python itself would print: the script's frame, none of the probe's
    assert ('File "quits.py", line 4, in <module>' in message) == (status == 1)
    assert "sitecustomize" not in message and "dpguide_main" not in message


def test_only_the_last_torchrun_attempt_is_held_to_the_clean_exit(project):
    project.snippet("again.py", '''
        #| run: torchrun --standalone --nproc-per-node=2 --max-restarts=1 again.py
        import os, sys
        import torch
        import torch.distributed as dist
        import torch.distributed.nn  # noqa: F401
        attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        store = dist.PrefixStore(f"attempt-{attempt}", next(dist.rendezvous("env://"))[0])
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world)
        group = dist.new_group()
        dist.all_reduce(torch.ones(1), group=group)
        if attempt == 0:
            sys.exit(3)                          # gives up with its group alive: torchrun restarts
        dist.barrier()
        del group
        dist.destroy_process_group()
        print("clean on attempt", attempt)
    ''')
    project.page("f.md", '```python\n--8<-- "again.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    result = engine.result_for(block)
    assert {note["attempt"] for note in result.exit_notes} == {0, 1}
    assert any(note["gloo_threads"] for note in result.exit_notes if note["attempt"] == 0)
    assert result.ranks_leaving_gloo_threads() == {}


def test_threads_at_exit_expected_lets_a_lesson_show_the_live_group(project):
    project.snippet("live.py", live_group(FORKED))
    project.page("f.md", '```python threads-at-exit="expected" fresh="true"\n--8<-- "live.py"\n```\n')
    engine = project.engine()
    [block] = engine.collect()
    engine.run([block])
    result = engine.result_for(block)
    assert set(result.ranks_leaving_gloo_threads()) == {-1}


def test_a_bad_threads_at_exit_value_is_an_authoring_error(project):
    project.page("f.md", '```python threads-at-exit="yes"\nprint(1)\n```\n')
    with pytest.raises(Exception, match=r'(?s)f\.md:1.*threads-at-exit=\'yes\'.*threads-at-exit="expected"'):
        project.engine().collect()
