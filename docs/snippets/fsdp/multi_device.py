#| run: torchrun --standalone --nproc-per-node=1 multi_device.py
"""DDP around a model that spans two GPUs: device_ids=None, the model places its own layers."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
local_rank = int(os.environ["LOCAL_RANK"])
dev0, dev1 = 2 * local_rank, 2 * local_rank + 1        # two GPUs per process


class TwoGPUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(16, 64), nn.ReLU()).to(dev0)
        self.second = nn.Linear(64, 1).to(dev1)

    def forward(self, x):
        h = self.first(x.to(dev0))
        return self.second(h.to(dev1))                  # activations move between the GPUs


torch.manual_seed(0)
model = TwoGPUModel()
ddp_model = DDP(model, device_ids=None)                 # a multi-device module: no device_ids
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.05)
print(f"rank {rank}: parameters on {sorted({str(p.device) for p in model.parameters()})}")

torch.manual_seed(10 + rank)
x = torch.randn(64, 16)
y = (x[:, :1] * 2.0 - x[:, 1:2]).to(dev1)               # the output comes out on the second GPU
for step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    loss.backward()
    optimizer.step()
    if rank == 0:
        print(f"step {step}: loss {loss.item():.4f}")

dist.barrier()
dist.destroy_process_group()
