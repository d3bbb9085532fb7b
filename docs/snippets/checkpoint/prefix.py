#| run: python prefix.py
"""Saving the DDP wrapper's state_dict: every key gains a "module." prefix."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:bug]
ddp_model = DDP(nn.Linear(4, 1))
print("wrapper keys:", list(ddp_model.state_dict()))
print("module keys: ", list(ddp_model.module.state_dict()))
torch.save(ddp_model.state_dict(), "checkpoint.pt")       # the wrapper's keys, not the module's

plain = nn.Linear(4, 1)                                    # e.g. for inference, no DDP
try:
    plain.load_state_dict(torch.load("checkpoint.pt", map_location="cpu"))
finally:
    dist.destroy_process_group()
# --8<-- [end:bug]
