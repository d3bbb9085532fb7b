#| run: torchrun --standalone --nproc-per-node=2 env_vars.py
"""Print what torchrun told each process about its place in the job."""
# --8<-- [start:body]
import os

import torch.distributed as dist

NAMES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
         "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RESTART_COUNT",
         "TORCHELASTIC_MAX_RESTARTS"]
env = {name: os.environ.get(name, "<unset>") for name in NAMES}
print(f"pid {os.getpid()}: " + " ".join(f"{name}={value}" for name, value in env.items()))

dist.init_process_group("gloo")               # init_method defaults to "env://": it reads the above
print(f"pid {os.getpid()}: get_rank()={dist.get_rank()} get_world_size()={dist.get_world_size()} "
      f"backend={dist.get_backend()}")

dist.barrier()
dist.destroy_process_group()
# --8<-- [end:body]
