#| run: python backends.py
"""Which communication backends this PyTorch build has, and what you get when you name none."""
import os
import tempfile

import torch
import torch.distributed as dist

print("torch", torch.__version__)
for name in ("gloo", "nccl", "mpi"):
    print(f"  is_{name}_available(): {getattr(dist, f'is_{name}_available')()}")

# A one-process group (world_size=1) needs no launcher: rank and size are given explicitly.
store = os.path.join(tempfile.mkdtemp(), "store")
dist.init_process_group(init_method=f"file://{store}", rank=0, world_size=1)   # no backend named
print("accelerator torch detects:", torch.accelerator.current_accelerator())
print("get_backend():", dist.get_backend())
print("get_backend_config():", dist.get_backend_config())
dist.destroy_process_group()
