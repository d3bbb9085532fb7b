#| run: python legacy_launch.py
"""The old launcher next to torchrun: which one passes --local-rank, which sets LOCAL_RANK."""
import argparse
import os
import subprocess
import sys

if "RANK" in os.environ:                     # a worker started by one of the launchers below
    # --8<-- [start:worker]
    parser = argparse.ArgumentParser()
    parser.add_argument("--local-rank", "--local_rank", type=int, default=None)
    args = parser.parse_args()
    env_value = os.environ.get("LOCAL_RANK")
    print(f"argv={sys.argv[1:]} args.local_rank={args.local_rank} LOCAL_RANK={env_value}")
    # --8<-- [end:worker]
    sys.exit(0)

# --8<-- [start:body]
launchers = {
    "python -m torch.distributed.launch":
        [sys.executable, "-m", "torch.distributed.launch"],
    "torchrun": [sys.executable, "-m", "torch.distributed.run"],
}
for name, launcher in launchers.items():
    cmd = launcher + ["--standalone", "--nproc-per-node=2", __file__]
    done = subprocess.run(cmd, capture_output=True, text=True)
    print(f"=== {name} (exit code {done.returncode})")
    print("".join(sorted(done.stdout.splitlines(keepends=True))), end="")
    warnings = [line for line in done.stderr.splitlines() if "Warning" in line]
    for line in warnings:
        print("stderr:", line.split("site-packages/")[-1])
# --8<-- [end:body]
