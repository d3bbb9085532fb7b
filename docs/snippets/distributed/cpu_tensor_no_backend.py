#| run: python cpu_tensor_no_backend.py
"""A group whose backends cover only `cuda` has none for a CPU tensor."""
import torch
import torch.distributed as dist

# "cuda:gloo": gloo, registered for the cuda device type only (no CUDA needed to create it).
dist.init_process_group("cuda:gloo", store=dist.HashStore(), rank=0, world_size=1)
print("get_backend_config():", dist.get_backend_config())
try:
    dist.all_reduce(torch.ones(1))           # a CPU tensor
finally:
    dist.destroy_process_group()
