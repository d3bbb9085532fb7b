"""Run every torchrun block twice, with fresh workers and with forked ones, and compare what they print.

The engine forks torchrun's agent and each rank from a warm interpreter that has already imported
torch (and, for some kinds of program, what they import: ``launch.server_kind``); each block here
forks from the server the build would give it. This script shows that a page would say the same
thing either way:

    .venv/bin/python tools/compare_rank_launch.py               # every torchrun block of the site
    .venv/bin/python tools/compare_rank_launch.py --only ddp/   # blocks whose label contains ddp/

For each block it runs both ways (no cache), checks both against the page (expected success or
failure), and compares each output tab after replacing every run of digits with ``#`` (pids, ports,
times and losses of a timing-dependent run may differ; words may not). It prints a diff for each
block that differs, the time of each way, and exits 1 if any block failed or differed.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpguide.engine import Engine, check_outcome, shared_forkserver  # noqa: E402
from dpguide.errors import BlockFailed  # noqa: E402
from dpguide.launch import Job, run_job, server_kind  # noqa: E402


def shape(result) -> list[str]:
    """What a page shows, per source, with digits blurred."""
    lines = sorted(result.lines, key=lambda line: line.source)  # stable: capture order within a source
    return [f"[{line.source}/{line.stream}] " + re.sub(r"\d+", "#", line.text) for line in lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[],
                        help="only blocks whose label contains this text (may be given more than once)")
    args = parser.parse_args()
    engine = Engine(Path(__file__).resolve().parents[1], log=lambda m: None)
    blocks = [b for b in engine.collect() if b.options.launch == "torchrun" and b.options.runs_on_cpu_build
              and not b.options.fresh and (not args.only or any(o in b.label for o in args.only))]
    bad, times = 0, {"fresh": 0.0, "forked": 0.0}
    for block in blocks:
        outputs = {}
        forkserver = shared_forkserver(engine.block_env, server_kind(block.files, block.options.launch))
        forkserver.ensure_started()   # its start is not the block's time
        for way, server in (("fresh", None), ("forked", forkserver)):
            options = block.options if server else replace(block.options, fresh=True)
            job = Job(block.key, block.label, block.files, block.script, options)
            started = time.monotonic()
            result = run_job(job, engine.scratch_root, engine.block_env, server, engine.live)
            times[way] += time.monotonic() - started
            try:
                check_outcome(block, result)
            except BlockFailed as exc:
                print(f"{block.label}: {way} run FAILED: {str(exc).splitlines()[0]}", flush=True)
                bad += 1
            outputs[way] = shape(result)
        if outputs["fresh"] != outputs["forked"]:
            bad += 1
            print(f"{block.label}: output differs", flush=True)
            sys.stdout.writelines(line + "\n" for line in difflib.unified_diff(
                outputs["fresh"], outputs["forked"], "fresh workers", "forked workers", lineterm="", n=1))
        else:
            print(f"{block.label}: same (forked from the {server_kind(block.files, block.options.launch)} server)",
                  flush=True)
    print(f"{len(blocks)} torchrun blocks; {bad} failed or differed; "
          f"fresh workers {times['fresh']:.1f} s, forked {times['forked']:.1f} s "
          f"(ratio {times['forked'] / max(times['fresh'], 1e-9):.2f})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
