#| run: torchrun --standalone --nproc-per-node=2 --max-restarts=2 restart.py
"""A worker crashes; torchrun restarts the whole group; the script resumes from its own snapshot."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# 0 at first, 1 after the first restart, ...
attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])

# The store torchrun's env:// settings point at, with a fresh key space for this attempt,
# so the new workers never read addresses a crashed attempt left behind
# (gloo needed it on restarts on torch 2.13.0+cpu, and again in tries on 2.14.1 and 2.15.0;
# NCCL was not tested: see "One key space per attempt" on the torchrun page).
base_store, _, _ = next(dist.rendezvous("env://"))
store = dist.PrefixStore(f"attempt-{attempt}", base_store)
dist.init_process_group("gloo", store=store, rank=rank, world_size=world)

torch.manual_seed(0)
w_true = torch.tensor([[2.0], [-3.0], [1.0]])
x = torch.randn(64, 3)
y = x @ w_true + 0.1 * torch.randn(64, 1)
x, y = x[rank::world], y[rank::world]        # each rank its own half

model = nn.Linear(3, 1)
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
SNAPSHOT = "snapshot.pt"                     # in the current directory
EPOCHS = 6

# --8<-- [start:resume]
start = 0
if os.path.exists(SNAPSHOT):                 # a previous attempt left a snapshot: resume from it
    snap = torch.load(SNAPSHOT, map_location="cpu")
    model.load_state_dict(snap["model"])
    optimizer.load_state_dict(snap["optimizer"])
    start = snap["epoch"] + 1
print(f"rank {rank}: attempt {attempt}, starting at epoch {start}")

for epoch in range(start, EPOCHS):
    if attempt == 0 and rank == 1 and epoch == 3:
        raise RuntimeError("rank 1 crashes (simulated) at the start of epoch 3")
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    loss.backward()
    optimizer.step()
    print(f"rank {rank}: epoch {epoch} loss {loss.item():.4f}")
    # one writer; write then rename, so no half-written file
    if rank == 0:
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
        torch.save(state, SNAPSHOT + ".tmp")
        os.replace(SNAPSHOT + ".tmp", SNAPSHOT)
    dist.barrier()                           # nobody goes on until the snapshot is on disk
# --8<-- [end:resume]

dist.barrier()
dist.destroy_process_group()
