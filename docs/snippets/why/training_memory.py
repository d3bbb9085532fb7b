#| run: python training_memory.py
"""Count the bytes a model's training state occupies: parameters, gradients, Adam's two moments."""
# --8<-- [start:body]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024))
optimizer = torch.optim.Adam(model.parameters())


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


n_params = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_params:,} ({model[0].weight.dtype})")

loss = model(torch.randn(32, 1024)).pow(2).mean()
loss.backward()                       # fills p.grad
optimizer.step()                      # creates Adam's exp_avg and exp_avg_sq

params = nbytes(model.parameters())
grads = nbytes(p.grad for p in model.parameters())
moments = nbytes(t for state in optimizer.state.values()
                 for t in state.values() if t.dim() > 0)    # skip the scalar 'step'
print(f"weights          {params / 2**20:7.1f} MiB")
print(f"gradients        {grads / 2**20:7.1f} MiB")
print(f"Adam moments     {moments / 2**20:7.1f} MiB")
print(f"total            {(params + grads + moments) / 2**20:7.1f} MiB "
      f"= {(params + grads + moments) / params:.0f} x the weights")
# --8<-- [end:body]
