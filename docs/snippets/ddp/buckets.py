#| run: python buckets.py
"""Watch DDP's gradient buckets become ready while backward is still running."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

# A one-process group is enough to watch the bucket machinery (no torchrun needed).
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:body]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
names = {p: n for n, p in model.named_parameters()}

print("default bucket cap:", DDP(nn.Linear(2, 2)).bucket_bytes_cap / 2**20, "MiB")
ddp_model = DDP(model, bucket_cap_mb=0.25)   # small buckets, so this small model gets several

def announce(i):                             # say when backward reaches Linear layer i
    def on_forward(module, inputs, output):
        output.register_hook(lambda grad: print(f"  backward reaches layer {i}"))
    return on_forward

for i in (0, 2, 4):
    model[i].register_forward_hook(announce(i))

def logging_allreduce(state, bucket):        # the default all-reduce, plus one print
    params = [names[p] for p in bucket.parameters()]
    print(f"  bucket {bucket.index()} ready, all_reduce starts: {params}")
    return default_hooks.allreduce_hook(state, bucket)

ddp_model.register_comm_hook(None, logging_allreduce)

for step in range(2):
    print(f"iteration {step}")
    ddp_model(torch.randn(8, 256)).sum().backward()
# --8<-- [end:body]
dist.destroy_process_group()
