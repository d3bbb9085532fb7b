#| run: torchrun --standalone --nproc-per-node=2 hang.py
"""A hang made visible: a 3-second timeout and a line per rank before every collective."""
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# --8<-- [start:body]
dist.init_process_group("gloo", timeout=timedelta(seconds=3))   # default: 30 minutes
rank = dist.get_rank()
t0 = time.monotonic()


def log(message):                            # who, when, where: flushed at once
    print(f"[{time.monotonic() - t0:4.1f} s] rank {rank}: {message}", flush=True)


torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(8, 4)
    loss = nn.functional.mse_loss(ddp_model(x), x.sum(1, keepdim=True))
    log(f"step {step}: backward (gradient all-reduce)")
    loss.backward()
    optimizer.step()
    if rank == 0 and step == 2:              # the bug: a collective only rank 0 calls
        log(f"step {step}: all_reduce of the loss, for the log")
        dist.all_reduce(loss.detach())
log("loop done: barrier")
dist.barrier()
# --8<-- [end:body]
dist.destroy_process_group()
