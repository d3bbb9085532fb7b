#| run: torchrun --standalone --nproc-per-node=2 early_exit.py
"""Rank 1 has one batch less than rank 0, finishes its loop and ends its process."""
import time
from datetime import timedelta

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=30))
rank = dist.get_rank()
# --8<-- [start:body]
batches = 3 if rank == 0 else 2              # the bug: uneven data
for step in range(batches):
    t = torch.ones(1)
    print(f"rank {rank}: step {step} all_reduce", flush=True)
    start = time.monotonic()
    try:
        dist.all_reduce(t)
    except RuntimeError:
        print(f"rank {rank}: RuntimeError after {time.monotonic() - start:.1f} s "
              "(the timeout is 30 s)", flush=True)
        raise
print(f"rank {rank}: done, leaving", flush=True)
dist.destroy_process_group()                 # rank 1 ends here, rank 0 never does
# --8<-- [end:body]
