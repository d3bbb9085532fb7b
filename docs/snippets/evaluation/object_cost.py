#| run: torchrun --standalone --nproc-per-node=2 object_cost.py
"""What all_gather_object sends: the sizes, then byte tensors padded to the largest."""
import pickle

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

dist.init_process_group("gloo")
rank = dist.get_rank()

# Log each tensor collective the object collective makes: all_gather up to torch 2.14,
# all_gather_single (one output tensor for all ranks) from 2.15. A release lacking one skips it.
NAMES = [name for name in ("all_gather", "all_gather_single") if hasattr(c10d, name)]
real = {name: getattr(c10d, name) for name in NAMES}


def logged(name):
    def call(output, tensor, *args, **kwargs):
        if rank == 0:
            print(f"  {name} of a {tensor.dtype} tensor of {tensor.numel()} elements")
        return real[name](output, tensor, *args, **kwargs)
    return call


for name in NAMES:
    setattr(c10d, name, logged(name))

# --8<-- [start:body]
mine = list(range(100 * rank))                   # rank 0: empty list, rank 1: 100 ints
print(f"rank {rank}: my object pickles to {len(pickle.dumps(mine))} bytes")
out = [None, None]
dist.all_gather_object(out, mine)

t = torch.ones(1000)                             # 4000 bytes of data
print(f"rank {rank}: a tensor of {t.numel() * t.element_size()} bytes pickles to "
      f"{len(pickle.dumps(t))} bytes")
out = [None, None]
dist.all_gather_object(out, t)
# --8<-- [end:body]

for name in NAMES:
    setattr(c10d, name, real[name])
dist.barrier()
dist.destroy_process_group()
