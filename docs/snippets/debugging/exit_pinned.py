#| run: torchrun --standalone --nproc-per-node=2 exit_pinned.py
"""destroy_process_group() does not stop the group's threads while something still holds the group.
"""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gloo_workers() -> int:
    """How many of this process's threads are gloo work threads (Linux names them in /proc)."""
    names = [open(f"/proc/self/task/{t}/comm").read() for t in os.listdir("/proc/self/task")]
    return sum(name.startswith("pt_gloo_runloop") for name in names)


# --8<-- [start:body]
dist.init_process_group("gloo")
rank = dist.get_rank()
# the first DDP() imports torch.distributed.nn (through torch._dynamo)
ddp_model = DDP(nn.Linear(4, 1))
ddp_model(torch.randn(8, 4))         # forward only: nothing in this demo can abort at exit
print(f"rank {rank}: gloo work threads while the group is in use: {gloo_workers()}")

import torch.distributed.nn.functional as dist_fn
pinned = [f.__name__ for f in vars(dist_fn).values()
          if callable(f)
          and any(d is dist.group.WORLD for d in (getattr(f, "__defaults__", None) or ()))]
print(f"rank {rank}: functions whose default argument is this group: {len(pinned)},"
      f" e.g. {pinned[0]}")

dist.barrier()
del ddp_model                        # DDP's own reference is gone...
dist.destroy_process_group()         # ...but the defaults above still hold the group
print(f"rank {rank}: gloo work threads after destroy_process_group(): {gloo_workers()}")
# --8<-- [end:body]
