#| run: python static_graph.py
"""static_graph=True: DDP learns the graph once, and a parameter that is never used needs no search.
"""
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# one process is enough
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# --8<-- [start:body]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(4, 1)
        self.spare = nn.Linear(4, 1)         # never used, in every iteration alike

    def forward(self, x):
        return self.used(x)


torch.manual_seed(0)
# the same graph every iteration: no find_unused_parameters
ddp_model = DDP(Net(), static_graph=True)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
x = torch.randn(32, 4)
y = x @ torch.tensor([[1.0], [2.0], [-1.0], [0.5]])
for step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("static_graph in DDP's own logging data:", ddp_model._get_ddp_logging_data()["static_graph"])
# --8<-- [end:body]
dist.destroy_process_group()
