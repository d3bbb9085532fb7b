#| run: torchrun --standalone --nproc-per-node=2 fully_shard.py
"""FSDP2 (fully_shard) on CPU with gloo: each rank holds a shard of every parameter, and it trains
like DDP.
"""
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# --8<-- [start:shard]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
reference = DDP(copy.deepcopy(model))        # a DDP copy from the same weights, to compare with

for layer in model:
    if isinstance(layer, nn.Linear):
        fully_shard(layer)                   # each Linear: its own unit, gathered when it runs
fully_shard(model)                           # the root: whatever is left

for name, p in model.named_parameters():
    print(f"rank {rank}: {name:<8} {type(p).__name__} full shape {tuple(p.shape)}, "
          f"this rank holds {tuple(p.to_local().shape)}")
local = sum(p.to_local().numel() for p in model.parameters())
full = sum(p.numel() for p in model.parameters())
print(f"rank {rank}: holds {local} of {full} parameter values")
# --8<-- [end:shard]

# --8<-- [start:train]
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05)
torch.manual_seed(10 + rank)                 # each rank its own data, as with DDP
x = torch.randn(64, 8)
y = x[:, :1] * 2.0 - x[:, 1:2]
for step in range(8):
    losses = []
    for m, opt in ((model, optimizer), (reference, ref_optimizer)):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(x), y)
        loss.backward()                      # FSDP: gradients reduce-scattered to their shards
        opt.step()                           # FSDP: each rank updates only its shard
        losses.append(loss.detach())
    both = torch.stack(losses)
    dist.all_reduce(both)                    # averaged over the ranks, for the log
    if rank == 0:
        fsdp_loss, ddp_loss = (both / world).tolist()
        print(f"step {step}: loss FSDP {fsdp_loss:.4f}, DDP {ddp_loss:.4f}")

same = all(torch.allclose(p.full_tensor(), q, atol=1e-6)
           for p, q in zip(model.parameters(), reference.module.parameters()))
options = StateDictOptions(full_state_dict=True, cpu_offload=True)
full_state = get_model_state_dict(model, options=options)
if rank == 0:
    print("FSDP weights == DDP weights after training:", same)
    print("full state dict on rank 0:", {k: tuple(v.shape) for k, v in full_state.items()})
# --8<-- [end:train]

dist.barrier()
dist.destroy_process_group()
