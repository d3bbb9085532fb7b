#| run: torchrun --standalone --nproc-per-node=3 monitored_barrier.py
"""Rank 2 never reaches the barrier: monitored_barrier on rank 0 names it."""
import time
from datetime import timedelta

import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:body]
if rank == 2:
    time.sleep(6)                            # rank 2 is stuck elsewhere and never arrives in time
dist.monitored_barrier(timeout=timedelta(seconds=2))
print(f"rank {rank} passed the barrier")
# --8<-- [end:body]
dist.destroy_process_group()
