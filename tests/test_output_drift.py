"""The noise filter: pairs of lines that must compare equal (noise only) or not.

The pairs here are in the shapes this site's runs print (torchrun's failure summary, tracebacks
through torch, C++ log lines), the second of each pair changed only where another run changes it;
tests/data/real_line_pairs.json holds pairs harvested from real runs (this build's and the committed
release records', by tools/harvest_line_pairs.py, reviewed by eye): the filter must blur its
"noise" pairs alike and keep its "real" pairs apart.
Blurring too much (a changed number or exception hidden) fails the second half.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpguide.output_drift import NOISE, blur, differing_lines, first_difference, same_output, shown_lines
from unit_blocks import line, result_of

pytestmark = pytest.mark.unit

#: (first run's line, second run's line): the same output, only noise differs
NOISE_ONLY = [
    ("  time      : 2026-12-06_13:33:17", "  time      : 2026-12-06_14:02:51"),
    ("  exitcode  : 1 (pid: 8980) ", "  exitcode  : 1 (pid: 11342) "),
    ('  File "<site-packages>/torch/cuda/__init__.py", line 776, in set_device',
     '  File "<site-packages>/torch/cuda/__init__.py", line 781, in set_device'),
    ("[W1206 13:33:17.123456789 ProcessGroupGloo.cpp:516] Warning: Unable to resolve hostname",
     "[W1206 14:01:02.987654321 ProcessGroupGloo.cpp:519] Warning: Unable to resolve hostname"),
    ("rank 0 listening on localhost:29500", "rank 0 listening on localhost:41873"),
    ("failed to listen on any local network address. port: 29500, useIpv6: false",
     "failed to listen on any local network address. port: 40117, useIpv6: false"),
    ("epoch 1 took 0.31 s", "epoch 1 took 0.29 s"),
    ("<torch.utils.data.dataloader.DataLoader object at 0x7f3a2c1b9d50>",
     "<torch.utils.data.dataloader.DataLoader object at 0x7f11de0a4e90>"),
    ("<site-packages>/torch/distributed/checkpoint/utils.py:488: UserWarning: torch.distributed is disabled",
     "<site-packages>/torch/distributed/checkpoint/utils.py:463: UserWarning: torch.distributed is disabled"),
    ("weight id before .to(torch.float64): 139926003813744", "weight id before .to(torch.float64): 140245458934256"),
    ("wrote /tmp/dpguide-run/abc123/ckpt.pt", "wrote /tmp/dpguide-run/f00d42/ckpt.pt"),
    ("[rank0]:                   ^^^^^^^^^^^", "[rank0]:                   ^^^^^^^"),
    ("failed (exitcode: 1) local_rank: 1 (pid: 88) of binary: <venv>/bin/python3",
     "failed (exitcode: 1) local_rank: 1 (pid: 91) of binary: <venv>/bin/python"),
    ('  File "/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main',
     '  File "<stdlib>/multiprocessing/spawn.py", line 122, in spawn_main'),
]

#: (one release's line, another's): a real difference, which must survive the filter
REAL_DIFFERENCES = [
    ("RuntimeError: Found no NVIDIA driver on your system.", "AssertionError: Torch not compiled with CUDA enabled"),
    ("loss after step 3: 0.4183", "loss after step 3: 0.4191"),
    ("world size 4, rank 2", "world size 2, rank 2"),
    ("  .metadata       5654 bytes", "  .metadata       5602 bytes"),
    ("tensor([0., 1., 2.])", "tensor([0., 1., 3.])"),
    ("cuda available here: False | GPUs here: 0", "cuda available here: False | GPUs here: 1"),
    ('  File "block.py", line 3, in <module>', '  File "block.py", line 4, in <module>'),
    ("of binary: <venv>/bin/python3", "of binary: /usr/bin/python3"),
    ('  File "<stdlib>/multiprocessing/spawn.py", line 122, in spawn_main',
     '  File "/usr/lib/python3.11/multiprocessing/popen_fork.py", line 122, in spawn_main'),
    ('  File "/usr/lib/python3.11/site-packages/torch/x.py", line 1, in f', '  File "<stdlib>/torch/x.py", line 1, in f'),
]


@pytest.mark.parametrize("a, b", NOISE_ONLY)
def test_noise_is_blurred_alike(a, b):
    assert a != b and blur(a) == blur(b)


@pytest.mark.parametrize("a, b", REAL_DIFFERENCES)
def test_a_real_difference_survives(a, b):
    assert blur(a) != blur(b)


def test_every_noise_rule_is_needed_by_a_pair():
    """Each rule of NOISE blurs at least one real pair that differs without it (no rule is dead weight)."""
    for what, pattern, _ in NOISE:
        assert any(pattern.search(a) or pattern.search(b) for a, b in NOISE_ONLY), what


def test_the_order_in_which_ranks_interleave_is_not_compared():
    a = result_of([line("rank 0", "hello from 0"), line("rank 1", "hello from 1")])
    b = result_of([line("rank 1", "hello from 1"), line("rank 0", "hello from 0")])
    assert same_output(a, b) and shown_lines(a) == {"rank 0": ["hello from 0"], "rank 1": ["hello from 1"]}


def test_the_order_within_one_rank_is_compared():
    a = result_of([line("rank 0", "step 1"), line("rank 0", "step 2")])
    b = result_of([line("rank 0", "step 2"), line("rank 0", "step 1")])
    assert not same_output(a, b) and first_difference(a, b) == "rank 0, line 1: 'step 1' vs 'step 2'"


def test_another_ending_is_a_difference_even_with_the_same_lines():
    a = result_of([line("python", "done")], launch="python", returncode=0)
    b = result_of([line("python", "done")], launch="python", returncode=1)
    assert not same_output(a, b) and first_difference(a, b).startswith("ends differently")


def test_styles_of_the_terminal_do_not_count():
    a = result_of([line("python", "\x1b[1mRuntimeError\x1b[0m: boom")], launch="python")
    b = result_of([line("python", "RuntimeError: boom")], launch="python")
    assert same_output(a, b)


REAL = json.loads((Path(__file__).parent / "data" / "real_line_pairs.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("pair", REAL["noise"], ids=lambda p: p["a"][:40])
def test_real_noise_from_two_runs_is_blurred_alike(pair):
    assert pair["a"] != pair["b"] and blur(pair["a"]) == blur(pair["b"]), pair["block"]


@pytest.mark.parametrize("pair", REAL["real"], ids=lambda p: p["a"][:40])
def test_real_differences_between_two_runs_survive(pair):
    assert blur(pair["a"]) != blur(pair["b"]), pair["block"]


def test_the_harvest_covers_most_rules():
    """Real noise pairs exist for nearly every rule (a rule no real run needs is a guess)."""
    used = {what for what, pattern, _ in NOISE for p in REAL["noise"] if pattern.search(p["a"])}
    assert len(used) >= len({what for what, _, _ in NOISE}) - 1


def test_differing_lines_marks_the_changed_and_the_added_lines_only():
    build = result_of([line("rank 0", "loss 0.42"), line("rank 1", "loss 0.42"), line("rank 0", "done")])
    other = result_of([line("rank 0", "loss 0.42"), line("rank 1", "loss 0.51"), line("rank 0", "done"),
                       line("rank 0", "UserWarning: new in this release")])
    assert differing_lines(build, other) == {1, 3}


def test_differing_lines_ignores_noise_and_the_order_ranks_interleave_in():
    build = result_of([line("rank 0", "a"), line("rank 1", "b"), line("rank 0", "took 0.3 s (pid 12)")])
    other = result_of([line("rank 1", "b"), line("rank 0", "a"), line("rank 0", "took 0.5 s (pid 99)")])
    assert differing_lines(build, other) == set()
