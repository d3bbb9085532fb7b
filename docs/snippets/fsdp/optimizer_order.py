#| run: python optimizer_order.py
"""fully_shard replaces the parameters: an optimizer built before it updates the old ones."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
x = torch.randn(32, 4, generator=torch.Generator().manual_seed(0))
y = x.sum(dim=1, keepdim=True)


def train(optimizer_first):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    if optimizer_first:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)   # holds the plain parameters...
        fully_shard(model)                                        # ...which this replaces
    else:
        fully_shard(model)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)   # holds the sharded ones
    losses = []
    for step in range(4):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


# --8<-- [start:body]
print("optimizer, then fully_shard:", train(optimizer_first=True))
print("fully_shard, then optimizer:", train(optimizer_first=False))
# --8<-- [end:body]
dist.destroy_process_group()
