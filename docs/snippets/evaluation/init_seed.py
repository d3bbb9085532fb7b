#| run: torchrun --standalone --nproc-per-node=2 init_seed.py
"""Initial weights per rank: unseeded, seeded, and after DDP's broadcast at wrapping."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()


def first(m):
    return [round(v, 4) for v in m.weight[0, :3].tolist()]


# --8<-- [start:body]
print(f"rank {rank}: starting seed {torch.initial_seed()}")
unseeded = nn.Linear(4, 2)                       # each process's own random stream
print(f"rank {rank}: unseeded init        {first(unseeded)}")

torch.manual_seed(0)                             # the same seed on every rank
seeded = nn.Linear(4, 2)
print(f"rank {rank}: manual_seed(0) init  {first(seeded)}")

ddp = DDP(unseeded)                      # broadcasts rank 0's parameters and buffers
print(f"rank {rank}: unseeded after DDP() {first(unseeded)}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
