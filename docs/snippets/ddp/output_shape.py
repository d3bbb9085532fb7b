#| run: torchrun --standalone --nproc-per-node=2 output_shape.py
"""Wrap a small model in DistributedDataParallel and look at what changes (and what does not)."""
# --8<-- [start:body]
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# reads RANK, WORLD_SIZE, MASTER_ADDR/PORT set by torchrun
dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(rank)                      # a different start on each rank, on purpose
model = nn.Linear(4, 3)
ddp_model = DDP(model)                       # CPU module: no device_ids

batch = torch.randn(5, 4)                    # 5 samples of 4 features on every rank
out = ddp_model(batch)
print(f"rank {rank}/{world}: input {tuple(batch.shape)} -> output {tuple(out.shape)}")
print(f"rank {rank}: first weight after wrapping = {ddp_model.module.weight[0, 0].item():+.4f}")

dist.destroy_process_group()
# --8<-- [end:body]
