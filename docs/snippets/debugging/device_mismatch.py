#| run: python device_mismatch.py
"""Weights on one device, data on another: on CPU, the meta device stands in for a GPU."""
import torch
from torch import nn

# --8<-- [start:bug]
model = nn.Linear(4, 1, device="meta")       # parameters on the "meta" device (shapes, no data)
x = torch.randn(2, 4)                        # the batch on the CPU
print("weights on", model.weight.device, "| input on", x.device)
model(x)
# --8<-- [end:bug]
