#| run: torchrun --standalone --nproc-per-node=2 syncbn_cuda.py
"""SyncBatchNorm on two GPUs: equal running statistics without a buffer broadcast."""
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
model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(local_rank)
ddp_model = DDP(model, device_ids=[local_rank], forward_sync_buffers=False)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
for step in (1, 2):
    x = (torch.randn(16, 2) + 10.0 * rank).to(local_rank)   # rank 0: ~0; rank 1: ~10
    optimizer.zero_grad()
    ddp_model(x).square().mean().backward()
    optimizer.step()
    means = [torch.zeros(2, device=local_rank) for _ in range(world)]
    dist.all_gather(means, model[1].running_mean.clone())
    if rank == 0:
        shown = "  ".join(f"rank {r} {[round(v, 2) for v in m.tolist()]}"
                          for r, m in enumerate(means))
        print(f"after step {step}: {shown}  equal: {torch.equal(means[0], means[1])}")

dist.barrier()
dist.destroy_process_group()
