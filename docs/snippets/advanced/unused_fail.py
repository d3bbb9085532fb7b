#| run: python unused_fail.py
"""A model with two heads, one used per step: DDP without find_unused_parameters."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 8)
        self.head_a, self.head_b = nn.Linear(8, 1), nn.Linear(8, 1)

    def forward(self, x, task):              # each step uses one head: the other gets no gradient
        head = self.head_a if task == "a" else self.head_b
        return head(torch.relu(self.trunk(x)))


ddp_model = DDP(TwoHeads())
try:
    for step, task in enumerate("abab"):
        print(f"step {step}: task {task}")
        ddp_model(torch.randn(8, 4), task).pow(2).mean().backward()
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
