#| run: torchrun --standalone --nproc-per-node=1 nccl_debug.py
"""NCCL's own log on one GPU: NCCL_DEBUG=INFO, set before NCCL starts, one rank, one all_reduce."""
import os

os.environ.setdefault("NCCL_DEBUG", "INFO")         # NCCL reads it when it first starts up
os.environ.setdefault("NCCL_DEBUG_SUBSYS", "INIT")  # only its set-up lines, not one per call

import torch
import torch.distributed as dist


def main():
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)
    # with device_id the group binds to that GPU and creates its NCCL communicator now
    dist.init_process_group(backend="nccl", device_id=device)
    x = torch.ones(2, device=device)
    dist.all_reduce(x)
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}: {x.tolist()} on {x.device}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
