#| run: torchrun --standalone --nproc-per-node=2 lr_scale.py
"""The global batch and the scaled learning rates, computed from the world size."""
import math

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

# --8<-- [start:body]
PER_RANK_BATCH = 32     # the batch_size each rank's DataLoader is given
ACCUM_STEPS = 1         # micro-batches per optimizer step (gradient accumulation)
REF_BATCH = 32          # the batch the learning rates below were tuned at (one process)
REF_LR_SGD, REF_LR_ADAMW = 0.1, 1e-3

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

global_batch = PER_RANK_BATCH * ACCUM_STEPS * world
k = global_batch / REF_BATCH
lr_sgd = REF_LR_SGD * k                  # linear scaling rule: a heuristic
lr_adamw = REF_LR_ADAMW * math.sqrt(k)   # square-root rule: a heuristic

# count what one step really consumes: each rank's batch, summed over the ranks
dataset = TensorDataset(torch.randn(1024, 4))
loader = DataLoader(dataset, batch_size=PER_RANK_BATCH, sampler=DistributedSampler(dataset))
(xb,) = next(iter(loader))
consumed = torch.tensor(len(xb))
dist.all_reduce(consumed)                # SUM over the ranks

print(f"rank {rank}: my batch {len(xb)}, SGD lr {lr_sgd:g}, AdamW lr {lr_adamw:g}")
if rank == 0:
    print(f"world size {world}: global batch = {PER_RANK_BATCH} x {ACCUM_STEPS} x {world}"
          f" = {global_batch}; samples in one step, counted: {consumed.item()}")
    print(f"k = {global_batch} / {REF_BATCH} = {k:g}: SGD {REF_LR_SGD:g} x k = {lr_sgd:g},"
          f" AdamW {REF_LR_ADAMW:g} x sqrt(k) = {lr_adamw:g}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
