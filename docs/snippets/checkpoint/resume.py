#| run: torchrun --standalone --nproc-per-node=2 resume.py
"""Stop after 3 epochs, resume from the checkpoint with fresh objects, compare with a run that never
stopped.
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

g = torch.Generator().manual_seed(0)         # the same data on every rank
x = torch.randn(128, 4, generator=g)
w_true = torch.tensor([[2.0], [-3.0], [1.0], [0.5]])
dataset = TensorDataset(x, x @ w_true + 0.1 * torch.randn(128, 1, generator=g))


def save(ddp_model, optimizer, epoch, path):
    if rank == 0:                            # one writer: every replica is identical anyway
        torch.save({"model": ddp_model.module.state_dict(),   # .module: keys without "module."
                    "optimizer": optimizer.state_dict(),
                    "epoch": epoch}, path)
    dist.barrier()                           # nobody reads the file before rank 0 has finished it


def load(model, optimizer, path, restore_optimizer=True):
    ckpt = torch.load(path, map_location="cpu")   # on GPUs: map_location=f"cuda:{local_rank}"
    model.load_state_dict(ckpt["model"])     # into the plain module, before or after wrapping
    if restore_optimizer:
        optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"] + 1                 # the first epoch still to do


def train(label, save_to, resume_from=None, stop_after=None, restore_optimizer=True, epochs=6):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)                  # brand-new objects, as in a new process
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.5)
    start = load(model, optimizer, resume_from, restore_optimizer) if resume_from else 0
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    losses = []
    for epoch in range(start, epochs):
        sampler.set_epoch(epoch)             # the resumed epoch gets the shuffle it would have had
        total = torch.zeros(1)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(ddp_model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        dist.all_reduce(total)
        losses.append(round(total.item() / (world * len(loader)), 4))
        save(ddp_model, optimizer, epoch, save_to)
        if epoch == stop_after:
            break                            # the job is stopped here (time limit, crash, ...)
    if rank == 0:
        print(f"{label:<34} epochs {start}-{epoch}: loss {losses}")
    return losses


straight = train("uninterrupted run", save_to="straight.pt")
first = train("run 1, stopped after epoch 2", save_to="run1.pt", stop_after=2)
second = train("run 2, resumed from run1.pt", save_to="run2.pt", resume_from="run1.pt")
no_opt = train("run 2 without the optimizer state", save_to="run2b.pt", resume_from="run1.pt",
               restore_optimizer=False)
if rank == 0:
    print("run 1 + run 2 == uninterrupted:", first + second == straight)
    print("run 1 + run 2 without optimizer state == uninterrupted:", first + no_opt == straight)

dist.barrier()
dist.destroy_process_group()
