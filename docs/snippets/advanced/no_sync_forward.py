#| run: torchrun --standalone --nproc-per-node=2 no_sync_forward.py
"""no_sync() decides at forward time: what counts is where the forward runs, not the backward."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def agree(t):
    """Do all ranks hold the same tensor? (gathers every rank's copy)"""
    copies = [torch.zeros_like(t) for _ in range(world)]
    dist.all_gather(copies, t)
    return all(torch.equal(copies[0], c) for c in copies)


torch.manual_seed(0)
ddp_model = DDP(nn.Linear(3, 1))
torch.manual_seed(10 + rank)                 # different data on each rank
x = torch.randn(8, 3)
# --8<-- [start:body]
# 1. forward outside no_sync, backward inside it
ddp_model.zero_grad()
loss = ddp_model(x).sum()
with ddp_model.no_sync():
    loss.backward()
same = agree(ddp_model.module.weight.grad)
print(f"rank {rank}: forward outside, backward inside: grads equal on all ranks? {same}")

# 2. forward inside no_sync, backward outside it
ddp_model.zero_grad()
with ddp_model.no_sync():
    loss = ddp_model(x).sum()
loss.backward()
same = agree(ddp_model.module.weight.grad)
print(f"rank {rank}: forward inside, backward outside: grads equal on all ranks? {same}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
