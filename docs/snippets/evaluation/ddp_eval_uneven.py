#| run: torchrun --standalone --nproc-per-node=2 ddp_eval_uneven.py no_grad
"""Unequal eval shares through a DDP model with buffers, with and without no_grad."""
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

mode = sys.argv[1]                               # "no_grad" or "grad"
dist.init_process_group("gloo", timeout=timedelta(seconds=5))   # short, to fail fast
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))).eval()

# --8<-- [start:body]
batches = 2 if rank == 0 else 1          # unpadded shares: rank 0 has one batch more
with torch.set_grad_enabled(mode == "grad"):
    for b in range(batches):
        ddp_model(torch.randn(3, 4))
        print(f"rank {rank} ({mode}): batch {b} done")
# --8<-- [end:body]

if mode == "grad" and rank == 1:
    time.sleep(8)                        # alive, but makes no further collective call
else:
    dist.barrier()
dist.destroy_process_group()
