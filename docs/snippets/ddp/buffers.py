#| run: torchrun --standalone --nproc-per-node=2 buffers.py
"""DDP also sends buffers: with forward_sync_buffers on (its default, None, means on), a forward
starts from rank 0's.
"""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:body]
def show(tag, bn):
    print(f"rank {rank}: {tag:<30} running_mean {[round(v, 2) for v in bn.running_mean.tolist()]}")


for sync in (True, False):
    torch.manual_seed(0)
    # buffers: running_mean, running_var, num_batches_tracked
    bn = nn.BatchNorm1d(2)
    ddp_model = DDP(bn, forward_sync_buffers=sync)   # replaces the deprecated broadcast_buffers
    print(f"rank {rank}: forward_sync_buffers={sync}")
    dist.barrier()
    # a pre-hook on the inner module runs after DDP's own work at the start of forward
    hook = bn.register_forward_pre_hook(
        lambda m, args: show("seen as step 2 starts", m) if step == 2 else None)
    for step in (1, 2):
        x = torch.randn(8, 2) + 10.0 * rank   # rank 0's batch is around 0, rank 1's around 10
        ddp_model(x).sum().backward()
        if step == 1:
            show("after step 1", bn)
    hook.remove()
    dist.barrier()
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
