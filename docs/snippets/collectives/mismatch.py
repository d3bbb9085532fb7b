#| run: torchrun --standalone --nproc-per-node=2 mismatch.py
"""Rank 0 calls all_reduce, rank 1 calls broadcast: a mismatch, caught by a short timeout."""
import datetime

import torch
import torch.distributed as dist

# A short timeout turns the wait into an error; the default (30 minutes on gloo) would look like a
# hang.
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3))
rank = dist.get_rank()
# --8<-- [start:bug]
t = torch.ones(2)
if rank == 0:
    dist.all_reduce(t)                # rank 0 waits for everyone to all_reduce...
else:
    dist.broadcast(t, src=0)          # ...while rank 1 is in a different collective
print(f"rank {rank} never gets here: {t}")
# --8<-- [end:bug]
dist.barrier()
dist.destroy_process_group()
