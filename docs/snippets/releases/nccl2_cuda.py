#| run: torchrun --standalone --nproc-per-node=2 nccl2_cuda.py
"""On GPUs: which class serves "nccl", and a sub-group that asks for the old one by name."""
import os

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
# --8<-- [start:body]
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank = dist.get_rank()
world_impl = type(dist.group.WORLD._get_backend(device)).__name__
legacy = dist.new_group(backend="nccl-legacy")
legacy_impl = type(legacy._get_backend(device)).__name__
for group, impl in [(None, world_impl), (legacy, legacy_impl)]:
    t = torch.full((2,), float(rank + 1), device=device)
    dist.all_reduce(t, group=group)
    print(f"rank {rank}: {impl} all_reduce gives {t.tolist()}")
# --8<-- [end:body]
dist.destroy_process_group()
