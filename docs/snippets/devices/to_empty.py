#| run: python to_empty.py
"""to_empty gives every tensor new, uninitialised memory; from meta it makes new Parameters."""
# --8<-- [start:body]
import inspect

import torch
from torch import nn

model = nn.Linear(2, 2, device="meta")   # shapes only, no data
weight = model.weight
model.to_empty(device="cpu")
print("from meta: same Parameter object", model.weight is weight, "| on", model.weight.device)

model = nn.Linear(2, 2)                   # already holds initialised values
weight, address = model.weight, model.weight.data_ptr()
model.to_empty(device="cpu")
print("from cpu:  same Parameter object", model.weight is weight,
      "| new memory", model.weight.data_ptr() != address)
source = inspect.getsource(nn.Module.to_empty)
print("applied to each tensor:", *[l.strip() for l in source.splitlines() if "empty_like" in l])
# --8<-- [end:body]
