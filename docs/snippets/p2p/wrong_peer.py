#| run: torchrun --standalone --nproc-per-node=2 wrong_peer.py
"""A typo in the peer rank: each rank tries to send to itself."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# --8<-- [start:bug]
right = rank % world                        # meant (rank + 1) % world
dist.send(torch.tensor([1.0]), dst=right)
# --8<-- [end:bug]
dist.barrier()
dist.destroy_process_group()
