#| run: torchrun --standalone --nproc-per-node=2 device_mismatch_cuda.py
"""DDP with device_ids moves the inputs to the GPU, but not the targets used in the loss."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank = dist.get_rank()
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)

ddp_model = DDP(nn.Linear(4, 1).to(local_rank), device_ids=[local_rank])
x, y = torch.randn(8, 4), torch.randn(8, 1)  # both still on the CPU
out = ddp_model(x)                           # works: DDP copied x to the module's GPU
print(f"rank {rank}: input on {x.device}, output on {out.device}, target on {y.device}")
try:
    loss = nn.functional.mse_loss(out, y)    # GPU output, CPU target
finally:
    dist.destroy_process_group()
