#| run: python init_methods.py
"""Start two processes without torchrun: rank and world size are passed in, peers meet through a
file.
"""
# --8<-- [start:body]
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size, init_method):
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world_size)
    value = torch.tensor([rank + 1.0])
    dist.all_reduce(value)                           # sum over both processes
    rank_env = os.environ.get("RANK", "<unset>")
    print(f"pid {os.getpid()} rank {rank}/{world_size}: RANK env={rank_env} "
          f"sum={value.item()}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    init_method = "file://" + os.path.join(tempfile.mkdtemp(), "rendezvous")
    # tcp://10.0.0.1:23456 would work the same way, with rank 0 listening on that address.
    mp.spawn(worker, args=(2, init_method), nprocs=2)   # calls worker(0, ...) and worker(1, ...)
# --8<-- [end:body]
