#| run: python not_initialized.py
"""Using torch.distributed before init_process_group."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# --8<-- [start:bug]
print("initialized:", dist.is_initialized())
model = nn.Linear(4, 1)
ddp_model = DDP(model)                       # no init_process_group() before it
# --8<-- [end:bug]
