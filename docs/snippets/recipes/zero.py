#| run: torchrun --standalone --nproc-per-node=2 zero.py
"""ZeroRedundancyOptimizer: each rank keeps Adam state for its shard only."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
ddp_model = DDP(nn.Sequential(nn.Linear(8, 16), nn.Linear(16, 8), nn.Linear(8, 2)))
optimizer = ZeroRedundancyOptimizer(ddp_model.parameters(),
                                    optimizer_class=torch.optim.Adam, lr=0.01)
torch.manual_seed(10 + rank)
for step in range(3):
    optimizer.zero_grad()
    ddp_model(torch.randn(4, 8)).sum().backward()
    optimizer.step()  # update own shard, broadcast

state = optimizer.optim.state                 # the local Adam's state
numel = sum(t.numel() for s in state.values() for t in s.values() if t.dim() > 0)
total = sum(p.numel() for p in ddp_model.parameters())
print(f"rank {rank}: Adam state for {len(state)} of 6 tensors, "
      f"{numel} state elements (full Adam would hold {2 * total})")

flat = torch.cat([p.detach().flatten() for p in ddp_model.parameters()])
everyone = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(everyone, flat)
if rank == 0:
    print("parameters identical on all ranks:",
          all(torch.equal(v, flat) for v in everyone))

optimizer.consolidate_state_dict(to=0)        # every rank must call it
if rank == 0:
    full = optimizer.state_dict()             # only valid on the target rank
    print("consolidated state on rank 0 covers", len(full["state"]), "tensors")
dist.barrier()
dist.destroy_process_group()
