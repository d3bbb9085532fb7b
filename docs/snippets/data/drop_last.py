#| run: python drop_last.py
"""drop_last=True: trim the dataset to a multiple of the world size instead of padding it."""
from torch.utils.data import DistributedSampler

dataset = list(range(10))
# --8<-- [start:body]
world = 3
for drop_last in (False, True):
    print(f"drop_last={drop_last}:")
    for rank in range(world):
        sampler = DistributedSampler(dataset, num_replicas=world, rank=rank,
                                     shuffle=False, drop_last=drop_last)
        print(f"  rank {rank}: {list(sampler)} ({len(sampler)} samples)")
# --8<-- [end:body]
