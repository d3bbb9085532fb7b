#| run: python pinned_cuda.py
"""Pinned host memory and non_blocking copies to the GPU: what the loader hands over, and when the
copy is done."""
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.arange(32, dtype=torch.float32).reshape(8, 4))
loader = DataLoader(dataset, batch_size=4, pin_memory=True)
(batch,) = next(iter(loader))
print("batch pinned:", batch.is_pinned(), "| plain tensor pinned:", torch.zeros(4).is_pinned())

on_gpu = batch.to("cuda", non_blocking=True)      # may return before the copy has finished
done = torch.cuda.Event()
done.record()                                     # marks the point after the copy on the stream
done.synchronize()                                # the host waits for it here
print("on", on_gpu.device, "| sums match:", bool(on_gpu.sum().item() == batch.sum().item()))
