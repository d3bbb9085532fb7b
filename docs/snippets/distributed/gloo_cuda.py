#| run: torchrun --standalone --nproc-per-node=2 gloo_cuda.py
"""gloo is not CPU-only: all_reduce on CUDA tensors works with it (nccl is the faster choice for
GPUs).
"""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
device = torch.device("cuda", rank % torch.cuda.device_count())
value = torch.tensor([rank + 1.0], device=device)
dist.all_reduce(value)
print(f"rank {rank}: gloo all_reduce on {value.device} -> {value.item()}")

dist.barrier()
dist.destroy_process_group()
