#| run: python pick_device.py
"""Device-agnostic placement: the same code runs on a GPU when there is one, on the CPU otherwise.
"""
# --8<-- [start:body]
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("cuda available:", torch.cuda.is_available(), "| GPUs:", torch.cuda.device_count())

torch.manual_seed(0)
model = nn.Linear(3, 1)
weight_before = model.weight
model.to(device)                              # move the module once, before building the optimizer
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batch = torch.randn(4, 3, device=device)      # create data where it will be used
out = model(batch)

print("device object:", device, "| its index:", device.index)
print("model on", next(model.parameters()).device, "| batch on", batch.device,
      "| output on", out.device)
print("same weight Parameter object after .to:", model.weight is weight_before)
# --8<-- [end:body]
