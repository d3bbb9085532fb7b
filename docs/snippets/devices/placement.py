#| run: python placement.py
"""Where tensors and modules live, and the one difference between tensor.to and module.to."""
# --8<-- [start:body]
import torch
from torch import nn

# "meta" is a device every build has: tensors there have a shape and dtype but no data.
# It stands in here for a second device, so this runs on a machine without a GPU.
other = torch.device("meta")

x = torch.randn(2, 3)
print("x lives on", x.device)

x.to(other)                           # returns a NEW tensor on `other`; the result is thrown away
print("after x.to(other):     x on", x.device)
x = x.to(other)                       # keep the result
print("after x = x.to(other): x on", x.device)

y = torch.randn(2, 3)
print("y.to('cpu') is y:", y.to("cpu") is y)   # already there: no copy, the same object
print("y.to('cpu', copy=True) is y:", y.to("cpu", copy=True) is y)

model = nn.Linear(3, 1)
weight_before = model.weight
print("weight id before .to(torch.float64):", id(model.weight))
model.to(torch.float64)               # a real conversion of the data, on the CPU
print("weight id after  .to(torch.float64):", id(model.weight), "| dtype", model.weight.dtype)
print("same weight Parameter object after the dtype change:", model.weight is weight_before)

print("model on", next(model.parameters()).device)
returned = model.to(other)            # modules move in place and return themselves
print("after model.to(other): model on", next(model.parameters()).device,
      "| returned is model:", returned is model)
print("same weight Parameter object after the move to meta:", model.weight is weight_before)
# --8<-- [end:body]
