#| run: torchrun --standalone --nproc-per-node=2 cuda_mesh_on_cpu.py
"""A "cuda" DeviceMesh on a machine without a GPU."""
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

dist.init_process_group("gloo")
rank = dist.get_rank()
try:
    # --8<-- [start:body]
    print(f"rank {rank}: torch.cuda.is_available() = {torch.cuda.is_available()}")
    mesh = init_device_mesh("cuda", (2,))    # sets this rank's GPU from LOCAL_RANK
    # --8<-- [end:body]
finally:
    dist.barrier()
    dist.destroy_process_group()
