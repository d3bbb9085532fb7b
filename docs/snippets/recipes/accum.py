#| run: torchrun --standalone --nproc-per-node=2 accum.py
"""k micro-batches with no_sync() and loss / k give the same step as one big batch."""
import contextlib

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
k = 4                                         # micro-batches per optimizer step
torch.manual_seed(10 + rank)
x, y = torch.randn(16, 4), torch.randn(16, 1)  # this rank's big batch

def make():
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    return model, torch.optim.SGD(model.parameters(), lr=0.1)

# one step on the whole big batch
big, big_opt = make()
big_opt.zero_grad()
nn.functional.mse_loss(big(x), y).backward()
big_opt.step()

# the same step as k micro-batches
acc, acc_opt = make()
acc_opt.zero_grad()
for i, (xb, yb) in enumerate(zip(x.chunk(k), y.chunk(k))):
    last = i == k - 1
    with contextlib.nullcontext() if last else acc.no_sync():
        loss = nn.functional.mse_loss(acc(xb), yb) / k
        loss.backward()                       # all-reduce only on the last one
# clip here, once, after the synced backward (if you clip at all)
acc_opt.step()

diff = max((a - b).abs().max().item()
           for a, b in zip(big.parameters(), acc.parameters()))
print(f"rank {rank}: max |big-batch - accumulated| = {diff:.2e}")
dist.barrier()
dist.destroy_process_group()
