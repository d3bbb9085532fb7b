#| run: torchrun --standalone --nproc-per-node=2 map_location_cuda.py
"""On GPUs a checkpoint remembers the device it was saved from; map_location moves it to this rank's
GPU.
"""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank = dist.get_rank()
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)

ddp_model = DDP(nn.Linear(4, 1).to(local_rank), device_ids=[local_rank])
if rank == 0:
    torch.save(ddp_model.module.state_dict(), "checkpoint.pt")   # saved from cuda:0
dist.barrier()

as_saved = torch.load("checkpoint.pt")                            # no map_location
mapped = torch.load("checkpoint.pt", map_location=f"cuda:{local_rank}")
print(f"rank {rank}: without map_location the weights land on {as_saved['weight'].device}, "
      f"with it on {mapped['weight'].device}")
ddp_model.module.load_state_dict(mapped)

dist.barrier()
dist.destroy_process_group()
