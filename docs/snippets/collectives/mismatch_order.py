#| run: torchrun --standalone --nproc-per-node=2 mismatch_order.py
"""Two all_reduces of the same shape, called in a different order on each rank."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:body]
loss = torch.tensor([1.0 + rank])            # rank 0: 1, rank 1: 2; sum 3
count = torch.tensor([100.0 * (1 + rank)])   # rank 0: 100, rank 1: 200; sum 300
if rank == 0:
    dist.all_reduce(loss)
    dist.all_reduce(count)
else:                                        # the bug: the other order
    dist.all_reduce(count)
    dist.all_reduce(loss)
print(f"rank {rank}: loss {loss.item():g}, count {count.item():g}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
