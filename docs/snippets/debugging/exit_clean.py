#| run: torchrun --standalone --nproc-per-node=2 exit_clean.py
"""The clean ending: nothing holds the group when it is destroyed, so its threads are joined."""
import os

import torch
import torch.distributed as dist
# noqa: F401  imported before init_process_group(): its defaults stay None
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gloo_workers() -> int:
    """How many of this process's threads are gloo work threads (Linux names them in /proc)."""
    names = [open(f"/proc/self/task/{t}/comm").read() for t in os.listdir("/proc/self/task")]
    return sum(name.startswith("pt_gloo_runloop") for name in names)


# --8<-- [start:body]
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
for step in range(3):                            # a real training loop, backward included
    optimizer.zero_grad()
    ddp_model(torch.randn(8, 4)).pow(2).mean().backward()
    optimizer.step()
print(f"rank {rank}: trained; gloo work threads: {gloo_workers()}")

dist.barrier()                                   # no rank tears down while another still talks
del ddp_model                                    # DDP holds the group: drop it first
dist.destroy_process_group()                     # the last reference goes: the threads are joined
print(f"rank {rank}: gloo work threads after destroy_process_group(): {gloo_workers()}")
# --8<-- [end:body]
