#| run: python dp_gpus.py
"""DataParallel on two GPUs: where each piece of the batch runs, in which thread, and where the
output lands.
"""
# --8<-- [start:body]
import os
import threading

import torch
from torch import nn

seen = []                                     # filled from the replicas' threads


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, x):
        seen.append((threading.current_thread().name, os.getpid(), tuple(x.shape), str(x.device),
                     str(self.lin.weight.device)))
        return self.lin(x)


torch.manual_seed(0)
model = Probe().to("cuda:0")                  # the module must sit on device_ids[0]
dp = nn.DataParallel(model, device_ids=[0, 1])
print("main thread:", threading.current_thread().name, "pid", os.getpid())

for output_device in (0, 1):
    # normally set once: DataParallel(..., output_device=1)
    dp.output_device = output_device
    seen.clear()
    batch = torch.randn(5, 4, device="cuda:0")
    out = dp(batch)
    for thread, pid, shape, x_dev, w_dev in sorted(seen, key=lambda s: s[3]):
        print(f"  replica in {thread} (pid {pid}): input {shape} on {x_dev}, weights on {w_dev}")
    print(f"output_device={output_device}: gathered output {tuple(out.shape)} on {out.device}")

out.sum().backward()
print("gradient lands on the original module:", model.lin.weight.grad.device)
# --8<-- [end:body]
