#| run: torchrun --standalone --nproc-per-node=2 self_peer.py
"""Naming your own rank as the peer: which call refuses, and who refuses it (gloo)."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
# --8<-- [start:calls]
calls = {
    "send(dst=rank)": lambda: dist.send(torch.ones(1), dst=rank),
    "recv(src=rank)": lambda: dist.recv(torch.zeros(1), src=rank),
    "isend(dst=rank)": lambda: dist.isend(torch.ones(1), dst=rank).wait(),
    "irecv(src=rank)": lambda: dist.irecv(torch.zeros(1), src=rank).wait(),
}
for name, call in calls.items():
    try:
        call()
        print(f"rank {rank}: {name:16} worked")
    except (ValueError, RuntimeError) as exc:
        message = str(exc).split("] ", 1)[-1].split(" (")[0]   # drop gloo's file path and addresses
        print(f"rank {rank}: {name:16} {type(exc).__name__}: {message}")
# --8<-- [end:calls]
dist.barrier()
dist.destroy_process_group()
