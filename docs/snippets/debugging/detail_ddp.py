#| run: python detail_ddp.py
"""TORCH_DISTRIBUTED_DEBUG=DETAIL while constructing DDP, with gloo on a machine without a GPU."""
import os

os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"   # before torch is imported
# --8<-- [start:body]
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
print("torch", torch.__version__, "debug level:", dist.get_debug_level(), flush=True)
ddp_model = DDP(nn.Linear(4, 1))
print("DDP constructed", flush=True)
# --8<-- [end:body]
dist.destroy_process_group()
