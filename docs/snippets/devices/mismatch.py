#| run: python mismatch.py
"""A module on one device, its input on another: the forward pass refuses to mix them."""
import torch
from torch import nn

model = nn.Linear(3, 1).to("meta")    # parameters on the meta device
batch = torch.randn(4, 3)             # input on the CPU
print("model on", next(model.parameters()).device, "| batch on", batch.device)
model(batch)
