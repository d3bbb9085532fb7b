#| run: torchrun --standalone --nproc-per-node=2 object_cost.py
"""What all_gather_object sends: the sizes, then byte tensors padded to the largest."""
import pickle

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

dist.init_process_group("gloo")
rank = dist.get_rank()

# Log each tensor all_gather the object collective makes (it calls c10d.all_gather).
real_all_gather = c10d.all_gather


def logged_all_gather(tensor_list, tensor, *args, **kwargs):
    if rank == 0:
        print(f"  all_gather of a {tensor.dtype} tensor of {tensor.numel()} elements")
    return real_all_gather(tensor_list, tensor, *args, **kwargs)


c10d.all_gather = logged_all_gather

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

c10d.all_gather = real_all_gather
dist.barrier()
dist.destroy_process_group()
