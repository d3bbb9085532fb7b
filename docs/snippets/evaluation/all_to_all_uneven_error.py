#| run: torchrun --standalone --nproc-per-node=3 all_to_all_uneven_error.py
"""all_to_all_single without split sizes needs dim 0 to divide by the world size."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")

# --8<-- [start:body]
send = torch.arange(4)                    # 4 elements, 3 ranks, no split sizes
recv = torch.empty(4, dtype=send.dtype)
dist.all_to_all_single(recv, send)
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
