#| run: torchrun --standalone --nproc-per-node=4 hsdp.py
"""HSDP on CPU: a 2-D DeviceMesh, replicate across dimension 0, shard across dimension 1."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor.debug import CommDebugMode

dist.init_process_group("gloo")
rank = dist.get_rank()

# --8<-- [start:body]
mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("replicate", "shard"))
if rank == 0:
    print("mesh:", mesh.mesh.tolist())
print(f"rank {rank}: coordinate {mesh.get_coordinate()}, "
      f"replicate group {mesh['replicate'].mesh.tolist()}, "
      f"shard group {mesh['shard'].mesh.tolist()}")

torch.manual_seed(0)                         # the same initial weights on every rank
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
fully_shard(model[0], mesh=mesh)
fully_shard(model[2], mesh=mesh)
fully_shard(model, mesh=mesh)
w = model[0].weight
print(f"rank {rank}: {w.placements}, full {tuple(w.shape)}, local {tuple(w.to_local().shape)}, "
      f"shard starts {w.to_local()[0, 0].item():+.4f}")

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)                 # each rank its own data
x = torch.randn(32, 8)
for step in range(3):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    with CommDebugMode() as comm:
        loss.backward()
    optimizer.step()
counts = {op.__name__: n for op, n in comm.get_comm_counts().items()}
if rank == 0:
    print("collectives in one backward:", counts)
print(f"rank {rank}: after 3 steps, sum of the local shard {w.to_local().sum().item():+.6f}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
