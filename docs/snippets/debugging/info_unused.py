#| run: python info_unused.py
"""TORCH_DISTRIBUTED_DEBUG=INFO: DDP's unused-parameter error names the parameters."""
import os

os.environ["TORCH_DISTRIBUTED_DEBUG"] = "INFO"     # before torch is imported
# --8<-- [start:body]
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
print("debug level:", dist.get_debug_level())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(4, 1)
        self.spare = nn.Linear(4, 1)         # never used in forward

    def forward(self, x):
        return self.used(x)


ddp_model = DDP(Net())
try:
    for step in range(2):
        ddp_model(torch.randn(2, 4)).sum().backward()
finally:
    dist.destroy_process_group()
# --8<-- [end:body]
