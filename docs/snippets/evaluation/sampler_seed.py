#| run: python sampler_seed.py
"""DistributedSampler's seed must be the same on every rank."""
from torch.utils.data import DistributedSampler

dataset = list(range(8))
world = 2


def shares(seeds, epoch):
    out = []
    for r in range(world):
        s = DistributedSampler(dataset, num_replicas=world, rank=r, seed=seeds[r])
        s.set_epoch(epoch)
        out.append(list(s))
    return out


# --8<-- [start:body]
for label, seeds in [("seed=0 on both ranks", [0, 0]), ("seed=rank (wrong)", [0, 1])]:
    for epoch in range(2):
        a, b = shares(seeds, epoch)
        print(f"{label}, epoch {epoch}: rank 0 {a} rank 1 {b}  "
              f"samples covered {len(set(a) | set(b))} of {len(dataset)}")
# --8<-- [end:body]
