"""Run every torchrun block of the site N times in a row (default 20) and report any failure.

Flaky exits (a rank aborting at interpreter exit after printing correct output)
show up only over many runs, so this is a script to run on demand, not part of
every build:

    .venv/bin/python tools/repeat_torchrun_blocks.py            # 20 rounds
    .venv/bin/python tools/repeat_torchrun_blocks.py --rounds 5 --only ddp/

It runs blocks through the same launcher as the build (no cache), and exits 1
if any run did not end the way its page says.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpguide.engine import Engine, check_outcome  # noqa: E402
from dpguide.errors import BlockFailed  # noqa: E402
from dpguide.launch import Job, run_job  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--only", default="", help="only blocks whose label contains this text")
    parser.add_argument("--jobs", type=int, default=1, help="blocks run at the same time (default 1)")
    args = parser.parse_args()
    engine = Engine(Path(__file__).resolve().parents[1], log=lambda m: None)
    blocks = [b for b in engine.collect() if b.options.launch == "torchrun" and b.options.runs_on_cpu_build
              and args.only in b.label]
    failures: Counter = Counter()
    started = time.monotonic()

    def one(block, round_number) -> bool:
        """Run the block once; True if it ended the way its page says."""
        job = Job(block.key, block.label, block.files, block.script, block.options)
        result = run_job(job, engine.scratch_root / f"r{round_number}", engine.block_env, None, engine.live)
        try:
            check_outcome(block, result)
            return True
        except BlockFailed as exc:
            report = "\n".join("    " + line for line in str(exc).splitlines())
            print(f"round {round_number}: FAILED {block.label}\n{report}", flush=True)
            return False

    for round_number in range(1, args.rounds + 1):
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            passed = list(pool.map(lambda b: one(b, round_number), blocks))
        failures.update(b.label for b, ok in zip(blocks, passed) if not ok)
        print(f"round {round_number}/{args.rounds}: {len(blocks)} torchrun blocks, "
              f"{sum(failures.values())} failure(s) so far, {time.monotonic() - started:.0f} s", flush=True)
    print(f"\n{len(blocks)} blocks x {args.rounds} rounds = {len(blocks) * args.rounds} runs; "
          f"{sum(failures.values())} failed")
    for label, count in failures.most_common():
        print(f"  {count:3d}  {label}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
