#| run: torchrun --standalone --nproc-per-node=2 detail_mismatch.py
"""TORCH_DISTRIBUTED_DEBUG=DETAIL checks that every rank calls the same collective with the same
shapes.
"""
import os

# read when torch.distributed is imported: set it first
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
# --8<-- [start:body]
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
print(f"rank {rank}: debug level {dist.get_debug_level()}")

dist.all_reduce(torch.ones(4))               # the same call on both ranks: passes the check
t = torch.ones(2 if rank == 0 else 3)        # the bug: the ranks disagree on the shape
print(f"rank {rank}: all_reduce of shape {tuple(t.shape)}")
dist.all_reduce(t)
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
