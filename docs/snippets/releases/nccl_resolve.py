#| run: python nccl_resolve.py
"""Which implementation does backend "nccl" pick? Without a GPU, the error it raises tells."""
import os
import subprocess
import sys

import torch
import torch.distributed as dist

if len(sys.argv) > 1:                        # child: try to build a one-rank group
    name = sys.argv[1]
    try:
        dist.init_process_group(name, store=dist.HashStore(), rank=0, world_size=1)
        print(f"{name}: group created, no error", flush=True)
        os._exit(0)                          # skip tearing down a group with no GPU
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
    sys.exit(0)

# --8<-- [start:body]
print(f"torch {torch.__version__}, CUDA devices: {torch.cuda.device_count()}")
for name in ["nccl2", "nccl-legacy", "nccl-lazy"]:
    print(f"dist.is_backend_available({name!r}): {dist.is_backend_available(name)}")

cases = [("nccl", None), ("nccl", "0"), ("nccl", "1"),
         ("nccl-legacy", None), ("nccl2", None), ("nccl-lazy", None)]
for name, flag in cases:
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DIST_USE_NCCL2"}
    if flag is not None:
        env["TORCH_DIST_USE_NCCL2"] = flag   # read once, when "nccl" is first registered
    child = subprocess.run([sys.executable, __file__, name], env=env,
                           capture_output=True, text=True)
    print(f"TORCH_DIST_USE_NCCL2={flag or '(unset)':7} {child.stdout.strip()}")
# --8<-- [end:body]
