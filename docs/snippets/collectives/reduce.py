#| run: torchrun --standalone --nproc-per-node=3 reduce.py
"""Collectives that combine data: all_reduce with each op, reduce, reduce_scatter, async handles,
barrier.
"""
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
if rank == 0:
    print(f"torch {torch.__version__}, backend {dist.get_backend()}, {world} ranks")

# --8<-- [start:ops]
R = dist.ReduceOp
for op in [R.SUM, R.PRODUCT, R.MIN, R.MAX, R.AVG]:
    t = torch.tensor([float(rank + 1)])          # ranks hold 1, 2, 3, ...
    dist.all_reduce(t, op=op)                    # in place: every rank gets the combined value
    print(f"rank {rank} all_reduce {str(op).split('.')[-1]:<7} -> {t.item():g}")
for op in [R.BAND, R.BOR, R.BXOR]:               # bitwise ops need integer tensors
    t = torch.tensor([1 << rank])                # ranks hold 1, 2, 4, ...
    dist.all_reduce(t, op=op)
    print(f"rank {rank} all_reduce {str(op).split('.')[-1]:<7} -> {t.item()}")
# --8<-- [end:ops]

# --8<-- [start:reduce]
t = torch.tensor([float(rank + 1)])
dist.reduce(t, dst=0, op=R.SUM)                  # the result is only defined on dst
if rank == 0:
    print(f"rank {rank} reduce to 0    -> {t.item():g}")
# --8<-- [end:reduce]

# --8<-- [start:reduce_scatter]
inputs = [torch.tensor([10.0 * rank + k]) for k in range(world)]   # piece k is meant for rank k
out = torch.zeros(1)
dist.reduce_scatter(out, inputs, op=R.SUM)       # piece k summed over ranks, delivered to rank k
print(f"rank {rank} reduce_scatter -> {out.item():g}")
# --8<-- [end:reduce_scatter]

# --8<-- [start:async]
t = torch.tensor([float(rank + 1)])
work = dist.all_reduce(t, async_op=True)         # returns a work handle at once
other = torch.arange(1000.0).sum()               # overlap some computation
work.wait()                                      # t holds the sum only after wait()
print(f"rank {rank} async sum      -> {t.item():g} (completed: {work.is_completed()})")
# --8<-- [end:async]

# --8<-- [start:barrier]
dist.barrier()                                   # line everyone up, then start the clock
start = time.monotonic()
time.sleep(0.3 * rank)                           # ranks reach the barrier at different times
arrived = time.monotonic()
dist.barrier()                                   # nobody leaves until the last rank arrives
print(f"rank {rank} barrier        -> arrived after {arrived - start:.1f} s, "
      f"waited {time.monotonic() - arrived:.1f} s")
# --8<-- [end:barrier]

dist.barrier()
dist.destroy_process_group()
