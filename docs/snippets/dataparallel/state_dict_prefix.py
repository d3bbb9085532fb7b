#| run: python state_dict_prefix.py
"""Save a DataParallel-wrapped model, load it into a plain one."""
# --8<-- [start:body]
import torch
from torch import nn

torch.manual_seed(0)
saved = nn.DataParallel(nn.Linear(4, 2)).state_dict()   # keys start with "module."
print("saved keys:", list(saved))

plain = nn.Linear(4, 2)
plain.load_state_dict(saved)
# --8<-- [end:body]
