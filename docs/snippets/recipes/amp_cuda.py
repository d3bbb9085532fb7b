#| run: torchrun --standalone --nproc-per-node=1 amp_cuda.py
"""bfloat16 autocast on a GPU around forward and loss, one rank per GPU; backward outside it."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 2).to(device), device_ids=[device.index])
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
x, y = torch.randn(8, 4, device=device), torch.randn(8, 2, device=device)

print(f"rank {rank}: autocast's default dtype on cuda: {torch.get_autocast_dtype('cuda')}")
optimizer.zero_grad()
with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
    out = ddp_model(x)
    loss = nn.functional.mse_loss(out, y)
loss.backward()
optimizer.step()
grad = ddp_model.module.weight.grad
print(f"rank {rank}: out {out.dtype}, loss {loss.dtype}, "
      f"param {ddp_model.module.weight.dtype}, grad {grad.dtype}, on {out.device}")
dist.barrier()
dist.destroy_process_group()
