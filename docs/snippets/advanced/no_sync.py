#| run: torchrun --standalone --nproc-per-node=2 no_sync.py
"""Gradient accumulation with no_sync(): local gradients while accumulating, one all-reduce per
step.
"""
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def agree(t):
    """Do all ranks hold the same tensor? (gathers every rank's copy)"""
    copies = [torch.zeros_like(t) for _ in range(world)]
    dist.all_gather(copies, t)
    return all(torch.equal(copies[0], c) for c in copies)


def rounded(t):
    return [round(v, 4) for v in t.flatten().tolist()]


torch.manual_seed(0)
model = nn.Linear(3, 1)
plain = copy.deepcopy(model)                 # no DDP: accumulates this rank's own gradient
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
w_true = torch.tensor([[1.0], [-2.0], [0.5]])
torch.manual_seed(10 + rank)                 # different data on each rank
ACCUM = 2                                    # micro-batches per optimizer step
micro_batches = []
for _ in range(ACCUM):
    x = torch.randn(16, 3)
    micro_batches.append((x, x @ w_true + 0.1 * torch.randn(16, 1)))

# --8<-- [start:body]
for step in range(6):
    optimizer.zero_grad()
    total = torch.zeros(1)
    for micro, (x, y) in enumerate(micro_batches):
        last = micro == ACCUM - 1
        if not last:
            with ddp_model.no_sync():        # backward only accumulates into .grad, no all-reduce
                loss = nn.functional.mse_loss(ddp_model(x), y) / ACCUM
                loss.backward()
        else:
            loss = nn.functional.mse_loss(ddp_model(x), y) / ACCUM
            loss.backward()                  # all-reduces the accumulated gradient
        total += loss.detach()
        if step == 0:                        # the proof, on the first step
            (nn.functional.mse_loss(plain(x), y) / ACCUM).backward()   # local accumulation, no DDP
            grad = model.weight.grad
            own = torch.allclose(grad, plain.weight.grad)
            same = agree(grad)
            mean_local = plain.weight.grad.clone()
            dist.all_reduce(mean_local)
            mean_local /= world
            print(f"rank {rank} micro-batch {micro} ({'synced' if last else 'no_sync'}): "
                  f"grad {rounded(grad)}, equals this rank's own gradient: {own}")
            if rank == 0:
                print(f"  all ranks hold the same gradient: {same}; it is the mean of the ranks' "
                      f"own accumulated gradients: {torch.allclose(grad, mean_local)}")
    optimizer.step()
    dist.all_reduce(total)
    if rank == 0:
        print(f"step {step}: loss {total.item() / world:.4f}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
