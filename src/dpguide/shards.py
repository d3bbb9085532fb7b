"""Block runs split across machines: shard K of N, bin-packed by recorded run times.

Every machine that takes part computes the same plan from the same inputs: the site's blocks and
the durations committed in the build's own release record (a guess from the code for a block it
does not hold). Nothing machine-local (such as a cache's timings) goes in, so shard 1 on one runner
and shard 2 on another never both take, or both miss, a block. The plan is greedy longest-first:
each block, longest first, goes to the shard with the least recorded time so far (ties to the
lowest shard). Blocks that need a GPU are packed only over the shards named as having GPUs; with
none named they belong to no shard (the GPU-records job runs them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import GuideError


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/3"`` -> Shard(2, 3); anything else is a GuideError saying what is expected."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise GuideError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. --shard 1/2")
    return Shard(int(match[1]), int(match[2]))


def parse_gpu_shards(text: str | None, count: int) -> tuple[int, ...]:
    """``"1,3"`` -> (1, 3): the shards whose machines have GPUs, each within 1..count."""
    if not text:
        return ()
    try:
        shards = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise GuideError(f"--gpu-shards {text!r}: expected shard numbers separated by commas, e.g. 1,2") from None
    if any(not 1 <= index <= count for index in shards):
        raise GuideError(f"--gpu-shards {text!r}: every shard is between 1 and {count}")
    return shards


@dataclass
class Plan:
    """Which unique block keys each shard runs, and the recorded seconds it adds up to."""

    keys: list[list[str]]
    seconds: list[float]

    def shard_of(self, key: str) -> int | None:
        """The 1-based shard that runs ``key``, or None (a block no shard runs)."""
        return next((i + 1 for i, keys in enumerate(self.keys) if key in keys), None)


def plan_shards(blocks, count: int, seconds_of, gpu_shards: tuple[int, ...] = ()) -> Plan:
    """Pack the blocks' unique keys into ``count`` shards, longest first (see the module's docstring).

    ``seconds_of(block)`` is the recorded (or guessed) run time. Skipped blocks run nowhere."""
    if count < 1:
        raise GuideError("a plan needs at least one shard")
    unique: dict[str, object] = {}
    for block in blocks:
        if block.options.skip is None:
            unique.setdefault(block.key, block)
    keys: list[list[str]] = [[] for _ in range(count)]
    load = [0.0] * count
    cpu_shards = tuple(range(1, count + 1))
    for key, block in sorted(unique.items(), key=lambda item: (-seconds_of(item[1]), item[0])):
        allowed = cpu_shards if block.options.runs_on_cpu_build else gpu_shards
        if not allowed:
            continue
        target = min(allowed, key=lambda index: (load[index - 1], index))
        keys[target - 1].append(key)
        load[target - 1] += seconds_of(block)
    return Plan(keys, [round(total, 2) for total in load])


def recorded_seconds(own_record, content_key, guess):
    """``seconds_of`` for ``plan_shards``: the first run's duration in the build's own release
    record (committed, so the same on every machine), else ``guess(block)``."""
    def seconds_of(block) -> float:
        runs = own_record.runs.get(content_key(block)) if own_record is not None else None
        return runs.first.duration if runs is not None else guess(block)
    return seconds_of
