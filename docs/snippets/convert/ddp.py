#| run: torchrun --standalone --nproc-per-node=2 ddp.py
"""The same training with DDP: one process per device, started by torchrun."""
import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

EPOCHS = 4
BATCH_SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 32  # per rank, per step


def main():
    local_rank = int(os.environ["LOCAL_RANK"])        # set by torchrun
    if torch.cuda.is_available():
        device = torch.device("cuda", local_rank)     # one GPU per process
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    g = torch.Generator().manual_seed(0)              # the same data every run
    x = torch.randn(1024, 20, generator=g)
    y = (x[:, :5].sum(dim=1) > 0).long()              # 1 if 5 features sum above 0
    dataset = TensorDataset(x, y)
    sampler = DistributedSampler(dataset, shuffle=True)   # this rank's share
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler)

    torch.manual_seed(0)                              # the same start every run
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    ddp_model = DDP(model, device_ids=[local_rank] if device.type == "cuda" else None)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    if rank == 0:
        print(f"{world} x batch {BATCH_SIZE}, {len(loader)} steps/epoch, {device}")

    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)                      # a new shuffle each epoch
        running = torch.zeros((), device=device)
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(ddp_model(xb), yb)
            loss.backward()                           # averages gradients over ranks
            optimizer.step()
            running += loss.detach()                  # no sync with the GPU per step
        mean = running / len(loader)
        dist.all_reduce(mean)                         # sum over ranks, to print
        if rank == 0:
            print(f"epoch {epoch}: loss {mean.item() / world:.4f}")

    if rank == 0:
        state = ddp_model.module.state_dict()         # keys without "module."
        torch.save(state, "checkpoint.pt")
        print("saved checkpoint.pt:", ", ".join(state))
    dist.barrier()                                    # leave together, after the save
    del ddp_model            # free DDP while the group lives: see "Ending a script cleanly"
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
