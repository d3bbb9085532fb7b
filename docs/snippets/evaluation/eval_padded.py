#| run: torchrun --standalone --nproc-per-node=3 eval_padded.py
"""A naive sharded evaluation with DistributedSampler: padded samples count twice."""
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# 10 labelled samples and a 3-class classifier, the same on every rank (same seeds).
g = torch.Generator().manual_seed(0)
dataset = TensorDataset(torch.randn(10, 4, generator=g),
                        torch.randint(0, 3, (10,), generator=g))
torch.manual_seed(0)
model = nn.Linear(4, 3).eval()

# --8<-- [start:body]
sampler = DistributedSampler(dataset, shuffle=False)   # 10 samples, 3 ranks: pads to 12
loader = DataLoader(dataset, batch_size=4, sampler=sampler)
correct = count = 0
with torch.no_grad():
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
        count += len(y)
print(f"rank {rank}: indices {list(sampler)}, {correct} correct of {count}")
dropping = DistributedSampler(dataset, shuffle=False, drop_last=True)
print(f"rank {rank}: with drop_last=True, indices {list(dropping)}")

totals = torch.tensor([correct, count])
dist.all_reduce(totals)                                # naive: sums include the padding
if rank == 0:
    acc = totals[0] / totals[1]
    print(f"naive sharded: {totals[0]} correct of {totals[1]} = {acc:.4f}")
    with torch.no_grad():                  # reference: one process, every sample once
        x, y = dataset.tensors
        right = (model(x).argmax(1) == y).sum().item()
    n = len(dataset)
    print(f"one process:   {right} correct of {n} = {right / n:.4f}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
