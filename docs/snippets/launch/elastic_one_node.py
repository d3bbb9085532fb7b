#| run: python elastic_one_node.py
"""--nnodes=1:2 with only one node started: the job runs once the last-call window closes."""
import os
import subprocess
import sys
import time

if "RANK" in os.environ:                     # a worker started by the torchrun below
    import torch.distributed as dist

    dist.init_process_group("gloo")
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}:"
          f" GROUP_RANK={os.environ['GROUP_RANK']}"
          f" GROUP_WORLD_SIZE={os.environ['GROUP_WORLD_SIZE']}")
    dist.destroy_process_group()
    sys.exit(0)

# --8<-- [start:body]
cmd = [sys.executable, "-m", "torch.distributed.run",
       "--nnodes=1:2",                      # at least 1 node, at most 2
       "--nproc-per-node=2",
       "--rdzv-backend=c10d",
       "--rdzv-endpoint=localhost:0",       # port 0: the store picks a free port
       "--rdzv-conf=last_call_timeout=1",   # wait 1 s for more nodes once 1 has joined
       __file__]
start = time.monotonic()
done = subprocess.run(cmd, capture_output=True, text=True)
print(f"exit code {done.returncode} after {time.monotonic() - start:.0f} s")
print("".join(sorted(done.stdout.splitlines(keepends=True))), end="")
if done.returncode != 0:                    # show why, instead of only a missing line
    errors = [line for line in done.stderr.splitlines() if "Error" in line]
    print("\n".join(errors[-3:]))
# --8<-- [end:body]
