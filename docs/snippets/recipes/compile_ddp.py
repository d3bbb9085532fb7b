#| run: torchrun --standalone --nproc-per-node=2 compile_ddp.py
"""torch.compile on a DDP model, with the aot_eager backend (no C++ compiler needed)."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)))
compiled = torch.compile(ddp_model, backend="aot_eager")
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)
for step in range(2):
    optimizer.zero_grad()
    loss = compiled(torch.randn(8, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
w = ddp_model.module[0].weight.detach()
everyone = [torch.zeros_like(w) for _ in range(dist.get_world_size())]
dist.all_gather(everyone, w)
print(f"rank {rank}: loss {loss.item():.4f}, replicas equal: "
      f"{all(torch.equal(v, w) for v in everyone)}")
dist.barrier()
dist.destroy_process_group()
