#| run: python state_dict_fix.py
"""Two ways to avoid the 'module.' prefix problem."""
import torch
from torch import nn

torch.manual_seed(0)
dp = nn.DataParallel(nn.Linear(4, 2))

# --8<-- [start:body]
# 1. Save the inner module, not the wrapper.
plain = nn.Linear(4, 2)
print(plain.load_state_dict(dp.module.state_dict()))

# 2. Or strip the prefix from a checkpoint that already has it.
saved = dp.state_dict()
stripped = {key.removeprefix("module."): value for key, value in saved.items()}
print(plain.load_state_dict(stripped))
# --8<-- [end:body]
