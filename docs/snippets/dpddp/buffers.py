#| run: torchrun --standalone --nproc-per-node=2 buffers.py
"""What DDP broadcasts of a BatchNorm's buffers, at construction and in forward."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


# --8<-- [start:body]
def compare(tag, running_mean):
    """Gather every rank's running_mean and print them side by side on rank 0."""
    means = [torch.zeros(2) for _ in range(world)]
    dist.all_gather(means, running_mean.clone())
    shown = "  ".join(f"rank {r} {[round(v, 2) for v in m.tolist()]}"
                      for r, m in enumerate(means))
    equal = all(torch.equal(m, means[0]) for m in means)
    if rank == 0:
        print(f"  {tag:<20} {shown}  equal: {equal}")


settings = {"default": {}, "broadcast_buffers=False": {"broadcast_buffers": False},
            "forward_sync_buffers=False": {"forward_sync_buffers": False}}
for name, kwargs in settings.items():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    bn = model[1]
    bn.running_mean.fill_(float(rank))       # the ranks' buffers differ before wrapping
    ddp_model = DDP(model, **kwargs)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    if rank == 0:
        print(name)
    compare("after DDP(...)", bn.running_mean)
    seen = []                                # running_mean as each forward starts
    bn.register_forward_pre_hook(lambda m, args: seen.append(m.running_mean.clone()))
    for step in (1, 2):
        x = torch.randn(16, 2) + 10.0 * rank # rank 0: around 0; rank 1: around 10
        optimizer.zero_grad()
        ddp_model(x).square().mean().backward()
        optimizer.step()
        if step == 1:
            compare("after step 1", bn.running_mean)
    compare("as forward 2 starts", seen[1])
    dist.barrier()
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
