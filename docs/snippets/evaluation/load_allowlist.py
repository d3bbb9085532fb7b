#| run: python load_allowlist.py
"""Allow a trusted class for weights_only loading: for one block, or for the process."""
from dataclasses import dataclass

import torch
from torch.serialization import (add_safe_globals, get_unsafe_globals_in_checkpoint,
                                 safe_globals)


@dataclass
class RunConfig:
    lr: float
    tag: str


torch.save({"weight": torch.ones(2, 2), "config": RunConfig(0.1, "run-7")}, "custom.pt")

# --8<-- [start:body]
print("needs allowing:", get_unsafe_globals_in_checkpoint("custom.pt"))

with safe_globals([RunConfig]):                  # allowed inside this block only
    print("inside safe_globals:", torch.load("custom.pt")["config"])

try:
    torch.load("custom.pt")
except Exception as e:
    print("after the block:", type(e).__name__)

full = torch.load("custom.pt", weights_only=False)    # plain pickle: trusted files only
print("weights_only=False:", full["config"])

add_safe_globals([RunConfig])                    # allowed from now on, in this process
print("after add_safe_globals:", torch.load("custom.pt")["config"])
# --8<-- [end:body]
