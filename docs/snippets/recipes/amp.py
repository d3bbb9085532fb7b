#| run: torchrun --standalone --nproc-per-node=2 amp.py
"""bfloat16 autocast on CPU around forward and loss; backward outside it."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
ddp_model = DDP(nn.Linear(4, 2))
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
torch.manual_seed(10 + rank)
x, y = torch.randn(8, 4), torch.randn(8, 2)

optimizer.zero_grad()
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    out = ddp_model(x)                        # the matmul runs in bfloat16
    loss = nn.functional.mse_loss(out, y)
    both_bf16 = nn.functional.mse_loss(out, out.detach())  # two bfloat16 inputs
loss.backward()                               # outside autocast
optimizer.step()
grad = ddp_model.module.weight.grad
print(f"rank {rank}: out {out.dtype}, loss {loss.dtype}, "
      f"param {ddp_model.module.weight.dtype}, grad {grad.dtype}")
print(f"rank {rank}: mse_loss of two bfloat16 tensors under autocast: {both_bf16.dtype}")

scaler = torch.amp.GradScaler("cpu")
print(f"rank {rank}: GradScaler('cpu') enabled={scaler.is_enabled()}, "
      f"scale={scaler.get_scale()}")
dist.barrier()
dist.destroy_process_group()
