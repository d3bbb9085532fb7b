#| run: torchrun --standalone --nproc-per-node=2 dropout_seeds.py
"""Dropout masks per rank: the same seed everywhere gives every rank the same masks."""
import torch
import torch.distributed as dist
from torch import nn

dist.init_process_group("gloo")
rank = dist.get_rank()
drop = nn.Dropout(p=0.5)
ones = torch.ones(10)

# --8<-- [start:body]
torch.manual_seed(0)                     # one seed for all ranks: right for the init...
mask = (drop(ones) > 0).int().tolist()
print(f"rank {rank}: seed 0 everywhere  mask {mask}")

torch.manual_seed(1000 + rank)           # ...then a per-rank seed for dropout
mask = (drop(ones) > 0).int().tolist()
print(f"rank {rank}: seed 1000 + rank   mask {mask}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
