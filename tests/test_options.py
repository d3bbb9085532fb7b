"""Block options, one promise per row: what each option sets, the exact error (file:line, problem and
fix) for each wrong value, the command a reader is shown, and what goes into the cache key."""

from __future__ import annotations

import pytest

from dpguide.errors import AuthoringError
from dpguide.options import (DEFAULT_TIMEOUT_S, KNOWN_OPTIONS, BlockOptions, apply_options,
                             options_from_command)

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

WHERE = ("learn/x.md", 12)
TORCH = {"launch": "torchrun", "nproc": "2"}
RAN = {"launch": "torchrun", "nproc": 2}


def parsed(**attrs) -> BlockOptions:
    return apply_options(BlockOptions(), {k.replace("_", "-"): v for k, v in attrs.items()}, WHERE)


def error_of(call) -> AuthoringError:
    with pytest.raises(AuthoringError) as caught:
        call()
    assert (caught.value.path, caught.value.line) == WHERE
    return caught.value


GOOD = [
    ({}, {}),
    ({"launch": "torchrun", "nproc": "4"}, {"launch": "torchrun", "nproc": 4}),
    ({**TORCH, "nnodes": "2"}, {**RAN, "nnodes": 2}),
    ({**TORCH, "max-restarts": "0"}, {**RAN, "max_restarts": 0}),
    ({**TORCH, "max-restarts": "3"}, {**RAN, "max_restarts": 3}),
    ({"launch": "python"}, {}),
    ({"device": "cpu"}, {}),
    ({"timeout": "0.5"}, {"timeout": 0.5}),
    ({"expect": "fail", "raises": "my_errors.Stuck_Rank"}, {"expect_fail": True, "raises": "my_errors.Stuck_Rank"}),
    ({"skip": "  needs a cluster  "}, {"skip": "needs a cluster"}),
    ({"expect": "fail"}, {"expect_fail": True}),
    ({"expect": "fail", "raises": "torch.distributed.DistBackendError"},
     {"expect_fail": True, "raises": "torch.distributed.DistBackendError"}),
    ({"timeout": "7.5"}, {"timeout": 7.5}),
    ({"device": "cuda"}, {"device": "cuda", "gpus": 1}),
    ({"device": "any", "gpus": "4"}, {"device": "any", "gpus": 4}),
    ({"backend": "nccl"}, {"backend": "nccl"}),
    ({"backend": "gloo"}, {"backend": "gloo"}),
    ({"fresh": "true"}, {"fresh": True}),
    ({"fresh": "false"}, {"fresh": False}),
    ({"args": "50 'a b'"}, {"args": ("50", "a b")}),
    ({"threads-at-exit": "expected"}, {"threads_at_exit": True}),
    ({"anchor": "ddp-first-run"}, {"anchor": "ddp-first-run"}),
    ({"title": "t.py", "linenums": "1"}, {"display": (("linenums", "1"), ("title", "t.py"))}),
]


@pytest.mark.parametrize("attrs,expected", GOOD, ids=[str(a) for a, _ in GOOD])
def test_each_option_sets_exactly_its_field(attrs, expected):
    options = apply_options(BlockOptions(), attrs, WHERE)
    defaults = BlockOptions()
    for name in BlockOptions.__dataclass_fields__:
        want = expected.get(name, getattr(defaults, name))
        assert getattr(options, name) == want, name


def test_defaults():
    options = BlockOptions()
    assert (options.launch, options.nproc, options.nnodes, options.max_restarts, options.timeout) == \
        ("python", None, 1, 0, DEFAULT_TIMEOUT_S)
    assert options.runs_on_cpu_build and not options.needs_gpu_record


BAD = [
    ({"nprocs": "2"}, "unknown block option 'nprocs'", "did you mean 'nproc'? known options: " +
     ", ".join(sorted(KNOWN_OPTIONS))),
    ({"zzzz": "1"}, "unknown block option 'zzzz'", "known options: " + ", ".join(sorted(KNOWN_OPTIONS))),
    ({"launch": "mpirun"}, "launch='mpirun' is not a launch mode", 'use launch="python" or launch="torchrun"'),
    ({"launch": "torchrun", "nproc": "0"}, "option nproc='0' is not a whole number >= 1",
     'write nproc="1" or another whole number'),
    ({"launch": "torchrun", "nproc": "two"}, "option nproc='two' is not a whole number >= 1",
     'write nproc="1" or another whole number'),
    ({**TORCH, "nnodes": "0"}, "option nnodes='0' is not a whole number >= 1", 'write nnodes="1" or another whole number'),
    ({**TORCH, "max-restarts": "-1"}, "option max-restarts='-1' is not a whole number >= 0",
     'write max-restarts="0" or another whole number'),
    ({"skip": "  "}, "skip needs a reason the reader will see",
     'write skip="needs a Slurm cluster" (say why it is not run)'),
    ({"expect": "error"}, "expect='error' is not understood", 'the only value is expect="fail"'),
    ({"expect": "fail", "raises": "Runtime Error"}, "raises='Runtime Error' is not an exception name",
     'e.g. raises="RuntimeError"'),
    ({"timeout": "soon"}, "timeout='soon' is not a positive number of seconds", 'e.g. timeout="60"'),
    ({"timeout": "0"}, "timeout='0' is not a positive number of seconds", 'e.g. timeout="60"'),
    ({"device": "gpu"}, "device='gpu' is not understood", 'use device="cpu", "cuda" or "any"'),
    ({"device": "cuda", "gpus": "0"}, "option gpus='0' is not a whole number >= 1", 'write gpus="1" or another whole number'),
    ({"backend": "mpi"}, "backend='mpi' is not a backend the GPU runner knows", 'use backend="gloo" or backend="nccl"'),
    ({"fresh": "yes"}, "fresh='yes' must be true or false", 'write fresh="true"'),
    ({"args": "'unclosed"}, "args=\"'unclosed\" cannot be split into words: No closing quotation", 'e.g. args="50 10"'),
    ({"threads-at-exit": "yes"}, "threads-at-exit='yes' is not understood", 'the only value is threads-at-exit="expected"'),
    ({"anchor": "Bad Name"}, "anchor='Bad Name' is not a simple name", 'e.g. anchor="ddp-first-run"'),
    ({"anchor": "-x"}, "anchor='-x' is not a simple name", 'e.g. anchor="ddp-first-run"'),
    # combinations that cannot be meant
    ({"launch": "torchrun"}, "a torchrun block needs a rank count",
     'add nproc="2" to the fence, or "--nproc-per-node=2" to the snippet\'s "#| run:" line'),
    ({"nproc": "2"}, "nproc/nnodes only mean something under torchrun", 'add launch="torchrun"'),
    ({"nnodes": "2"}, "nproc/nnodes only mean something under torchrun", 'add launch="torchrun"'),
    ({"raises": "RuntimeError"}, "raises= is only checked for an expected failure", 'add expect="fail"'),
    ({"gpus": "2"}, "gpus= needs device=\"cuda\" or device=\"any\"", 'add device="cuda"'),
]


@pytest.mark.parametrize("attrs,problem,fix", BAD, ids=[str(a) for a, _, _ in BAD])
def test_each_wrong_value_is_refused_with_its_location_problem_and_fix(attrs, problem, fix):
    error = error_of(lambda: apply_options(BlockOptions(), attrs, WHERE))
    assert (error.problem, error.fix) == (problem, fix)
    assert str(error) == f"learn/x.md:12: {problem}\n  fix: {fix}"


COMMANDS = [
    ("python x.py", {"launch": "python"}),
    ("python x.py 50 'a b'", {"launch": "python", "args": "50 'a b'"}),
    ("torchrun --standalone --nproc-per-node=2 x.py", {"launch": "torchrun", "nproc": "2"}),
    ("torchrun --nproc_per_node=4 --nnodes=2 --max-restarts=1 x.py --epochs 3",
     {"launch": "torchrun", "nproc": "4", "nnodes": "2", "max-restarts": "1", "args": "--epochs 3"}),
]


@pytest.mark.parametrize("command,attrs", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_run_line_is_parsed_into_options(command, attrs):
    assert options_from_command(command, WHERE) == attrs


USAGE = "write '#| run: python FILE.py' or '#| run: torchrun --standalone --nproc-per-node=2 FILE.py'"
BAD_COMMANDS = [
    ("python 'x.py", "cannot parse run command \"python 'x.py\": No closing quotation", ""),
    ("", "run command must start with python or torchrun, got ''", USAGE),
    ("bash x.py", "run command must start with python or torchrun, got 'bash x.py'", USAGE),
    ("python", "run command 'python' must name the snippet file (FILE.py)", USAGE),
    ("python -u x.py", "run command 'python -u x.py' should be 'python FILE.py [ARGS...]'", USAGE),
    ("torchrun --nproc-per-node x.py", "run command flag '--nproc-per-node' has no value",
     "write it with '=', e.g. --nproc-per-node=2"),
    ("torchrun --nnodes x.py", "run command flag '--nnodes' has no value", "write it with '=', e.g. --nnodes=2"),
    ("torchrun --max_restarts x.py", "run command flag '--max_restarts' has no value",
     "write it with '=', e.g. --max-restarts=2"),
    ("torchrun --nproc-per-node=2 --master-port=1 x.py", "torchrun option '--master-port=1' is not supported by the engine",
     "supported before the file name: --standalone, --nproc-per-node=N, --nnodes=N, --max-restarts=N (with '='); "
     "words after the file name are the script's arguments"),
]


@pytest.mark.parametrize("command,problem,fix", BAD_COMMANDS, ids=[c or "empty" for c, _, _ in BAD_COMMANDS])
def test_a_wrong_run_line_is_refused_with_its_location_problem_and_fix(command, problem, fix):
    error = error_of(lambda: options_from_command(command, WHERE))
    assert (error.problem, error.fix) == (problem, fix)


READER = [
    ({}, "python x.py"),
    ({"args": "50 'a b'"}, "python x.py 50 'a b'"),
    (TORCH, "torchrun --standalone --nproc-per-node=2 x.py"),
    ({**TORCH, "max-restarts": "2", "args": "--epochs 3"}, "torchrun --standalone --nproc-per-node=2 --max-restarts=2 x.py --epochs 3"),
    ({**TORCH, "nnodes": "2"}, "torchrun --nnodes=2 --rdzv-backend=c10d --rdzv-endpoint=<host>:29400 --rdzv-id=<job-id> "
                               "--nproc-per-node=2 x.py"),
]


@pytest.mark.parametrize("attrs,command", READER, ids=[c for _, c in READER])
def test_the_reader_is_shown_the_exact_command_to_type(attrs, command):
    assert apply_options(BlockOptions(), attrs, WHERE).reader_command("x.py") == command


def test_every_setting_that_can_change_the_output_is_in_the_key_and_display_is_not():
    base = BlockOptions()
    changed = [
        {"launch": "torchrun", "nproc": "2"}, {**TORCH, "nnodes": "2"}, {**TORCH, "max-restarts": "1"},
        {"expect": "fail"}, {"expect": "fail", "raises": "ValueError"}, {"device": "any"}, {"device": "any", "gpus": "2"},
        {"backend": "gloo"}, {"fresh": "true"}, {"threads-at-exit": "expected"}, {"args": "1"},
    ]
    keys = [apply_options(base, attrs, WHERE).launch_key() for attrs in changed]
    assert all(key != base.launch_key() for key in keys)
    assert len({repr(sorted(k.items())) for k in keys}) == len(keys)     # each setting changes the key its own way
    from dataclasses import replace
    assert replace(base, outcome_any=True).launch_key() != base.launch_key()
    for attrs in ({"title": "t"}, {"anchor": "a"}, {"timeout": "9"}, {"skip": "why"}):
        assert apply_options(base, attrs, WHERE).launch_key() == base.launch_key()


def test_gpu_states():
    assert not parsed(device="cuda").runs_on_cpu_build and parsed(device="cuda").needs_gpu_record
    assert parsed(device="any").runs_on_cpu_build and parsed(device="any").needs_gpu_record
    skipped = parsed(device="any", skip="later")
    assert not skipped.runs_on_cpu_build and not skipped.needs_gpu_record
