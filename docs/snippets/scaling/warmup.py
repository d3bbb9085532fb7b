#| run: torchrun --standalone --nproc-per-node=2 warmup.py
"""Linear warm-up, then linear decay, stepped once per optimizer step under accumulation."""
import contextlib

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.optim.lr_scheduler import LinearLR, SequentialLR

# --8<-- [start:body]
WARMUP_STEPS, TOTAL_STEPS, ACCUM = 4, 10, 2    # counted in optimizer steps

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
peak_lr = 0.05 * world                          # linear rule, from the world size
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=peak_lr)
warmup = LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=WARMUP_STEPS)
decay = LinearLR(optimizer, start_factor=1.0, end_factor=0.0,
                 total_iters=TOTAL_STEPS - WARMUP_STEPS)
scheduler = SequentialLR(optimizer, [warmup, decay], milestones=[WARMUP_STEPS])

torch.manual_seed(10 + rank)                    # different data on each rank
micro_batches = 0
for step in range(TOTAL_STEPS):
    optimizer.zero_grad()
    for i in range(ACCUM):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        with contextlib.nullcontext() if i == ACCUM - 1 else ddp_model.no_sync():
            (nn.functional.mse_loss(ddp_model(x), y) / ACCUM).backward()
        micro_batches += 1
    lr = optimizer.param_groups[0]["lr"]        # the rate this step uses
    optimizer.step()
    scheduler.step()                            # once per optimizer step, after it
    every_lr = [torch.zeros((), dtype=torch.float64) for _ in range(world)]
    dist.all_gather(every_lr, torch.tensor(lr, dtype=torch.float64))
    if rank == 0:
        same = all(v.item() == lr for v in every_lr)
        print(f"step {step}: lr {lr:.4f}  (same on all {world} ranks: {same})")
print(f"rank {rank}: {micro_batches} micro-batches, {TOTAL_STEPS} optimizer steps, "
      f"scheduler.last_epoch {scheduler.last_epoch}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
