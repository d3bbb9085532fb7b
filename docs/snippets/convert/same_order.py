#| run: python same_order.py
"""single.py, batch 32, fed in the order two DDP ranks with 16 each see."""
import torch
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

g = torch.Generator().manual_seed(0)                  # the same data as both scripts
x = torch.randn(1024, 20, generator=g)
y = (x[:, :5].sum(dim=1) > 0).long()
dataset = TensorDataset(x, y)

# Step 0 of the DDP run: the first 16 samples of rank 0 and the first 16 of rank 1.
shares = [list(DistributedSampler(dataset, num_replicas=2, rank=r)) for r in (0, 1)]
ddp_step0 = sorted(shares[0][:16] + shares[1][:16])
# One replica takes the sampler's whole permutation, in order.
sampler = DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=True)
print("step 0 holds the same 32 samples:", sorted(list(sampler)[:32]) == ddp_step0)

loader = DataLoader(dataset, batch_size=32, sampler=sampler)
torch.manual_seed(0)                                  # the same start as both scripts
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(4):
    sampler.set_epoch(epoch)                          # the DDP run's order this epoch
    running = torch.zeros(())
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.detach()
    print(f"epoch {epoch}: loss {(running / len(loader)).item():.4f}")
