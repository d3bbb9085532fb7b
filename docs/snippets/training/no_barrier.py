#| run: torchrun --standalone --nproc-per-node=2 no_barrier.py
"""No barrier after optimizer.step(), one rank deliberately slow: the weights still agree every
step.
"""
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:body]
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)                 # different data on each rank

for step in range(3):
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    if rank == 1:
        time.sleep(0.5)                      # rank 1 is slow to produce its batch
    start = time.monotonic()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    forward_done = time.monotonic()
    loss.backward()                          # the gradient all-reduce
    optimizer.step()                         # no dist.barrier() after it
    end = time.monotonic()
    w = ddp_model.module.weight.detach().flatten()
    print(f"rank {rank} step {step}: forward {forward_done - start:.1f} s, backward+step "
          f"{end - forward_done:.1f} s, weights {[round(v, 4) for v in w.tolist()]}")
# --8<-- [end:body]
dist.barrier()                               # for a clean shutdown only
dist.destroy_process_group()
