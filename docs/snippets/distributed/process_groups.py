#| run: torchrun --standalone --nproc-per-node=4 process_groups.py
"""The default group holds every rank; new_group makes smaller ones with their own ranks."""
# --8<-- [start:body]
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# Every rank must call new_group for every group, in the same order, even groups it is not in.
evens = dist.new_group([r for r in range(world) if r % 2 == 0])
odds = dist.new_group([r for r in range(world) if r % 2 == 1])
mine = evens if rank % 2 == 0 else odds

everyone, in_group = torch.tensor([rank]), torch.tensor([rank])
dist.all_reduce(everyone)                        # default group: sum over all ranks
dist.all_reduce(in_group, group=mine)            # only the ranks of `mine`
size = dist.get_world_size(mine)
print(f"global rank {rank}: rank {dist.get_rank(mine)} of {size} in its group, "
      f"rank in the other group {dist.get_rank(odds if mine is evens else evens)}; "
      f"sum over world {everyone.item()}, sum over group {in_group.item()}")

dist.barrier()
dist.destroy_process_group()
# --8<-- [end:body]
