#| run: python unused_ok.py
"""The same two-head model with find_unused_parameters=True: it trains."""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 8)
        self.head_a, self.head_b = nn.Linear(8, 1), nn.Linear(8, 1)

    def forward(self, x, task):
        head = self.head_a if task == "a" else self.head_b
        return head(torch.relu(self.trunk(x)))


# --8<-- [start:fix]
torch.manual_seed(0)
ddp_model = DDP(TwoHeads(), find_unused_parameters=True)   # search for unused parameters each step
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.05)
x = torch.randn(32, 4)
data = {"a": (x, x.sum(1, keepdim=True)), "b": (x, x[:, :1] - x[:, 1:2])}   # one batch per task
for step in range(8):
    task = "ab"[step % 2]
    x, y = data[task]
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x, task), y)
    loss.backward()
    optimizer.step()
    got_grad = [name for name, p in ddp_model.module.named_parameters() if p.grad is not None]
    layers = sorted({n.split('.')[0] for n in got_grad})
    print(f"step {step} task {task}: loss {loss.item():.4f}, gradients for {layers}")
# --8<-- [end:fix]
dist.destroy_process_group()
