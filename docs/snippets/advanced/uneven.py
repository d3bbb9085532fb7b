#| run: torchrun --standalone --nproc-per-node=2 uneven.py
"""Uneven inputs without join: rank 0 runs out of batches first."""
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=5))   # a hang becomes an error after 5 s
rank = dist.get_rank()
# --8<-- [start:bug]
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
batches = 3 if rank == 0 else 5              # rank 0 has fewer batches than rank 1
for step in range(batches):
    optimizer.zero_grad()
    x = torch.randn(8, 4)
    nn.functional.mse_loss(ddp_model(x), x.sum(1, keepdim=True)).backward()
    optimizer.step()
    print(f"rank {rank}: step {step} done")
print(f"rank {rank}: out of data")
dist.barrier()                               # rank 0 waits here; rank 1 waits in its next backward
# --8<-- [end:bug]
dist.destroy_process_group()
