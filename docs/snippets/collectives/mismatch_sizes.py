#| run: torchrun --standalone --nproc-per-node=2 mismatch_sizes.py 3
"""One all_reduce, two sizes: rank 0 passes 2 numbers, rank 1 the number in argv[1]."""
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=3))
rank = dist.get_rank()
# --8<-- [start:body]
n = 2 if rank == 0 else int(sys.argv[1])     # the bug: the ranks disagree on the size
t = torch.arange(1.0, n + 1) * (10 ** rank)  # rank 0: 1 2, rank 1: 10 20 30 ...
print(f"rank {rank}: all_reduce of {n} numbers", flush=True)
start = time.monotonic()
try:
    dist.all_reduce(t)
except RuntimeError:
    elapsed = time.monotonic() - start
    print(f"rank {rank}: RuntimeError after {elapsed:.1f} s", flush=True)
    raise
print(f"rank {rank}: returned after {time.monotonic() - start:.1f} s, "
      f"first numbers {t[:3].tolist()}", flush=True)
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
