#| run: torchrun --standalone --nproc-per-node=2 gpu_wrap.py
"""The GPU form of wrapping: one process per GPU, the module moved to it, device_ids naming it."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")                      # the GPU backend
rank = dist.get_rank()
local_rank = int(os.environ["LOCAL_RANK"])           # this process's GPU on this machine
torch.cuda.set_device(local_rank)

model = nn.Linear(4, 3).to(local_rank)               # move the module first...
ddp_model = DDP(model, device_ids=[local_rank])      # ...then name its one device
out = ddp_model(torch.randn(5, 4, device=local_rank))
print(f"rank {rank}: output on {out.device}, shape {tuple(out.shape)}")

dist.barrier()
dist.destroy_process_group()
