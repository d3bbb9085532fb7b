#| run: torchrun --standalone --nproc-per-node=3 move.py
"""Collectives that move data without combining it: broadcast, scatter, gather, all_gather."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def show(name, value):
    print(f"rank {rank} {name:<10} {value}")


# --8<-- [start:broadcast]
t = torch.tensor([7.0, 7.0]) if rank == 0 else torch.zeros(2)
dist.broadcast(t, src=0)                     # rank 0's tensor overwrites everyone's, in place
show("broadcast", t.tolist())
# --8<-- [end:broadcast]

# --8<-- [start:scatter]
mine = torch.zeros(1)
pieces = [torch.tensor([10.0 * r]) for r in range(world)] if rank == 0 else None
dist.scatter(mine, scatter_list=pieces, src=0)   # piece r goes to rank r; only src passes a list
show("scatter", mine.tolist())
# --8<-- [end:scatter]

# --8<-- [start:gather]
value = torch.tensor([float(rank * rank)])
bucket = [torch.zeros(1) for _ in range(world)] if rank == 0 else None
dist.gather(value, gather_list=bucket, dst=0)    # everyone's tensor lands in a list on dst only
if rank == 0:
    show("gather", [b.item() for b in bucket])
# --8<-- [end:gather]

# --8<-- [start:all_gather]
everyone = [torch.zeros(1) for _ in range(world)]
dist.all_gather(everyone, torch.tensor([float(rank * rank)]))  # like gather, but onto every rank
show("all_gather", [e.item() for e in everyone])
# --8<-- [end:all_gather]

dist.barrier()
dist.destroy_process_group()
