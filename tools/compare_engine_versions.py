"""What changed in shown output between two engine versions, block by block, from the build cache.

    .venv/bin/python tools/compare_engine_versions.py 8 11

Both versions must have built the site into this project's cache (`.cache/dpguide`); a block's key
differs only by the engine version. Digits are blurred (timings, pids, ports, random values), so a
block is reported when its lines differ in anything else, or when its exit status differs. Blocks
whose lines are the same but in another order are counted (torchrun blocks merged in another order).
Run it after an engine change, before trusting that the change did not alter what a page shows.

    .venv/bin/python tools/compare_engine_versions.py 12 13 --old-tree /tmp/old

compares across a change of the examples too: the old version's blocks come from a checkout of the
commit it built (`git worktree add /tmp/old COMMIT`), and are matched to today's by page and by
their place on the page (the n-th block of a page against the n-th).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import dpguide.blocks as blocks_module  # noqa: E402
from dpguide.blocks import compute_key  # noqa: E402
from dpguide.engine import Engine  # noqa: E402


def shape(result) -> list[str]:
    return [f"[{line.source}/{line.stream}] " + re.sub(r"0x[0-9a-f]+", "0x?", re.sub(r"\d+", "#", line.text))
            for line in result.lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--old-tree", type=Path, help="a checkout of the commit the old version built")
    args = parser.parse_args()
    engine = Engine(ROOT, log=lambda *_: None)
    before = Engine(args.old_tree, cache_dir=ROOT / ".cache" / "dpguide", log=lambda *_: None) \
        if args.old_tree else engine
    counts: Counter = Counter()
    seen = set()
    for old_block, block in _pairs(before.collect(), engine.collect() if args.old_tree else None):
        if block.key in seen or not block.options.runs_on_cpu_build:
            continue
        seen.add(block.key)
        results = []
        for version, which in ((args.old, old_block), (args.new, block)):
            blocks_module.ENGINE_VERSION = version
            results.append(engine.cache.load(compute_key(which, engine.environment)))
        old, new = results
        if old is None or new is None:
            counts["not in the cache under both versions"] += 1
        elif (old.returncode, old.ended) != (new.returncode, new.ended):
            counts["exit differs"] += 1
            print(f"EXIT {block.label}: {old.returncode} ({old.ended}) -> {new.returncode} ({new.ended})")
        elif shape(old) == shape(new):
            counts["same"] += 1
        elif sorted(shape(old)) == sorted(shape(new)):
            counts["same lines, another order"] += 1
        else:
            counts["lines differ"] += 1
            a, b = shape(old), shape(new)
            print(f"LINES {block.label}\n  only {args.old}: {[x for x in a if x not in b][:5]}"
                  f"\n  only {args.new}: {[x for x in b if x not in a][:5]}")
    print(", ".join(f"{name}: {count}" for name, count in counts.most_common()))
    return 0


def _pairs(old_blocks: list, new_blocks: list | None) -> list[tuple]:
    """(old block, new block): the same block, or with new blocks, the n-th of a page with the n-th."""
    if new_blocks is None:
        return [(block, block) for block in old_blocks]
    by_page: dict[str, list] = {}
    for block in old_blocks:
        by_page.setdefault(block.page, []).append(block)
    pairs, place = [], Counter()
    for block in new_blocks:
        olds = by_page.get(block.page, [])
        if place[block.page] < len(olds):
            pairs.append((olds[place[block.page]], block))
        place[block.page] += 1
    return pairs


if __name__ == "__main__":
    sys.exit(main())
