#| run: torchrun --standalone --nproc-per-node=2 nccl_knobs_cuda.py
"""NCCL debugging knobs: set before the process group exists, then one all_reduce."""
import os

# --8<-- [start:env]
os.environ.setdefault("NCCL_DEBUG", "INFO")                    # NCCL's own log, on stdout
os.environ.setdefault("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000")  # flight recorder entries
os.environ.setdefault("TORCH_NCCL_DUMP_ON_TIMEOUT", "1")       # dump them on a timeout
# --8<-- [end:env]

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
# --8<-- [start:body]
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)   # binds the group to this GPU now
rank = dist.get_rank()
print(f"rank {rank}: TORCH_NCCL_ASYNC_ERROR_HANDLING="
      f"{os.environ.get('TORCH_NCCL_ASYNC_ERROR_HANDLING')}")
t = torch.full((2,), float(rank + 1), device=device)
dist.all_reduce(t)
print(f"rank {rank}: all_reduce gives {t.tolist()}")
# --8<-- [end:body]
dist.destroy_process_group()
