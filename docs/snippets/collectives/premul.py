#| run: python premul.py
"""Ask gloo for a reduce op it does not implement (one process is enough to see the error)."""
import torch
import torch.distributed as dist

# A one-process group: no torchrun needed, the store lives in this process.
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
op = dist._make_nccl_premul_sum(0.5)  # "multiply by 0.5, then sum": an NCCL-only op
t = torch.ones(2)
try:
    dist.all_reduce(t, op=op)
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
