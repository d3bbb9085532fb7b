#| run: torchrun --standalone --nproc-per-node=2 replica_vs_shard.py
"""What one rank holds: DDP keeps a full replica, FSDP (fully_shard) keeps a 1/world_size slice."""
# --8<-- [start:body]

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024))


def local_mib(tensors):
    """Bytes this process stores; for a sharded (DTensor) parameter, only its local shard."""
    local = [t.to_local() if hasattr(t, "to_local") else t for t in tensors]
    return sum(t.numel() * t.element_size() for t in local) / 2**20


global_batch = torch.randn(16, 1024)              # the same 16 samples exist on every rank
my_samples = global_batch.chunk(world)[rank]      # each rank trains on its own slice

ddp = DDP(make_model())
ddp(my_samples).pow(2).mean().backward()

sharded = make_model()
for layer in sharded:
    if isinstance(layer, nn.Linear):
        # each Linear's parameters are cut into world slices
        fully_shard(layer)
fully_shard(sharded)
during = {}
sharded[0].register_forward_pre_hook(                 # runs after FSDP's own pre-forward hook
    lambda layer, args: during.update(shape=tuple(layer.weight.shape),
                                      kind=type(layer.weight).__name__))
sharded(my_samples).pow(2).mean().backward()

params = list(ddp.parameters())
print(f"rank {rank}/{world}: trains on {len(my_samples)} of {len(global_batch)} samples")
print(f"rank {rank}: DDP  holds weights {local_mib(params):5.1f} MiB, "
      f"grads {local_mib(p.grad for p in params):5.1f} MiB")
params = list(sharded.parameters())
print(f"rank {rank}: FSDP holds weights {local_mib(params):5.1f} MiB, "
      f"grads {local_mib(p.grad for p in params):5.1f} MiB")
weight = sharded[0].weight
print(f"rank {rank}: FSDP layer 0 weight at rest: local shard {tuple(weight.to_local().shape)} "
      f"of {tuple(weight.shape)}; during its forward: {during['kind']} {during['shape']}")

dist.barrier()
dist.destroy_process_group()
# --8<-- [end:body]
