"""How often a 2-rank gloo job fails to create its group when a rank destroys it right after creating it.

`init_process_group` has no barrier at its end (torch added `TORCH_DIST_INIT_BARRIER=1` to bring it
back): a rank returns as soon as its own side of every connection is made. If it then destroys the
group at once, it can close a connection its peer is still setting up, and the peer's
`init_process_group` raises `RuntimeError: Gloo connectFullMesh failed with ... Connection closed by
peer`. This runs plain `torchrun --standalone --nproc-per-node=2` (no engine) on two programs, many
at a time with busy loops beside them, and prints how many runs of each failed that way:

    .venv/bin/python tools/init_race.py            # 72 runs of each program, 6 at a time

  destroy right away:      init_process_group, print, destroy_process_group
  barrier, then destroy:   the same with dist.barrier() before destroy_process_group
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROGRAMS = {
    "destroy right away": "import torch.distributed as dist\n"
                          "dist.init_process_group('gloo')\n"
                          "print('rank', dist.get_rank(), 'connected')\n"
                          "dist.destroy_process_group()\n",
    "barrier, then destroy": "import torch.distributed as dist\n"
                             "dist.init_process_group('gloo')\n"
                             "print('rank', dist.get_rank(), 'connected')\n"
                             "dist.barrier()\n"
                             "dist.destroy_process_group()\n",
}
CLOSED = "Connection closed by peer"


OUTCOMES = ("ok", "closed by peer, the peer finished", "closed by peer, both failed", "other failure")


def run_once(script: Path) -> str:
    """One of OUTCOMES. "the peer finished": one rank raised the error, the other printed its line and
    torchrun's report lists no other failure."""
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
                           str(script)], capture_output=True, text=True, timeout=300)
    if done.returncode == 0:
        return "ok"
    output = done.stdout + done.stderr
    if CLOSED not in output:
        return "other failure"
    if "<NO_OTHER_FAILURES>" in output and done.stdout.count(" connected") == 1:
        return "closed by peer, the peer finished"
    return "closed by peer, both failed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=72, help="runs of each program (default 72)")
    parser.add_argument("--jobs", type=int, default=6, help="runs at the same time (default 6)")
    parser.add_argument("--burners", type=int, default=2, help="busy-loop processes beside them (default 2)")
    args = parser.parse_args()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]
    try:
        with tempfile.TemporaryDirectory(prefix="init-race-") as folder:
            for name, code in PROGRAMS.items():
                script = Path(folder) / "program.py"
                script.write_text(code)
                started = time.monotonic()
                with ThreadPoolExecutor(max_workers=args.jobs) as pool:
                    outcomes = list(pool.map(lambda _: run_once(script), range(args.runs)))
                counts = {kind: outcomes.count(kind) for kind in OUTCOMES}
                print(f"{name}: {args.runs} runs, {args.jobs} at a time, {args.burners} busy loops beside, "
                      f"{time.monotonic() - started:.0f} s", flush=True)
                for kind, n in counts.items():
                    print(f"  {kind:34s} {n:3d}", flush=True)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
