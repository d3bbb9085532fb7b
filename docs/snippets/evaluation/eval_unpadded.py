#| run: torchrun --standalone --nproc-per-node=3 eval_unpadded.py
"""Exact sharded evaluation, way 2: shard without padding, add up correct and counts."""
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Subset, TensorDataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# The same 10 samples and the same classifier as the naive evaluation.
g = torch.Generator().manual_seed(0)
dataset = TensorDataset(torch.randn(10, 4, generator=g),
                        torch.randint(0, 3, (10,), generator=g))
torch.manual_seed(0)
model = nn.Linear(4, 3).eval()
n = len(dataset)

# --8<-- [start:body]
share = Subset(dataset, range(rank, n, world))              # rank r: r, r + world, ...
correct = 0
with torch.no_grad():
    for x, y in DataLoader(share, batch_size=4):
        correct += (model(x).argmax(1) == y).sum().item()
totals = torch.tensor([correct, len(share)])
print(f"rank {rank}: share {list(share.indices)}, {correct} correct of {len(share)}")
dist.all_reduce(totals)                            # sums, not per-rank accuracies
if rank == 0:
    print(f"summed: {totals[0]} correct of {totals[1]} = {(totals[0] / totals[1]):.4f}")
# --8<-- [end:body]

if rank == 0:
    with torch.no_grad():                  # reference: one process, every sample once
        right = (model(dataset.tensors[0]).argmax(1) == dataset.tensors[1]).sum().item()
    print(f"one process: {right} correct of {n} = {right / n:.4f}")

dist.barrier()
dist.destroy_process_group()
