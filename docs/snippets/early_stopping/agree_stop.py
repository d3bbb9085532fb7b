#| run: torchrun --standalone --nproc-per-node=2 agree_stop.py
"""Each rank votes to stop; an all_reduce with MAX turns the votes into one decision."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# A small noisy regression: 16 training samples, so the model soon starts to overfit.
g = torch.Generator().manual_seed(0)
w_true = torch.randn(8, 1, generator=g)
x_train, x_val = torch.randn(16, 8, generator=g), torch.randn(64, 8, generator=g)
y_train = x_train @ w_true + 2.0 * torch.randn(16, 1, generator=g)
y_val = x_val @ w_true + 2.0 * torch.randn(64, 1, generator=g)
x_train, y_train = x_train[rank::world], y_train[rank::world]   # this rank's shares
x_val, y_val = x_val[rank::world], y_val[rank::world]

torch.manual_seed(0)
ddp = DDP(nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1)))
opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
loss_fn = nn.MSELoss()

# --8<-- [start:body]
best, bad_epochs, patience = float("inf"), 0, 2
for epoch in range(30):
    opt.zero_grad()
    loss_fn(ddp(x_train), y_train).backward()
    opt.step()
    with torch.no_grad():
        val = loss_fn(ddp.module(x_val), y_val).item()    # this rank's shard only
    if val < best:
        best, bad_epochs = val, 0
    else:
        bad_epochs += 1
    stop = torch.tensor(1.0 if bad_epochs >= patience else 0.0)   # this rank's vote
    local = int(stop.item())
    dist.all_reduce(stop, op=dist.ReduceOp.MAX)     # 1 if any rank votes to stop
    print(f"rank {rank} epoch {epoch}: local val {val:.4f}, "
          f"vote {local}, agreed {int(stop.item())}")
    if stop.item() > 0:                             # the same value on every rank
        print(f"rank {rank}: stopping after epoch {epoch}")
        break
dist.barrier()                                      # end of training
# --8<-- [end:body]
dist.destroy_process_group()
