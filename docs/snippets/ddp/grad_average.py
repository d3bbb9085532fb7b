#| run: torchrun --standalone --nproc-per-node=2 grad_average.py
"""Proof that DDP's gradient is the average of the per-rank gradients, on every rank."""
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# --8<-- [start:body]
torch.manual_seed(0)
model = nn.Linear(3, 1)
plain = copy.deepcopy(model)                 # an un-wrapped copy: computes this rank's own gradient
ddp_model = DDP(model)

torch.manual_seed(100 + rank)                # each rank gets different data
x, y = torch.randn(4, 3), torch.randn(4, 1)

nn.functional.mse_loss(plain(x), y).backward()       # local gradient only, no communication
nn.functional.mse_loss(ddp_model(x), y).backward()   # DDP averages gradients during backward

local = plain.weight.grad
synced = ddp_model.module.weight.grad
print(f"rank {rank}: local grad {[round(v, 4) for v in local.flatten().tolist()]}")
print(f"rank {rank}: DDP grad   {[round(v, 4) for v in synced.flatten().tolist()]}")

pairs = [("weight", plain.weight, model.weight), ("bias", plain.bias, model.bias)]
for name, p_local, p_ddp in pairs:
    everyone = [torch.zeros_like(p_local.grad) for _ in range(world)]
    dist.all_gather(everyone, p_local.grad)  # collect every rank's local gradient
    average = torch.stack(everyone).mean(dim=0)
    same = torch.allclose(p_ddp.grad, average)
    print(f"rank {rank}: {name} DDP grad == mean of local grads: {same}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
