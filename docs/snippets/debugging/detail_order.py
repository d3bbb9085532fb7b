#| run: torchrun --standalone --nproc-per-node=2 detail_order.py
"""DETAIL and two same-shape all_reduces called in a different order on each rank."""
import os

# read when torch.distributed is imported: set it first
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
# --8<-- [start:body]
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
print(f"rank {rank}: debug level {dist.get_debug_level()}")

loss = torch.tensor([1.0 + rank])            # sum over ranks: 3
count = torch.tensor([100.0 * (1 + rank)])   # sum over ranks: 300
first, second = (loss, count) if rank == 0 else (count, loss)   # the bug
dist.all_reduce(first)
dist.all_reduce(second)
print(f"rank {rank}: loss {loss.item():g}, count {count.item():g}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
