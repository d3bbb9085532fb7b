#| run: torchrun --standalone --nproc-per-node=2 set_timeout.py
"""Shorten the default group's timeout after init, then let rank 1 skip a collective."""
import time
from datetime import timedelta

import torch
import torch.distributed as dist

dist.init_process_group("gloo")            # created with the default timeout
rank = dist.get_rank()
# --8<-- [start:body]
if not hasattr(dist, "set_timeout"):
    print(f"rank {rank}: torch {torch.__version__} has no dist.set_timeout")
else:
    dist.set_timeout(timedelta(seconds=3))     # later operations of the group use 3 s
    if rank == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(torch.ones(1))     # rank 1 never joins this one
        except RuntimeError as e:
            print(f"rank 0: all_reduce gave up after {time.monotonic() - start:.1f} s")
            first_line = str(e).splitlines()[0]
            print(f"rank 0: {type(e).__name__}: {first_line[first_line.find('Timed out'):]}")
    else:
        time.sleep(5)                          # busy elsewhere, longer than the timeout
        print("rank 1: back after 5 s, never called all_reduce")
# --8<-- [end:body]
dist.destroy_process_group()
