#| run: python future_flags.py
"""Two torch.__future__ switches change whether module.to keeps the Parameter objects."""
# --8<-- [start:body]
import torch
from torch import nn

torch.__future__.set_overwrite_module_params_on_conversion(True)
model = nn.Linear(3, 1)
weight_before = model.weight
model.to(torch.float64)
print("overwrite on, .to(torch.float64): same Parameter object:", model.weight is weight_before)
weight_before = model.weight
model.to("cpu")                       # already there: nothing to convert
print("overwrite on, .to('cpu'):         same Parameter object:", model.weight is weight_before)
torch.__future__.set_overwrite_module_params_on_conversion(False)

torch.__future__.set_swap_module_params_on_conversion(True)
model = nn.Linear(3, 1)
model(torch.randn(2, 3)).sum().backward()
weight_before, grad_before = model.weight, model.weight.grad
model.to("meta")
print("swap on, .to('meta'): weight on", model.weight.device,
      "| same Parameter object:", model.weight is weight_before,
      "| same .grad object:", model.weight.grad is grad_before)
# --8<-- [end:body]
