#| run: torchrun --standalone --nproc-per-node=2 join_extra.py
"""join() with a collective of the loop's own: an all_reduce of the loss for logging."""
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=5))   # a hang becomes an error after 5 s
rank = dist.get_rank()
# --8<-- [start:bug]
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 1))
data = [torch.randn(8, 4) for _ in range(3 if rank == 0 else 5)]   # same batches on both ranks
with ddp_model.join():
    for step, x in enumerate(data):
        loss = ddp_model(x).pow(2).mean()
        loss.backward()
        logged = loss.detach().clone()
        dist.all_reduce(logged)              # the loop's own collective: no shadow in join()
        ratio = logged.item() / loss.item()
        print(f"rank {rank}: step {step}, all-reduced loss / own loss = {ratio:.2f}")
print(f"rank {rank}: left join()")
# --8<-- [end:bug]
dist.destroy_process_group()
