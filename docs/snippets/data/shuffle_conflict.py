#| run: python shuffle_conflict.py
"""Giving the DataLoader both a sampler and shuffle=True."""
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dataset = TensorDataset(torch.arange(8.0))
# --8<-- [start:bug]
sampler = DistributedSampler(dataset, num_replicas=2, rank=0)
# shuffle belongs to the sampler
loader = DataLoader(dataset, batch_size=2, sampler=sampler, shuffle=True)
# --8<-- [end:bug]
