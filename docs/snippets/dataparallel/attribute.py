#| run: python attribute.py
"""Attributes of your own module are on dp.module, not on the wrapper."""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.labels = ["cat", "dog"]
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(x)


dp = nn.DataParallel(Classifier())
print("dp.module.labels:", dp.module.labels)
print("dp.labels:", dp.labels)
