#| run: torchrun --standalone --nproc-per-node=2 detail_skip.py
"""DETAIL and a collective that only rank 0 calls."""
import os

# read when torch.distributed is imported: set it first
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
# --8<-- [start:body]
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
if rank == 0:                                # the bug: only rank 0 all-reduces
    dist.all_reduce(torch.ones(2))
dist.barrier()
print(f"rank {rank}: past the barrier")
# --8<-- [end:body]
dist.destroy_process_group()
