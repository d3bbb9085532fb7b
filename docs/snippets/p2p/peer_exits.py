#| run: torchrun --standalone --nproc-per-node=2 peer_exits.py
"""Rank 1 waits in recv for a send that never comes; rank 0 leaves the job instead of sending.
"""
import datetime
import re
import time

import torch
import torch.distributed as dist

# The same short timeout as the deadlock example: if recv waited for it, it would give up after 3 s.
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3))
rank = dist.get_rank()
# --8<-- [start:exits]
start = time.monotonic()
if rank == 1:
    try:
        dist.recv(torch.zeros(1), src=0)                # rank 0 never sends
    except RuntimeError as exc:
        msg = str(exc).split("] ", 1)[-1].split(". ", 1)[0]
        print(f"rank 1: recv gave up after {time.monotonic() - start:.0f} s:",
              re.sub(r"\[[^\]]*\]:\d+", "<rank 0>", msg))  # hide address and port
else:
    print("rank 0: leaving without sending")            # the bug: an early exit on one rank
# --8<-- [end:exits]
dist.destroy_process_group()
