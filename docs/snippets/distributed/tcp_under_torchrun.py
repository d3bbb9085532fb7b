#| run: torchrun --standalone --nproc-per-node=2 tcp_under_torchrun.py
"""Under torchrun, init_method="tcp://" at an address other than MASTER_ADDR:MASTER_PORT.
"""
import datetime
import os
import socket
import tempfile
import time

import torch
import torch.distributed as dist

# Rank 0 picks a free port and leaves it in a file named after this torchrun job.
job = f"{os.environ['TORCHELASTIC_RUN_ID']}-{os.environ['MASTER_PORT']}"
note = os.path.join(tempfile.gettempdir(), f"tcp-port-{job}")
rank = int(os.environ["RANK"])
if rank == 0:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(note + ".tmp", "w") as f:
        f.write(str(port))
    os.replace(note + ".tmp", note)
while not os.path.exists(note):
    time.sleep(0.05)
port = int(open(note).read())
# --8<-- [start:body]
# torchrun set TORCHELASTIC_USE_AGENT_STORE, but this store is not the agent's one.
print(f"rank {rank}: TORCHELASTIC_USE_AGENT_STORE={os.environ['TORCHELASTIC_USE_AGENT_STORE']}")
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=5))
t = torch.ones(1)
dist.all_reduce(t)
print(f"rank {rank}: tcp:// group works, all_reduce gives {t.item():.0f}")
# --8<-- [end:body]
dist.barrier()
if rank == 0:
    os.remove(note)
dist.destroy_process_group()
