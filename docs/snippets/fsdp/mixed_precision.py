#| run: torchrun --standalone --nproc-per-node=2 mixed_precision.py
"""MixedPrecisionPolicy: compute in bfloat16, keep float32 shards, choose the reduction dtype."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

dist.init_process_group("gloo")
rank = dist.get_rank()


def report(module, args):
    """A forward pre-hook runs after FSDP's own, which has just gathered the weight."""
    if rank == 0:
        print(f"  in forward: input {args[0].dtype}, weight {module.weight.dtype} "
              f"({type(module.weight).__name__})")


def bf16_values(t):
    """The share of values that bfloat16 can hold exactly."""
    return (t.to(torch.bfloat16).float() == t).float().mean().item()


# --8<-- [start:body]
for reduce_dtype in (torch.float32, torch.bfloat16, None):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=reduce_dtype)
    fully_shard(model[0], mp_policy=policy)
    fully_shard(model[2], mp_policy=policy)
    fully_shard(model, mp_policy=policy)
    hook = model[0].register_forward_pre_hook(report)
    torch.manual_seed(10 + rank)             # each rank its own data
    x = torch.randn(32, 8)                   # float32
    if rank == 0:
        print(f"reduce_dtype={reduce_dtype}:")
    out = model(x)
    out.float().pow(2).mean().backward()
    w = model[0].weight
    if rank == 0:
        print(f"  output {out.dtype}; after backward: weight {w.dtype} ({type(w).__name__}), "
              f"grad {w.grad.dtype}")
        print(f"  share of gradient values that are bfloat16 values: "
              f"{bf16_values(w.grad.to_local()):.2f}")
    hook.remove()
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
