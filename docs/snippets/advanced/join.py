#| run: torchrun --standalone --nproc-per-node=2 join.py
"""Uneven inputs with DDP's join(): the rank that runs out keeps answering the others' all-reduces.
"""
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
model = nn.Linear(4, 1)
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)
batches = 3 if rank == 0 else 5              # rank 0 has fewer batches than rank 1
data = [torch.randn(64, 4) for _ in range(batches)]

# --8<-- [start:body]
# ranks that finish early shadow the others' collectives
with ddp_model.join():
    for step, x in enumerate(data):
        y = x.sum(1, keepdim=True)
        plain = copy.deepcopy(model)         # to compute this rank's own gradient, for the check
        nn.functional.mse_loss(plain(x), y).backward()
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(ddp_model(x), y)
        loss.backward()
        optimizer.step()
        ratio = (model.weight.grad / plain.weight.grad).mean().item()
        print(f"rank {rank}: step {step} loss {loss.item():.4f}"
              + (f", DDP grad / own grad = {ratio:.2f}" if step >= 3 else ""))
print(f"rank {rank}: left join() after {batches} batches")
# --8<-- [end:body]

flat = torch.cat([p.detach().flatten() for p in model.parameters()])
copies = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(copies, flat)
if rank == 0:
    print("replicas identical after join:", all(torch.equal(copies[0], c) for c in copies))

dist.barrier()
dist.destroy_process_group()
