#| run: torchrun --standalone --nproc-per-node=2 syncbn_cuda.py
"""SyncBatchNorm on two GPUs: the batch statistics are those of the global batch."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)

torch.manual_seed(0)
# momentum=1.0: after one forward the running mean is exactly the batch mean the layer used
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8, momentum=1.0), nn.ReLU(), nn.Linear(8, 1))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(local_rank)   # convert, move, then wrap
ddp_model = DDP(model, device_ids=[local_rank])
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.05)

torch.manual_seed(10 + rank)
x = (torch.randn(32, 4) + 3.0 * rank).to(local_rank)   # the ranks' batches have different means
y = x.sum(dim=1, keepdim=True)

with torch.no_grad():
    h = model[0](x)                          # what the batch-norm layer sees on this rank
    everyone = [torch.zeros_like(h) for _ in range(world)]
    dist.all_gather(everyone, h)
    ddp_model(x)                             # one forward in training mode updates running_mean
mean = model[1].running_mean
print(f"rank {rank}: running_mean is the global batch mean: "
      f"{torch.allclose(mean, torch.cat(everyone).mean(0), atol=1e-5)}, "
      f"this rank's own batch mean: {torch.allclose(mean, h.mean(0), atol=1e-5)}")

for step in range(6):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    loss.backward()
    optimizer.step()
    avg = loss.detach().clone()
    dist.all_reduce(avg)
    if rank == 0:
        print(f"step {step}: loss {avg.item() / world:.4f}")

dist.barrier()
dist.destroy_process_group()
