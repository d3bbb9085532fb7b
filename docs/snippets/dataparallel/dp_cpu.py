#| run: python dp_cpu.py
"""nn.DataParallel on a machine without a GPU: what the wrapper really does."""
# --8<-- [start:body]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
dp = nn.DataParallel(model, device_ids=[0, 1])   # asks for two GPUs this machine does not have

print("cuda available:", torch.cuda.is_available())
print("dp.device_ids:", dp.device_ids)           # what the wrapper kept of device_ids=[0, 1]
print("dp.module is model:", dp.module is model)

batch = torch.randn(6, 4)
out = dp(batch)
print("output", tuple(out.shape), "on", out.device)
print("identical to model(batch):", torch.equal(out, model(batch)))
print("state_dict keys:", list(dp.state_dict()))
# --8<-- [end:body]
