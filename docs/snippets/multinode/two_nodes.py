#| run: torchrun --nnodes=2 --nproc-per-node=2 two_nodes.py
"""Two nodes of two processes each: who is who, and the same DDP training loop across nodes."""
import os
import socket

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

env = {name: int(os.environ[name]) for name in
       ["RANK", "LOCAL_RANK", "GROUP_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"]}
print(" ".join(f"{k}={v}" for k, v in env.items()) + f" host={socket.gethostname()}")

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# --8<-- [start:layout]
me = torch.tensor([env["GROUP_RANK"], env["LOCAL_RANK"]])
layout = [torch.zeros(2, dtype=me.dtype) for _ in range(world)]
dist.all_gather(layout, me)                  # every rank learns where every other rank lives
if rank == 0:
    print("global rank -> (node, local rank):",
          {r: tuple(t.tolist()) for r, t in enumerate(layout)})
if env["LOCAL_RANK"] == 0:                   # one process per node: per-node work (local disk, ...)
    print(f"node {env['GROUP_RANK']}: local rank 0 is global rank {rank}")
# --8<-- [end:layout]

# --8<-- [start:train]
torch.manual_seed(0)
x = torch.randn(64, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(64, 1)
xs, ys = x[rank::world], y[rank::world]      # each of the 4 ranks a quarter of the data
ddp_model = DDP(nn.Linear(3, 1))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.2)
for step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(xs), ys)
    loss.backward()                          # the all-reduce spans both nodes
    optimizer.step()
    avg = loss.detach().clone()
    dist.all_reduce(avg)
    if rank == 0:
        print(f"step {step}: loss averaged over {world} ranks on 2 nodes {avg.item() / world:.4f}")
# --8<-- [end:train]

dist.barrier()
dist.destroy_process_group()
