#| run: torchrun --standalone --nproc-per-node=2 workers.py
"""Who started this process, and what torchrun put in its environment."""
import os

import torch.distributed as dist


def command_of(pid):
    """The command line of a process (Linux /proc; elsewhere say so)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return "(no /proc on this system)"
    shown = [w.decode() for w in words if w]
    return " ".join([os.path.basename(shown[0]), *shown[1:]])


rank = int(os.environ["RANK"])
print(f"rank {rank}: pid {os.getpid()}, parent pid {os.getppid()}")
print(f"rank {rank}: parent runs: {command_of(os.getppid())[:60]}")
for name in ["RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
             "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
             "OMP_NUM_THREADS"]:
    print(f"rank {rank}:   {name}={os.environ.get(name, '<unset>')}")

# env:// reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
dist.init_process_group("gloo")
dist.barrier()
dist.destroy_process_group()
