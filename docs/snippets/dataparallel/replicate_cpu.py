#| run: python replicate_cpu.py
"""DataParallel's machinery (replicate, scatter, gather) copies between GPUs; it refuses CPU
tensors.
"""
import torch
from torch import nn
from torch.nn.parallel import replicate

model = nn.Linear(4, 2)
replicas = replicate(model, devices=[0, 1])     # copy the module onto GPUs 0 and 1
