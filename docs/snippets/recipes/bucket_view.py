#| run: torchrun --standalone --nproc-per-node=2 bucket_view.py
"""gradient_as_bucket_view=True: each .grad is a view into DDP's bucket."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()

for as_view in (False, True):
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 1)),
                gradient_as_bucket_view=as_view, static_graph=True)
    for step in range(2):
        model.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
    grads = [p.grad for p in model.parameters()]
    ptrs = [g.untyped_storage().data_ptr() for g in grads]
    if rank == 0:
        print(f"gradient_as_bucket_view={as_view}: "
              f"grads share one storage: {len(set(ptrs)) == 1}, "
              f"grad sizes {[g.numel() for g in grads]}, "
              f"storage elements {grads[0].untyped_storage().nbytes() // 4}")
dist.barrier()
dist.destroy_process_group()
