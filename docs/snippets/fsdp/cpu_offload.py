#| run: torchrun --standalone --nproc-per-node=2 cpu_offload.py
"""CPUOffloadPolicy without a GPU: pin_memory=False runs; the default pins memory, which fails."""
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import CPUOffloadPolicy, OffloadPolicy, fully_shard

dist.init_process_group("gloo")
rank = dist.get_rank()
pin = "--pin-memory" in sys.argv              # the policy's default is pin_memory=True


def train(offload):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    for unit in (model[0], model[2], model):
        fully_shard(unit, offload_policy=offload)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(10 + rank)
    x = torch.randn(32, 8)
    losses = []
    for step in range(3):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    w = model[0].weight
    return losses, f"shard on {w.to_local().device}, grad on {w.grad.to_local().device}"


try:
    # --8<-- [start:body]
    print(f"rank {rank}: torch.cuda.is_available() = {torch.cuda.is_available()}")
    policy = CPUOffloadPolicy(pin_memory=pin)
    print(f"rank {rank}: {policy}")
    print(f"rank {rank}: offload   ", *train(policy))
    print(f"rank {rank}: no offload", *train(OffloadPolicy()))   # the default: none
    # --8<-- [end:body]
finally:
    dist.barrier()
    dist.destroy_process_group()
