#| run: torchrun --standalone --nproc-per-node=2 omp_threads.py
"""What torchrun sets OMP_NUM_THREADS to, seen from inside each worker."""
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:body]
omp = os.environ.get("OMP_NUM_THREADS")
print(f"rank {rank}: OMP_NUM_THREADS={omp!r}, torch.get_num_threads()={torch.get_num_threads()}")
# --8<-- [end:body]
dist.destroy_process_group()
