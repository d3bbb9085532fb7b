"""Shards of the block runs: disjoint, complete whatever N, balanced by recorded time, GPU blocks
only where GPUs are, and the same plan on every machine."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from dpguide.errors import GuideError
from dpguide.shards import parse_gpu_shards, parse_shard, plan_shards, recorded_seconds

pytestmark = pytest.mark.unit


def block(key: str, seconds: float, device: str = "cpu", skip: str | None = None):
    options = SimpleNamespace(skip=skip, device=device, runs_on_cpu_build=skip is None and device in ("cpu", "any"))
    return SimpleNamespace(key=key, seconds=seconds, options=options)


def site(count: int = 60, seed: int = 7):
    rng = random.Random(seed)
    return [block(f"k{i:03d}", round(rng.uniform(0.1, 30), 2)) for i in range(count)]


def seconds(b) -> float:
    return b.seconds


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 61, 100])
def test_shards_are_disjoint_and_together_complete_whatever_n(count):
    blocks = site()
    blocks.append(block("k000", 4.0))                    # a key twice (a quiz item and a page block): run once
    plan = plan_shards(blocks, count, seconds)
    flat = [key for keys in plan.keys for key in keys]
    assert len(flat) == len(set(flat)), "a block is in two shards"
    assert set(flat) == {b.key for b in blocks}
    assert len(plan.keys) == count


def test_longest_first_packing_keeps_the_shards_within_the_longest_block_of_each_other():
    blocks = site(200)
    plan = plan_shards(blocks, 4, seconds)
    assert max(plan.seconds) - min(plan.seconds) <= max(b.seconds for b in blocks)
    assert sum(plan.seconds) == pytest.approx(sum(b.seconds for b in blocks), abs=0.05)


def test_the_plan_depends_on_the_blocks_not_on_their_order():
    blocks = site()
    shuffled = blocks[:]
    random.Random(1).shuffle(shuffled)
    assert plan_shards(blocks, 3, seconds).keys == plan_shards(shuffled, 3, seconds).keys


def test_gpu_blocks_go_only_to_shards_with_gpus_and_skipped_blocks_nowhere():
    blocks = site(20) + [block("gpu1", 50, "cuda"), block("gpu2", 40, "cuda"), block("off", 9, skip="needs Slurm")]
    plan = plan_shards(blocks, 3, seconds, gpu_shards=(2,))
    assert plan.shard_of("gpu1") == plan.shard_of("gpu2") == 2
    assert plan.shard_of("off") is None
    without = plan_shards(blocks, 3, seconds)
    assert without.shard_of("gpu1") is None and without.shard_of("k001") is not None


def test_recorded_durations_come_from_the_record_and_a_guess_for_a_new_block():
    record = SimpleNamespace(runs={"old": SimpleNamespace(first=SimpleNamespace(duration=12.5))})
    seconds_of = recorded_seconds(record, content_key=lambda b: b.key, guess=lambda b: 1.0)
    assert seconds_of(block("old", 0)) == 12.5 and seconds_of(block("new", 0)) == 1.0
    assert recorded_seconds(None, lambda b: b.key, lambda b: 3.0)(block("old", 0)) == 3.0


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0", ""])
def test_a_bad_shard_says_what_is_expected(text):
    with pytest.raises(GuideError, match="expected K/N"):
        parse_shard(text)


def test_shard_and_gpu_shard_parsing():
    assert (parse_shard(" 2/3 ").index, parse_shard("2/3").count, str(parse_shard("2/3"))) == (2, 3, "2/3")
    assert parse_gpu_shards("3,1", 3) == (1, 3) and parse_gpu_shards(None, 3) == ()
    with pytest.raises(GuideError, match="between 1 and 2"):
        parse_gpu_shards("3", 2)
    with pytest.raises(GuideError, match="separated by commas"):
        parse_gpu_shards("one", 2)
