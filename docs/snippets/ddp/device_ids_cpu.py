#| run: python device_ids_cpu.py
"""device_ids is for GPU modules: passing it for a CPU module is refused."""
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
model = nn.Linear(4, 3)                  # parameters on the CPU
try:
    ddp_model = DDP(model, device_ids=[0])   # GPU-style call on a CPU module
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
