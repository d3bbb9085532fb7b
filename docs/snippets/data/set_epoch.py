#| run: python set_epoch.py
"""shuffle=True with and without set_epoch: the same order every epoch unless you call it."""
from torch.utils.data import DistributedSampler

dataset = list(range(8))
world = 2
samplers = [DistributedSampler(dataset, num_replicas=world, rank=r, shuffle=True, seed=0)
            for r in range(world)]
# --8<-- [start:body]
print("without set_epoch:")
for epoch in range(3):
    print(f"  epoch {epoch}: " + "  ".join(f"rank {r} {list(s)}" for r, s in enumerate(samplers)))

print("with set_epoch(epoch):")
for epoch in range(3):
    for s in samplers:
        s.set_epoch(epoch)                    # call on every rank, before iterating the loader
    shards = [list(s) for s in samplers]
    covered = sorted(i for shard in shards for i in shard) == list(range(len(dataset)))
    print(f"  epoch {epoch}: " + "  ".join(f"rank {r} {shard}" for r, shard in enumerate(shards))
          + f"  (together every sample once: {covered})")
# --8<-- [end:body]
