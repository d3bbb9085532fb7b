#| run: torchrun --standalone --nproc-per-node=4 hsdp_cuda.py
"""HSDP on 4 GPUs: 2 replicas, each sharded over 2 GPUs, computing in bfloat16."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))   # one GPU per rank
dist.init_process_group("nccl")
rank = dist.get_rank()
mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("replicate", "shard"))
device = torch.device("cuda", torch.cuda.current_device())

torch.manual_seed(0)                         # the same initial weights on every rank
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for unit in (model[0], model[2], model):
    fully_shard(unit, mesh=mesh, mp_policy=policy)
w = model[0].weight
print(f"rank {rank} on {device}: coordinate {mesh.get_coordinate()}, {w.placements}, "
      f"local {tuple(w.to_local().shape)} on {w.to_local().device}")

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)                 # each rank its own data
x = torch.randn(32, 8, device=device)
for step in range(3):
    optimizer.zero_grad()
    loss = model(x).float().pow(2).mean()
    loss.backward()
    optimizer.step()
print(f"rank {rank}: after 3 steps, sum of the local shard {w.to_local().sum().item():+.6f}")

dist.barrier()
dist.destroy_process_group()
