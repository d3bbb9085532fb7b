#| run: torchrun --standalone --nproc-per-node=2 comm_hook.py
"""fp16_compress_hook: gradients sent as float16, still identical on every rank, close to the
uncompressed ones.
"""
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def agree(t):
    copies = [torch.zeros_like(t) for _ in range(world)]
    dist.all_gather(copies, t)
    return all(torch.equal(copies[0], c) for c in copies)


# --8<-- [start:body]
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
default = DDP(copy.deepcopy(net))            # the usual float32 all-reduce
compressed = DDP(copy.deepcopy(net))
compressed.register_comm_hook(dist.group.WORLD, default_hooks.fp16_compress_hook)

torch.manual_seed(10 + rank)
x = torch.randn(32, 16)
y = x[:, :1] * 2.0 - x[:, 1:2]
for ddp_model in (default, compressed):
    nn.functional.mse_loss(ddp_model(x), y).backward()

g_default = torch.cat([p.grad.flatten() for p in default.parameters()])
g_fp16 = torch.cat([p.grad.flatten() for p in compressed.parameters()])
same = agree(g_fp16)
if rank == 0:
    print(f"compressed gradients identical on every rank: {same}")
    print(f"largest gradient: {g_default.abs().max().item():.6f}, largest difference from "
          f"the float32 all-reduce: {(g_fp16 - g_default).abs().max().item():.2e}")
    print(f"bit-identical to the float32 result: {torch.equal(g_fp16, g_default)}")

optimizer = torch.optim.SGD(compressed.parameters(), lr=0.05)
for step in range(6):                        # training with the hook works as usual
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(compressed(x), y)
    loss.backward()
    optimizer.step()
    if rank == 0:
        print(f"step {step}: loss (rank 0's batch) {loss.item():.4f}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
