#| run: python syncbn_cpu.py
"""SyncBatchNorm on CPU tensors with gloo."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)   # every BatchNorm*d becomes a SyncBatchNorm
print(model[1])
try:
    model(torch.randn(16, 4))                # the layer on its own, on a CPU tensor
except ValueError as exc:
    print(f"forward without DDP: {type(exc).__name__}: {exc}")
try:
    ddp_model = DDP(model)                   # wrapping the CPU module
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
