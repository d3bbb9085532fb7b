#| run: python map_location_no_gpu.py
"""A storage bound for a CUDA device cannot be restored on a machine without CUDA."""
import torch

torch.save({"weight": torch.ones(2)}, "ckpt.pt")
print("CUDA available here:", torch.cuda.is_available())
# --8<-- [start:body]
# A file saved from cuda:0, loaded without map_location, asks for cuda:0 like this:
torch.load("ckpt.pt", map_location="cuda:0")
# --8<-- [end:body]
