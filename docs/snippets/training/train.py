#| run: torchrun --standalone --nproc-per-node=2 train.py
"""A complete DDP training loop on a tiny synthetic regression problem."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# The same synthetic data on every rank (same seed): y = x @ w_true + 0.5 + noise.
g = torch.Generator().manual_seed(0)
w_true = torch.tensor([[2.0], [-3.0], [1.0], [0.5]])
def make(n):
    x = torch.randn(n, 4, generator=g)
    return TensorDataset(x, x @ w_true + 0.5 + 0.1 * torch.randn(n, 1, generator=g))
train_set, eval_set = make(256), make(64)

# rank and world from the group
train_sampler = DistributedSampler(train_set, shuffle=True, seed=0)
eval_sampler = DistributedSampler(eval_set, shuffle=False)            # 64 divides by 2: no padding
train_loader = DataLoader(train_set, batch_size=16, sampler=train_sampler)
eval_loader = DataLoader(eval_set, batch_size=32, sampler=eval_sampler)

torch.manual_seed(0)
model = nn.Linear(4, 1)
ddp_model = DDP(model)                       # broadcasts rank 0's weights to every rank
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()                       # regression: one output, float targets


@torch.no_grad()
def evaluate():
    ddp_model.eval()
    # [sum of squared errors, number of samples] on this rank
    totals = torch.zeros(2)
    for x, y in eval_loader:
        totals += torch.tensor([((ddp_model(x) - y) ** 2).sum().item(), len(y)])
    dist.all_reduce(totals)                  # add up every rank's share of the eval set
    ddp_model.train()
    return (totals[0] / totals[1]).item()


for epoch in range(5):
    train_sampler.set_epoch(epoch)           # a new shuffle each epoch, agreed by all ranks
    running = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(ddp_model(x), y)
        loss.backward()                      # gradients are averaged across ranks here
        optimizer.step()                     # no barrier needed: every rank applies the same update
        running += loss.item()
    local = torch.tensor(running / len(train_loader))   # this rank's mean loss (a plain number)
    avg = local.clone()
    dist.all_reduce(avg)                     # every rank calls it, even though only rank 0 prints
    avg /= world
    val = evaluate()
    if rank == 0:
        print(f"epoch {epoch}: train loss {avg.item():.4f} (rank 0 alone: {local.item():.4f}), "
              f"eval MSE {val:.4f}")

flat = torch.cat([p.detach().flatten() for p in model.parameters()])
copies = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(copies, flat)
if rank == 0:
    print("replicas identical after training:", all(torch.equal(copies[0], c) for c in copies))

dist.barrier()                               # for a clean shutdown only, not for gradient sync
dist.destroy_process_group()
