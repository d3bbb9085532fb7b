#| run: torchrun --standalone --nproc-per-node=2 syncbn_cpu.py
"""SyncBatchNorm under torchrun with gloo, on CPU tensors, in training mode."""
import torch
import torch.distributed as dist
from torch import nn

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:bug]
model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
print(f"rank {rank}: {model[1]}, training={model.training}")
try:
    model(torch.randn(16, 2) + 10.0 * rank)  # training mode: statistics to be synced
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
