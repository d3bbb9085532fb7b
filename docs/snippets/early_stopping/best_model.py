#| run: torchrun --standalone --nproc-per-node=2 best_model.py
"""One validation loss for all ranks; rank 0 saves the best weights, all load them."""
import os
import shutil
import tempfile

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


def checksum(module):
    return sum(p.double().sum().item() for p in module.state_dict().values())


ckpt_dir = [tempfile.mkdtemp() if rank == 0 else None]   # a folder rank 0 creates
dist.broadcast_object_list(ckpt_dir, src=0)               # ... and tells the others
best_path = os.path.join(ckpt_dir[0], "best.pt")

# --8<-- [start:body]
if rank == 0:                                       # the keys a file would hold
    print("ddp:", next(iter(ddp.state_dict())),
          "| ddp.module:", next(iter(ddp.module.state_dict())))
best, best_epoch, bad_epochs, patience = float("inf"), -1, 0, 3
for epoch in range(30):
    opt.zero_grad()
    loss_fn(ddp(x_train), y_train).backward()
    opt.step()
    with torch.no_grad():
        sq_err = ((ddp.module(x_val) - y_val) ** 2).sum()
    totals = torch.stack([sq_err, torch.tensor(float(len(y_val)))])
    dist.all_reduce(totals)                         # sums over every rank's shard
    val = (totals[0] / totals[1]).item()            # the same number on every rank
    if val < best:
        best, best_epoch, bad_epochs = val, epoch, 0
        if rank == 0:                               # one writer; replicas are equal
            torch.save(ddp.module.state_dict(), best_path)
            print(f"epoch {epoch}: val {val:.4f}, saved, "
                  f"checksum {checksum(ddp.module):.6f}")
    else:
        bad_epochs += 1
    if bad_epochs >= patience:                      # same inputs, same decision
        print(f"rank {rank}: stopping after epoch {epoch} (best: epoch {best_epoch})")
        break

print(f"rank {rank}: last weights, checksum {checksum(ddp.module):.6f}")
dist.barrier()                                      # rank 0's file is complete
state = torch.load(best_path, map_location="cpu")   # every rank reads it
ddp.module.load_state_dict(state)
with torch.no_grad():
    sq_err = ((ddp.module(x_val) - y_val) ** 2).sum()
totals = torch.stack([sq_err, torch.tensor(float(len(y_val)))])
dist.all_reduce(totals)
print(f"rank {rank}: restored, checksum {checksum(ddp.module):.6f}, "
      f"val {(totals[0] / totals[1]).item():.4f}")
# --8<-- [end:body]
dist.barrier()                                      # everyone has read the file
if rank == 0:
    shutil.rmtree(ckpt_dir[0])
dist.destroy_process_group()
