#| run: python visible_devices.py
"""CUDA_VISIBLE_DEVICES renumbers GPUs: the first visible GPU is always cuda:0 inside the process.
"""
import os
import subprocess
import sys

CHILD = """
import torch
n = torch.cuda.device_count()
ids = [torch.cuda.get_device_properties(i).uuid for i in range(n)]
print(f"  sees {n} GPU(s): " + ", ".join(f"cuda:{i} = {str(u)[:8]}" for i, u in enumerate(ids)))
"""

for visible in (None, "0", "1", "1,0", ""):
    env = dict(os.environ)
    if visible is None:
        env.pop("CUDA_VISIBLE_DEVICES", None)
    else:
        env["CUDA_VISIBLE_DEVICES"] = visible
    label = "unset" if visible is None else repr(visible)
    print(f"CUDA_VISIBLE_DEVICES={label}")
    subprocess.run([sys.executable, "-c", CHILD], env=env, check=True)
