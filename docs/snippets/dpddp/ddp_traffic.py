#| run: torchrun --standalone --nproc-per-node=2 ddp_traffic.py
"""What DDP sends per training step: the gradients, once, in buckets; the parameters are never
copied again.
"""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# --8<-- [start:body]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 1))
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.01)
sent = []                                    # bytes of every bucket all-reduced this step


def counting_allreduce(state, bucket):       # the default all-reduce, plus bookkeeping
    sent.append(bucket.buffer().numel() * bucket.buffer().element_size())
    return default_hooks.allreduce_hook(state, bucket)


ddp_model.register_comm_hook(None, counting_allreduce)
storage = [p.data_ptr() for p in model.parameters()]   # where the weights live in memory

torch.manual_seed(10 + rank)
x = torch.randn(64, 256)
y = x[:, :1] - x[:, 1:2]
for step in range(4):
    sent.clear()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    loss.backward()
    optimizer.step()
    if rank == 0:
        print(f"step {step}: loss {loss.item():.4f}, all-reduced {len(sent)} bucket(s), "
              f"{sum(sent)} bytes (the parameters are {param_bytes} bytes)")
same_storage = storage == [p.data_ptr() for p in model.parameters()]
if rank == 0:
    print("the same parameter tensors, updated in place, at every step:", same_storage)
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
