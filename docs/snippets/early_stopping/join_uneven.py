#| run: torchrun --standalone --nproc-per-node=2 join_uneven.py join
"""Uneven numbers of batches per rank, with and without DDP's join() context manager."""
import sys
from contextlib import nullcontext
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

mode = sys.argv[1]                                   # "join" or "nojoin"
dist.init_process_group("gloo", timeout=timedelta(seconds=5))   # short, to fail fast
rank = dist.get_rank()
torch.manual_seed(0)
ddp = DDP(nn.Linear(4, 1))
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
torch.manual_seed(rank)                              # each rank its own batches
batches = [torch.randn(3, 4) for _ in range(2 if rank == 0 else 4)]


def checksum(module):
    return sum(p.double().sum().item() for p in module.state_dict().values())


# --8<-- [start:body]
with ddp.join() if mode == "join" else nullcontext():
    for step, x in enumerate(batches):               # rank 0: 2 batches, rank 1: 4
        opt.zero_grad()
        ddp(x).pow(2).mean().backward()
        opt.step()
        print(f"rank {rank} ({mode}): step {step} done")
    print(f"rank {rank}: out of batches, checksum {checksum(ddp.module):.6f}")
print(f"rank {rank}: after the loop, checksum {checksum(ddp.module):.6f}")
dist.barrier()                                       # end of training
# --8<-- [end:body]
dist.destroy_process_group()
