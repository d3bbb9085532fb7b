#| run: torchrun --standalone --nproc-per-node=2 clip.py
"""clip_grad_norm_ after backward: every rank sees the same averaged gradients."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 2))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)                  # different data on each rank
x, y = torch.randn(8, 4), 10 * torch.randn(8, 2)

optimizer.zero_grad()
nn.functional.mse_loss(ddp_model(x), y).backward()
norm = nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm=1.0)
after = nn.utils.get_total_norm([p.grad for p in ddp_model.parameters()])
print(f"rank {rank}: norm before clipping {norm.item():.6f}, after {after.item():.6f}")
optimizer.step()
dist.barrier()
dist.destroy_process_group()
