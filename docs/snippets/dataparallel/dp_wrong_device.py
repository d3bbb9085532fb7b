#| run: python dp_wrong_device.py
"""DataParallel over two GPUs with the module left on the CPU."""
import torch
from torch import nn

dp = nn.DataParallel(nn.Linear(4, 2), device_ids=[0, 1])   # module still on the CPU
dp(torch.randn(6, 4, device="cuda:0"))
