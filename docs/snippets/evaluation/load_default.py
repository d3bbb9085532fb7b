#| run: python load_default.py
"""torch.load's weights_only default, and what it refuses: a pickled custom class."""
import inspect
from dataclasses import dataclass

import torch


@dataclass
class RunConfig:
    lr: float
    tag: str


# --8<-- [start:body]
print("weights_only default in the signature:",
      inspect.signature(torch.load).parameters["weights_only"].default)

weights = {"weight": torch.ones(2, 2), "epoch": 3, "name": "linear"}
torch.save(weights, "plain.pt")
print("tensors, numbers, strings, dicts load:", torch.load("plain.pt").keys())

torch.save({"weight": torch.ones(2, 2), "config": RunConfig(0.1, "run-7")}, "custom.pt")
torch.load("custom.pt")                          # weights_only not passed
# --8<-- [end:body]
