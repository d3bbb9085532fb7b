#| run: python global_batch.py
"""Per-rank batch size vs. the global batch one optimizer step sees."""
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dataset = TensorDataset(torch.arange(32.0))
# --8<-- [start:body]
world, per_rank_batch = 2, 4
for rank in range(world):                     # what each of the 2 ranks would build
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
    loader = DataLoader(dataset, batch_size=per_rank_batch, sampler=sampler)
    first = next(iter(loader))[0]
    print(f"rank {rank}: {len(sampler)} samples, {len(loader)} batches per epoch, "
          f"first batch {first.int().tolist()}")

print(f"samples per optimizer step: {per_rank_batch} per rank x {world} ranks"
      f" = {per_rank_batch * world}")
# --8<-- [end:body]
