#| run: torchrun --standalone --nproc-per-node=3 plain_barrier.py
"""Rank 2 is late for a plain barrier: the gloo timeout error names no rank."""
import time
from datetime import timedelta

import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=5))  # the group's timeout
rank = dist.get_rank()
# --8<-- [start:body]
if rank == 2:
    time.sleep(10)                           # rank 2 is stuck elsewhere, longer than the timeout
dist.barrier()
print(f"rank {rank} passed the barrier")
# --8<-- [end:body]
dist.destroy_process_group()
