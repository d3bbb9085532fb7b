"""Real runs through the launcher: python (forked and fresh) and torchrun, outputs and exit statuses."""

from __future__ import annotations

import pytest

from dpguide.engine import check_outcome
from dpguide.errors import BlockFailed

pytestmark = pytest.mark.usefixtures("clean_process_table")


def run_page(project, text: str, snippets: dict[str, str] = {}):
    for name, code in snippets.items():
        project.snippet(name, code)
    project.page("p.md", text)
    engine = project.engine()
    blocks = engine.collect()
    try:
        engine.run(blocks)
    except BlockFailed:
        pass
    return engine, blocks


def test_python_block_prints_stdout_and_stderr_in_order(project):
    engine, [block] = run_page(project, '''
        ```python
        import sys
        print("one")
        print("two", file=sys.stderr)
        print("three")
        ```
    ''')
    result = engine.result_for(block)
    assert [(line.stream, line.text) for line in result.lines] == [
        ("stdout", "one"), ("stderr", "two"), ("stdout", "three")]
    assert result.returncode == 0


def test_forked_block_sees_a_clean_main_module_and_its_own_argv(project):
    engine, [block] = run_page(project, '''
        ```python
        import sys, os
        print(__name__, os.path.basename(sys.argv[0]), os.path.basename(__file__))
        print("torch" in sys.modules)
        ```
    ''')
    lines = engine.result_for(block).text().splitlines()
    assert lines[0] == "__main__ block.py block.py"


def test_exit_zero_with_stderr_is_a_success_and_its_stderr_is_kept(project):
    engine, [block] = run_page(project, '''
        ```python
        import sys
        print("a warning, but no failure", file=sys.stderr)
        ```
    ''')
    result = engine.result_for(block)
    assert result.succeeded and result.text(stream="stderr") == "a warning, but no failure"


def test_nonzero_exit_with_no_output_is_reported_truthfully(project):
    engine, [block] = run_page(project, '''
        ```python
        raise SystemExit(3)
        ```
    ''')
    message = engine.failures[block.key]
    assert "p.md:1" in message and "exit status 3" in message and "it printed nothing" in message


def test_one_or_two_python_blocks_do_not_start_the_warm_server(project):
    import dpguide.engine as engine_module

    if "warm" in engine_module._SERVERS:
        engine_module._SERVERS.pop("warm").close()
    engine, [block] = run_page(project, "```python\nimport sys\nprint('torch' in sys.modules)\n```\n")
    assert engine.result_for(block).text() == "False"        # forked from the bare server
    assert not engine_module._running("warm")


def test_fresh_interpreter_matches_forked_output(project):
    code = 'import torch\nprint(torch.tensor([1.0, 2.0]).sum().item())'
    # three or more python blocks to run: the engine forks them from its warm server
    others = "".join(f"```python\nprint({n})\n```\n\n" for n in range(2))
    engine, blocks = run_page(project, f"```python\n{code}\n```\n\n```python fresh=\"true\"\n{code}\n```\n\n"
                              + others)
    forked, fresh = (engine.result_for(b) for b in blocks[:2])
    assert forked.text() == fresh.text() == "3.0"
    assert fresh.command[0] == "python" and "forked" in " ".join(forked.command)


def test_torchrun_block_captures_each_rank_separately(project):
    engine, [block] = run_page(project, '''
        ```python
        --8<-- "hello.py"
        ```
    ''', {"hello.py": '''
        #| run: torchrun --standalone --nproc-per-node=2 hello.py
        import sys
        import torch.distributed as dist
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        print(f"hello from rank {rank}")
        print(f"stderr of rank {rank}", file=sys.stderr)
        dist.destroy_process_group()
    '''})
    result = engine.result_for(block)
    assert result.sources()[:2] == ["rank 0", "rank 1"]
    for rank in (0, 1):
        assert result.text(f"rank {rank}", "stdout") == f"hello from rank {rank}"
        assert result.text(f"rank {rank}", "stderr") == f"stderr of rank {rank}"
    assert block.reader_command == "torchrun --standalone --nproc-per-node=2 hello.py"


def test_expected_failure_names_the_rank_that_raised(project):
    engine, [block] = run_page(project, '''
        ```python expect="fail" raises="ValueError"
        --8<-- "boom.py"
        ```
    ''', {"boom.py": '''
        #| run: torchrun --standalone --nproc-per-node=2 boom.py
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        if dist.get_rank() == 1:
            raise ValueError("rank one gives up")
        dist.all_reduce(torch.ones(1))
    '''})
    result = engine.result_for(block)
    assert result is not None, engine.failures
    assert result.root_cause()["rank"] == 1
    assert ("rank 1", "ValueError", "rank one gives up") in result.exceptions()


def test_expected_failure_that_succeeds_fails_the_build(project):
    engine, [block] = run_page(project, '''
        ```python expect="fail"
        print("all fine")
        ```
    ''')
    assert 'marked expect="fail" but it succeeded' in engine.failures[block.key]


def test_expected_failure_with_the_wrong_exception_fails(project):
    engine, [block] = run_page(project, '''
        ```python expect="fail" raises="KeyError"
        raise ValueError("not a key error")
        ```
    ''')
    assert "expected to raise KeyError but raised ValueError" in engine.failures[block.key]


def test_block_runs_in_scratch_directory_and_writes_nothing_into_the_project(project):
    project.page("data.md", "")
    engine, [block] = run_page(project, '''
        ```python
        import os, pathlib
        pathlib.Path("out.txt").write_text("x")
        os.chdir("..")
        pathlib.Path("up.txt").write_text("y")
        print(pathlib.Path(__file__).parent.name != "docs")
        ```
    ''')
    assert engine.result_for(block).text() == "True"
    written = {p.name for p in project.docs.rglob("*")} | {p.name for p in project.root.glob("*")}
    assert "out.txt" not in written and "up.txt" not in written


def test_shell_distributed_variables_do_not_leak_into_blocks(project, monkeypatch):
    monkeypatch.setenv("MASTER_PORT", "1")
    monkeypatch.setenv("RANK", "7")
    engine, [block] = run_page(project, '''
        ```python
        import os
        print(os.environ.get("RANK"), os.environ.get("MASTER_PORT"), os.environ["OMP_NUM_THREADS"])
        ```
    ''')
    assert engine.result_for(block).text() == "None None 1"


def test_two_torchrun_agents_on_one_host_form_one_four_rank_group(project):
    engine, [block] = run_page(project, '''
        ```python
        --8<-- "nodes.py"
        ```
    ''', {"nodes.py": '''
        #| run: torchrun --nnodes=2 --nproc-per-node=2 nodes.py
        import torch.distributed as dist
        dist.init_process_group("gloo")
        print("world", dist.get_world_size())
        dist.barrier()
        dist.destroy_process_group()
    '''})
    result = engine.result_for(block)
    assert result is not None, engine.failures
    assert [s for s in result.sources() if s != "torchrun"] == [
        "rank 0 · node 0, local 0", "rank 1 · node 0, local 1", "rank 2 · node 1, local 0", "rank 3 · node 1, local 1"]
    assert all(result.text(s, "stdout") == "world 4" for s in result.sources() if s != "torchrun")
    assert "--rdzv-endpoint=<host>:29400 --rdzv-id=<job-id>" in block.reader_command


def test_exit_notes_that_are_torn_or_foreign_are_ignored_not_trusted(tmp_path):
    from dpguide.launch import read_exit_notes

    (tmp_path / "exit-1.json").write_text('{"rank": 0, "attempt": 0, "gloo_threads": ["pt_gloo_runloop"]}')
    (tmp_path / "exit-2.json").write_text('{"rank": 1, "attem')             # killed while writing
    (tmp_path / "exit-3.json").write_text('["not", "a", "note"]')
    (tmp_path / "other.json").write_text('{"rank": 5}')                    # not the probe's file name
    (tmp_path / "exit-4.json").write_text('{"rank": 2, "attempt": 0, "gloo_threads": [], "teardown": false}')
    assert read_exit_notes(tmp_path) == [       # a note from before "teardown" was noted: it tore down
        {"rank": 0, "attempt": 0, "gloo_threads": ["pt_gloo_runloop"], "group_alive": False, "teardown": True},
        {"rank": 2, "attempt": 0, "gloo_threads": [], "group_alive": False, "teardown": False}]


def test_a_fresh_interpreter_loads_the_exit_probe_from_pythonpath(project):
    engine, [block] = run_page(project, '''
        ```python fresh="true"
        import sys
        print("probe loaded:", "sitecustomize" in sys.modules)
        ```
    ''')
    result = engine.result_for(block)
    assert result.text() == "probe loaded: True"
    assert [note["rank"] for note in result.exit_notes] == [-1]


def test_a_multi_node_job_labels_each_worker_by_its_global_rank_and_the_node_rank_it_was_given(project):
    engine, [block] = run_page(project, '''
        ```python launch="torchrun" nnodes="2" nproc="2"
        --8<-- "who.py"
        ```
    ''', {"who.py": '''
        #| run: python who.py
        import os
        print(os.environ["RANK"], os.environ["GROUP_RANK"], os.environ["LOCAL_RANK"])
    '''})
    result = engine.result_for(block)
    ranks = [s for s in result.sources() if s.startswith("rank")]
    assert len(ranks) == 4
    for source in ranks:                  # the label says what the worker itself printed
        rank, group, local = result.text(source, "stdout").split()
        assert source == f"rank {rank} · node {group}, local {local}"
    assert sorted(int(s.split()[1]) for s in ranks) == [0, 1, 2, 3]


RANK_REPORT = '''
    #| run: torchrun --standalone --nproc-per-node=2 report.py
    import random
    import sys

    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    print(f"rank {rank} argv {sys.argv} main {__name__}")
    print(f"rank {rank} seed {torch.initial_seed()} random {random.random()}", file=sys.stderr)
    dist.barrier()
    dist.destroy_process_group()
'''


def test_forked_ranks_print_what_fresh_ranks_print(project):
    engine, blocks = run_page(project, '''
        ```python
        --8<-- "report.py"
        ```

        ```python fresh="true"
        --8<-- "report.py"
        ```
    ''', {"report.py": RANK_REPORT})
    forked, fresh = (engine.result_for(b) for b in blocks)
    assert "forked" in forked.command[-1] and fresh.command[-1] == "report.py"
    for result in (forked, fresh):
        assert result.text("rank 0", "stdout") == "rank 0 argv ['report.py'] main __main__"
        assert result.text("rank 1", "stdout") == "rank 1 argv ['report.py'] main __main__"
        assert [n["rank"] for n in result.exit_notes if n["rank"] >= 0] == [0, 1]  # the probe runs in each rank
    for rank in ("rank 0", "rank 1"):   # each rank's own lines and streams (the merge order across ranks
        # differs by design: forked ranks stamp their writes, fresh ones are merged as read)
        assert [line.stream for line in forked.lines_of(rank)] == [line.stream for line in fresh.lines_of(rank)]


def test_a_forked_block_reports_an_uncaught_exception_through_sys_excepthook(project):
    # torch.distributed installs a hook that prefixes "[rankN]:"; python calls it, so must a fork
    code = ('import torch.distributed as dist\ndist.init_process_group("gloo", rank=0, world_size=1, '
            'init_method="tcp://127.0.0.1:0")\nraise ValueError("after init")')
    others = "".join(f"```python\nprint({n})\n```\n\n" for n in range(2))
    engine, blocks = run_page(project, f'```python expect="fail" raises="ValueError"\n{code}\n```\n\n' + others)
    result = engine.result_for(blocks[0])
    assert "forked" in result.command[-1]
    assert result.text("python", "stderr").splitlines()[-1] == "[rank0]: ValueError: after init"


def test_forked_ranks_and_blocks_draw_their_own_random_numbers(project):
    # a fork copies the warm server's random state: the child must reseed as a new interpreter does
    draw = 'import random, torch\nprint(torch.initial_seed(), random.random())'
    engine, blocks = run_page(project, "```python\n--8<-- \"report.py\"\n```\n\n" +
                              "".join(f"```python\n{draw}\n# {n}\n```\n\n" for n in range(3)),
                              {"report.py": RANK_REPORT})
    ranks = engine.result_for(blocks[0])
    seeds = [ranks.text(f"rank {r}", "stderr").splitlines()[0].split()[3] for r in (0, 1)]
    assert seeds[0] != seeds[1]
    draws = [engine.result_for(b).text() for b in blocks[1:]]
    assert "forked" in engine.result_for(blocks[1]).command[-1]
    assert len(set(draws)) == 3


def test_a_forked_rank_killed_by_a_signal_is_reported_as_killed_by_that_signal(project):
    from dpguide.engine import shared_forkserver
    from dpguide.launch import Job, run_job
    from dpguide.options import BlockOptions

    engine = project.engine()
    code = (b"import os, signal, time\nif os.environ['RANK'] == '1':\n"
            b"    os.kill(os.getpid(), signal.SIGKILL)\ntime.sleep(30)\n")
    job = Job("k" * 64, "killed", {"killed.py": code}, "killed.py", BlockOptions(launch="torchrun", nproc=2))
    result = run_job(job, engine.scratch_root, engine.block_env, shared_forkserver(engine.block_env), engine.live)
    assert "forked" in result.command[-1]
    assert "Signal 9 (SIGKILL) received by PID" in result.text("torchrun", "stderr")
    assert result.duration < 25  # torchrun ended rank 0 too: its stand-in passed the SIGTERM on


def test_shown_output_names_no_path_of_the_build_machine(project):
    import sys

    engine, [block] = run_page(project, '''
        ```python
        import sys, threading, torch
        print(sys.executable)
        print(torch.__file__)
        print(threading.__file__)
        ```
    ''')
    shown = engine.result_for(block).text().splitlines()
    assert shown[1] == "<site-packages>/torch/__init__.py"
    assert shown[2] == "<stdlib>/threading.py"      # a traceback through multiprocessing names the library
    if sys.prefix != sys.base_prefix:   # a virtual environment, as `make install` makes
        assert shown[0].startswith("<venv>/bin/python")
        assert not any(sys.prefix in line for line in shown)


def test_shown_output_names_torchrun_s_log_folder_log_dir_not_the_build_s_scratch_path(project):
    engine, [block] = run_page(project, '''
        ```python
        --8<-- "where.py"
        ```
    ''', {"where.py": '''
        #| run: torchrun --standalone --nproc-per-node=1 where.py
        import os
        print(os.environ["TORCHELASTIC_ERROR_FILE"])
    '''})
    [shown] = engine.result_for(block).text("rank 0").splitlines()
    assert shown.startswith("<log-dir>/") and shown.endswith("/attempt_0/0/error.json")
    assert "dpguide-run" not in engine.result_for(block).text()


def test_the_merged_stream_of_forked_ranks_is_in_the_order_of_writing_within_one_poll(project):
    # eight turns separated only by barriers (well under a millisecond each on one host), so most of
    # them fall inside one 20 ms read of the log files: only the ranks' own write stamps can order them
    engine, [block] = run_page(project, '''
        ```python expect="fail"
        --8<-- "turns.py"
        ```
    ''', {"turns.py": '''
        #| run: torchrun --standalone --nproc-per-node=2 turns.py
        import sys
        import torch.distributed as dist
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        dist.barrier()
        for turn in range(8):
            if rank == turn % 2:
                print(f"turn {turn}", file=(sys.stdout, sys.stderr)[turn // 2 % 2])
            dist.barrier()
        if rank == 1:
            print("last words")
            raise SystemExit("rank 1 ends")
        dist.destroy_process_group()
    '''})
    result = engine.result_for(block)
    turns = [(line.source, line.stream, line.text) for line in result.lines if line.text.startswith("turn ")]
    assert turns == [(f"rank {t % 2}", ("stdout", "stderr")[t // 2 % 2], f"turn {t}") for t in range(8)]
    rank1 = [line.text for line in result.lines_of("rank 1")]
    assert rank1[-2:] == ["last words", "rank 1 ends"]  # a print, then at once the exit message on stderr
    assert [line.t for line in result.lines] == sorted(line.t for line in result.lines)


def test_each_block_finds_imported_only_what_its_own_kind_of_program_imports(project):
    # a DDP block imports torch._dynamo at its first DDP(), a single process at its first optimizer, a
    # block that imports a sharding package imports that package's (large) tree; any other block must
    # not find them imported (torch._dynamo changes what some programs with a process group print),
    # and neither may a block run fresh
    report = ('import sys\n'   # spelt in split strings, which the engine would read as touching torch.distributed
              'print("torch._dynamo" in sys.modules, "torch." "distributed.nn" in sys.modules,\n'
              '      "torch." "distributed.checkpoint.state_dict" in sys.modules)\n')
    optimizer = "import torch\nopt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)\n"
    engine, blocks = run_page(project, '''
        ```python
        --8<-- "ddp_block.py"
        ```

        ```python
        --8<-- "plain_block.py"
        ```

        ```python fresh="true"
        --8<-- "ddp_block.py"
        ```

        ```python
        --8<-- "optimizer_block.py"
        ```

        ```python
        --8<-- "optimizer_with_group.py"
        ```

        ```python
        --8<-- "sharding_block.py"
        ```
    ''', {"ddp_block.py": "#| run: torchrun --standalone --nproc-per-node=3 ddp_block.py\n"
                           "from torch.nn.parallel import DistributedDataParallel  # noqa: F401\n" + report,
          "plain_block.py": "#| run: torchrun --standalone --nproc-per-node=3 plain_block.py\n" + report,
          "optimizer_block.py": report + optimizer,
          "optimizer_with_group.py": report + optimizer + "import torch.distributed  # noqa: F401\n",
          "sharding_block.py": "#| run: torchrun --standalone --nproc-per-node=3 sharding_block.py\n" + report
                               + "from torch.distributed.fsdp import fully_shard  # noqa: F401\n"})
    assert not engine.failures, engine.failures
    ddp, plain, fresh, single, grouped, sharding = (engine.result_for(b) for b in blocks)  # 3 ranks: servers start
    assert ddp.forked and {ddp.text(f"rank {r}") for r in range(3)} == {"True True False"}
    assert plain.forked and {plain.text(f"rank {r}") for r in range(3)} == {"False False False"}
    assert not fresh.forked and {fresh.text(f"rank {r}") for r in range(3)} == {"False False False"}
    assert single.forked and single.text() == "True True False"
    assert grouped.forked and grouped.text() == "False False False"
    assert sharding.forked and {sharding.text(f"rank {r}") for r in range(3)} == {"True True True"}


def test_sharding_imports_are_recognised_only_as_imports():
    from dpguide.launch import imports_sharding, server_kind

    for code in (b"from torch.distributed.fsdp import fully_shard", b"import torch.distributed.checkpoint as dcp",
                 b"from torch.distributed import tensor", b"def f():\n    from torch.distributed.optim import X"):
        assert imports_sharding({"a.py": b"import torch\n" + code}), code
    for code in (b"import torch.distributed as dist", b"# from torch.distributed.fsdp import fully_shard",
                 b"from torch.distributed.fsdpx import y", b"x = 'torch.distributed.tensor'"):
        assert not imports_sharding({"a.py": code}), code
    ddp_and_fsdp = {"a.py": b"from torch.nn.parallel import DistributedDataParallel\n"
                            b"from torch.distributed.fsdp import fully_shard\n"}
    assert server_kind(ddp_and_fsdp, "torchrun") == "sharding"   # that server has imported torch._dynamo too
    assert server_kind({"a.py": b"from torch.nn.parallel import DistributedDataParallel"}, "torchrun") == "ddp"
    assert server_kind({"a.py": b"import torch.distributed as dist"}, "torchrun") == "warm"


def test_torch_s_own_logger_in_a_forked_rank_writes_to_the_rank_s_stamped_stderr(project):
    # torch's logger got its handler while the warm server imported torch: it must follow the rank's
    # streams, or its lines would bypass the stamps and land out of order
    engine, [block] = run_page(project, '''
        ```python
        --8<-- "logs.py"
        ```
    ''', {"logs.py": '''
        #| run: torchrun --standalone --nproc-per-node=3 logs.py
        import logging
        print("before")
        logging.getLogger("torch.distributed").warning("logged by torch's logger")
        print("after")
    '''})
    result = engine.result_for(block)
    shown = [(line.stream, line.text.split("] ")[-1]) for line in result.lines_of("rank 0")]  # torch's prefix
    assert shown == [("stdout", "before"), ("stderr", "logged by torch's logger"), ("stdout", "after")]


def _torn(lines: list[str]) -> list[str]:
    """Lines that are neither one child's whole line nor the parent's last line."""
    import re

    return [line for line in lines if not re.fullmatch(r"child [ab] line \d+|exit statuses \[0, 0\]", line)]


_TWO_WRITERS = '''
    ```python
    import subprocess, sys
    child = "for i in range(3000): print('child', {name!r}, 'line', i)"
    procs = [subprocess.Popen([sys.executable, "-c", child.format(name=n)]) for n in "ab"]
    print("exit statuses", [p.wait() for p in procs])
    ```
'''


def test_child_processes_of_a_python_block_never_tear_each_other_s_lines(project, monkeypatch):
    # two children share the block's stdout pipe; with PYTHONUNBUFFERED a print is two writes
    # (text, newline) and their lines tear; line-buffered, as at a terminal, each line is one write.
    # A contributor's shell that sets PYTHONUNBUFFERED must not change that.
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")

    engine, [block] = run_page(project, _TWO_WRITERS)
    lines = engine.result_for(block).text().splitlines()
    torn = _torn(lines)
    assert torn == [] and len(lines) == 6001


def test_children_started_as_python_u_never_tear_each_other_s_lines(project):
    # torchrun starts its workers as `python -u`: unbuffered, a print is two writes. The workers of a
    # torchrun that a block starts itself share one pipe, so the probe gives them a line at a time too
    engine, [block] = run_page(project, _TWO_WRITERS.replace('[sys.executable, "-c"', '[sys.executable, "-u", "-c"'))
    lines = engine.result_for(block).text().splitlines()
    torn = _torn(lines)
    assert torn == [] and len(lines) == 6001


def test_processes_forked_by_a_forked_block_never_tear_each_other_s_lines(project):
    engine, [block] = run_page(project, '''
        ```python
        import os, sys
        children = []
        for name in "ab":
            pid = os.fork()
            if pid == 0:
                for i in range(3000):
                    print("child", name, "line", i)
                sys.stdout.flush()
                os._exit(0)
            children.append(pid)
        print("exit statuses", [os.waitpid(pid, 0)[1] for pid in children])
        ```
    ''')
    lines = engine.result_for(block).text().splitlines()
    torn = _torn(lines)
    assert torn == [] and len(lines) == 6001
