#| run: python benchmark.py
"""Time one training step with DataParallel and with DDP on the same two GPUs, the same model and
global batch.
"""
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

GLOBAL_BATCH, WARMUP, STEPS = 512, 5, 30


def make_model():
    torch.manual_seed(0)
    layers = []
    for _ in range(8):
        layers += [nn.Linear(2048, 2048), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(2048, 1))


def time_steps(model, optimizer, x, y):
    """Average seconds per step (forward, backward, step) after a warm-up."""
    for i in range(WARMUP + STEPS):
        if i == WARMUP:
            torch.cuda.synchronize()
            start = time.perf_counter()
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / STEPS


def ddp_worker(rank, world, port):
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    model = DDP(make_model().to(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    # each process: its share of the batch
    x = torch.randn(GLOBAL_BATCH // world, 2048, device=rank)
    y = torch.randn(GLOBAL_BATCH // world, 1, device=rank)
    seconds = time_steps(model, optimizer, x, y)
    if rank == 0:
        print(f"DistributedDataParallel, 2 processes: {seconds * 1000:.1f} ms per step")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    print("GPUs:", [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())])
    model = nn.DataParallel(make_model().to("cuda:0"), device_ids=[0, 1])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(GLOBAL_BATCH, 2048, device="cuda:0")            # one process: the whole batch
    y = torch.randn(GLOBAL_BATCH, 1, device="cuda:0")
    seconds = time_steps(model, optimizer, x, y)
    print(f"DataParallel, 1 process, 2 threads:   {seconds * 1000:.1f} ms per step")
    del model, optimizer, x, y
    torch.cuda.empty_cache()

    with socket.socket() as s:               # a free port for the DDP processes to meet on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(ddp_worker, args=(2, port), nprocs=2)
