#| run: torchrun --standalone --nproc-per-node=4 reshard.py
"""reshard_after_forward: what each FSDP unit keeps between forward and backward."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.debug import CommDebugMode

dist.init_process_group("gloo")
rank = dist.get_rank()


def held(layer):
    """What the layer's weight is right now, and how many values this rank holds of it."""
    w = layer.weight
    if isinstance(w, DTensor):
        local = w.to_local()
        return (f"DTensor on mesh {w.device_mesh.mesh.tolist()}, {w.placements}, "
                f"local {tuple(local.shape)} = {local.numel()} values")
    return f"plain {type(w).__name__} {tuple(w.shape)} = {w.numel()} values"


# --8<-- [start:body]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 1))
settings = {0: True, 1: False, 2: 2}         # layer index -> reshard_after_forward
for i, value in settings.items():
    fully_shard(model[i], reshard_after_forward=value)
fully_shard(model)                           # the root unit: layer 3; reshard_after_forward=None

loss = model(torch.randn(4, 16)).sum()       # forward only: backward has not run yet
if rank == 0:
    print("between forward and backward:")
    for i in range(4):
        print(f"  layer {i} ({settings.get(i, 'root, None')}): {held(model[i])}")

with CommDebugMode() as comm:                # counts the collectives that backward launches
    loss.backward()
if rank == 0:
    counts = {op.__name__: n for op, n in comm.get_comm_counts().items()}
    print("collectives in backward:", counts)
    print("after backward, layer 1:", held(model[1]))
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
