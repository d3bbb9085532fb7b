"""Block runs sharded over N machines against one machine's cold build, measured in one run.

    .venv/bin/python benchmarks/shard_speed.py            N = 2 (the CI matrix)
    .venv/bin/python benchmarks/shard_speed.py 2 3        several N, one after another

In a copy of the site: a cold strict build (every block, then the pages); then for each N, every
shard K/N (`dpguide run-all --shard K/N`) alone, each into a cache of its own, as N identical
machines would run them side by side; then `dpguide cache merge` of the N caches and a strict
build from the merged cache, which must run no block. The shards run one after another here, so
each takes what it would take alone on a machine like this one; side by side the wall time is
the slowest shard plus the merge and the build. Prints each step's seconds and that critical path
against the cold build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_speed import copy_site, machine_description  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DPGUIDE = [str(ROOT / ".venv" / "bin" / "python"), "-m", "dpguide.cli"]
MKDOCS = [str(ROOT / ".venv" / "bin" / "mkdocs"), "build", "--strict"]


def timed(command: list[str], cwd: Path, log: Path) -> tuple[float, str]:
    """Seconds ``command`` took (it must succeed) and its output."""
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    seconds = time.monotonic() - started
    with open(log, "a") as out:
        out.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:      # the log goes with the scratch folder: say what went wrong here
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return seconds, done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("counts", nargs="*", type=int, default=[2], help="shard counts to measure (default 2)")
    args = parser.parse_args()
    print(f"machine: {machine_description()}")
    with tempfile.TemporaryDirectory(prefix="dpguide-shard-speed-") as scratch:
        site, log = Path(scratch) / "site", Path(scratch) / "log.txt"
        copy_site(site)
        cold, _ = timed(MKDOCS + ["-d", str(Path(scratch) / "out")], site, log)
        rows = [("one machine: cold strict build", cold)]
        for count in args.counts:
            shutil.rmtree(site / ".cache", ignore_errors=True)
            caches, seconds = [], []
            for k in range(1, count + 1):
                cache = Path(scratch) / f"shard-{count}-{k}"
                took, _ = timed(DPGUIDE + ["run-all", "--shard", f"{k}/{count}", "--cache-dir", str(cache)], site, log)
                rows.append((f"{count} shards: shard {k}/{count} alone", took))
                caches.append(str(cache))
                seconds.append(took)
            merge, _ = timed(DPGUIDE + ["cache", "merge", *caches], site, log)
            build, said = timed(MKDOCS + ["-d", str(Path(scratch) / f"out-{count}")], site, log)
            if "nothing to run" not in said:
                sys.exit(f"the build from {count} merged shards ran blocks:\n{said[-3000:]}")
            rows += [(f"{count} shards: merge", merge), (f"{count} shards: strict build from the merged cache", build),
                     (f"{count} shards side by side: slowest shard + merge + build", max(seconds) + merge + build)]
        width = max(len(label) for label, _ in rows)
        print(f"{'step':<{width}}  {'seconds':>8}  {'x cold':>6}")
        for label, took in rows:
            print(f"{label:<{width}}  {took:8.0f}  {took / cold:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
