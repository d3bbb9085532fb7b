#| run: python single.py
"""Train a small classifier on one device: the GPU if there is one, else the CPU."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 4
BATCH_SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 32  # per step


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    g = torch.Generator().manual_seed(0)              # the same data every run
    x = torch.randn(1024, 20, generator=g)
    y = (x[:, :5].sum(dim=1) > 0).long()              # 1 if 5 features sum above 0
    dataset = TensorDataset(x, y)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True)

    torch.manual_seed(0)                              # the same start every run
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    print(f"batch {BATCH_SIZE}, {len(loader)} steps/epoch, {device}")

    for epoch in range(EPOCHS):
        running = torch.zeros((), device=device)
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.detach()                  # no sync with the GPU per step
        mean = running / len(loader)
        print(f"epoch {epoch}: loss {mean.item():.4f}")

    state = model.state_dict()
    torch.save(state, "checkpoint.pt")
    print("saved checkpoint.pt:", ", ".join(state))


if __name__ == "__main__":
    main()
