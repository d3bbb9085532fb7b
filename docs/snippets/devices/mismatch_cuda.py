#| run: python mismatch_cuda.py
"""The same mistake on a GPU: model moved to cuda, batch left on the CPU."""
import torch
from torch import nn

model = nn.Linear(3, 1).to("cuda")
batch = torch.randn(4, 3)
print("model on", next(model.parameters()).device, "| batch on", batch.device)
model(batch)
