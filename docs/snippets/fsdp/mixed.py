#| run: python mixed.py
"""A sharded parameter is a DTensor: mixing it with a plain tensor is refused."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
torch.manual_seed(0)
model = nn.Linear(4, 1)
expected = model.weight.detach().clone()     # a plain tensor
fully_shard(model)
print(type(model.weight).__name__, "vs", type(expected).__name__)
print("full_tensor():", torch.equal(model.weight.full_tensor(), expected))   # the right way
print("times a one-element tensor:", type(model.weight * torch.tensor(2.0)).__name__)
try:
    torch.equal(model.weight, expected)      # a DTensor and a plain tensor in one operation
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
