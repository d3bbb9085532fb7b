#| run: torchrun --standalone --nproc-per-node=2 send_first.py
"""Every rank calls a blocking send first: with gloo, each send waits for a recv that never comes.
"""
import datetime
import time

import torch
import torch.distributed as dist

# A short timeout, so that the deadlock ends in an error after 3 s instead of the default wait.
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3))
rank, world = dist.get_rank(), dist.get_world_size()
# --8<-- [start:deadlock]
peer = (rank + 1) % world
start = time.monotonic()
try:
    dist.send(torch.tensor([float(rank)]), dst=peer)    # both ranks send first ...
    dist.recv(torch.zeros(1), src=peer)                 # ... so neither reaches its recv
except RuntimeError as exc:
    print(f"rank {rank}: send gave up after {time.monotonic() - start:.0f} s:",
          str(exc).split("] ", 1)[-1])
try:
    dist.barrier()                                      # is the group still usable?
except RuntimeError as exc:
    print(f"rank {rank}: barrier afterwards:", str(exc).split("] ", 1)[-1])
# --8<-- [end:deadlock]
dist.destroy_process_group()
