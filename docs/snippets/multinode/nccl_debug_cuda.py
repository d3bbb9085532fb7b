#| run: torchrun --standalone --nproc-per-node=2 nccl_debug_cuda.py
"""NCCL_DEBUG=INFO: NCCL reports the interface and the transports it chose, then one all_reduce."""
import os

# --8<-- [start:env]
os.environ.setdefault("NCCL_DEBUG", "INFO")             # NCCL's own log, on stdout
os.environ.setdefault("NCCL_DEBUG_SUBSYS", "INIT,BOOTSTRAP,NET")  # set-up, bootstrap, network
# on a cluster, also e.g. NCCL_SOCKET_IFNAME=eth0 (the interface the nodes share)
# --8<-- [end:env]

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)   # NCCL sets up its communicator now
rank = dist.get_rank()
t = torch.full((2,), float(rank + 1), device=device)
dist.all_reduce(t)
print(f"rank {rank}: NCCL {torch.cuda.nccl.version()}, all_reduce gives {t.tolist()}")
dist.barrier()
dist.destroy_process_group()
