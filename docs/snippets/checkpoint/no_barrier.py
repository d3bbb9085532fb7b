#| run: torchrun --standalone --nproc-per-node=2 no_barrier.py
"""Rank 1 reads the checkpoint without waiting for rank 0 to write it."""
import time

import torch
import torch.distributed as dist
from torch import nn

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:bug]
model = nn.Linear(4, 1)
if rank == 0:
    time.sleep(1.0)                          # stands for a large model taking a while to write
    torch.save(model.state_dict(), "checkpoint.pt")
# missing: dist.barrier()
state = torch.load("checkpoint.pt", map_location="cpu")   # rank 1 gets here first
# --8<-- [end:bug]
dist.barrier()
dist.destroy_process_group()
