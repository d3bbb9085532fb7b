#| run: python unused_param.py
"""A parameter that never receives a gradient: DDP's reduction cannot finish."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(4, 1)
        self.spare = nn.Linear(4, 1)         # defined, but forward never uses it

    def forward(self, x):
        return self.used(x)

ddp_model = DDP(Net())
try:
    for step in range(2):
        print(f"step {step}")
        ddp_model(torch.randn(2, 4)).sum().backward()
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
