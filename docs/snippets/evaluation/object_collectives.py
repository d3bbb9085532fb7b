#| run: torchrun --standalone --nproc-per-node=3 object_collectives.py
"""all_gather_object, gather_object, broadcast_object_list, scatter_object_list on gloo."""
import pickle

import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# Any picklable object, of a different size on each rank.
mine = {"rank": rank, "wrong_ids": list(range(10 * rank, 10 * rank + rank + 1))}
print(f"rank {rank} sends {mine} ({len(pickle.dumps(mine))} bytes pickled)")

# Every rank receives every rank's object, in rank order.
everyone = [None] * world
dist.all_gather_object(everyone, mine)
print(f"rank {rank} all_gather_object -> {everyone}")

# Only the destination receives; the others must pass None as the output list.
at_zero = [None] * world if rank == 0 else None
dist.gather_object(mine, at_zero, dst=0)
print(f"rank {rank} gather_object -> {at_zero}")

# The source's list is sent; every other rank's list is overwritten in place.
config = [{"lr": 0.1, "tag": "run-7"}, "eval"] if rank == 0 else [None, None]
dist.broadcast_object_list(config, src=0)
print(f"rank {rank} broadcast_object_list -> {config}")

# The source's list holds one object per rank; rank i gets element i.
shards = [f"shard-{i}.tar" for i in range(world)] if rank == 0 else None
got = [None]
dist.scatter_object_list(got, shards, src=0)
print(f"rank {rank} scatter_object_list -> {got}")

dist.barrier()
dist.destroy_process_group()
