#| run: torchrun --standalone --nproc-per-node=3 eval_dedup.py
"""Exact sharded evaluation, way 1: keep the padded sampler, de-duplicate by index."""
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# The same 10 samples and the same classifier as the naive evaluation.
g = torch.Generator().manual_seed(0)
dataset = TensorDataset(torch.randn(10, 4, generator=g),
                        torch.randint(0, 3, (10,), generator=g))
torch.manual_seed(0)
model = nn.Linear(4, 3).eval()
n, labels = len(dataset), dataset.tensors[1]

# --8<-- [start:body]
sampler = DistributedSampler(dataset, shuffle=False)   # drop_last=False: pads to 12
indices = torch.tensor(list(sampler))                  # in the order the loader reads
loader = DataLoader(dataset, batch_size=4, sampler=sampler)
with torch.no_grad():
    preds = torch.cat([model(x).argmax(1) for x, _ in loader])

all_idx = [torch.empty_like(indices) for _ in range(world)]   # equal shares, so a
all_pred = [torch.empty_like(preds) for _ in range(world)]     # plain all_gather works
dist.all_gather(all_idx, indices)
dist.all_gather(all_pred, preds)
pred_of = torch.full((n,), -1)
pred_of[torch.cat(all_idx)] = torch.cat(all_pred)      # a repeated index: written twice
right = (pred_of == labels).sum().item()
print(f"rank {rank}: every index covered: {bool((pred_of >= 0).all())}, "
      f"{right} correct of {n} = {right / n:.4f}")
# --8<-- [end:body]

if rank == 0:
    with torch.no_grad():                  # reference: one process, every sample once
        right = (model(dataset.tensors[0]).argmax(1) == labels).sum().item()
    print(f"one process: {right} correct of {n} = {right / n:.4f}")

dist.barrier()
dist.destroy_process_group()
