#| run: torchrun --standalone --nproc-per-node=2 map_location_tags.py
"""Each saved storage records its device; map_location says where it is restored."""
import torch
import torch.distributed as dist
from torch import nn

dist.init_process_group("gloo")
rank = dist.get_rank()
if rank == 0:
    torch.save(nn.Linear(4, 2).state_dict(), "ckpt.pt")
dist.barrier()                           # nobody reads before the file is complete

# --8<-- [start:body]
def report(storage, location):                   # called once per storage in the file
    print(f"rank {rank}: {storage.nbytes()} bytes saved on {location!r}")
    return None                                  # None: restore it where it was saved


state = torch.load("ckpt.pt", map_location=report)
state = torch.load("ckpt.pt", map_location="cpu")   # or a device, a dict, a function
print(f"rank {rank}: loaded to {state['weight'].device}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
