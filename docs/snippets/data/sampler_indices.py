#| run: python sampler_indices.py
"""Which dataset indices each rank gets from DistributedSampler (no processes needed)."""
from torch.utils.data import DistributedSampler

dataset = list(range(10))            # any object with __len__ works; indices are what matter here
# --8<-- [start:body]
for world in (2, 3):
    print(f"{len(dataset)} samples, {world} ranks, shuffle=False:")
    for rank in range(world):
        sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
        print(f"  rank {rank}: {list(sampler)}")
# --8<-- [end:body]
