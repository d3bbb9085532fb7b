#| run: torchrun --standalone --nproc-per-node=2 agent_store.py
"""Under torchrun the agent, not rank 0, hosts the store at MASTER_ADDR:MASTER_PORT."""
import os
import socket

import torch.distributed as dist

# --8<-- [start:body]
rank = int(os.environ["RANK"])
port = int(os.environ["MASTER_PORT"])
use_agent_store = os.environ["TORCHELASTIC_USE_AGENT_STORE"]
print(f"rank {rank}: TORCHELASTIC_USE_AGENT_STORE={use_agent_store} MASTER_PORT={port}")
if rank == 0:                                # before init_process_group: is the port still free?
    probe = socket.socket()
    try:
        probe.bind(("0.0.0.0", port))
        print("rank 0: MASTER_PORT is free")
    except OSError as e:
        print(f"rank 0: MASTER_PORT is already taken before any rank opened a store: {e.strerror}")
    finally:
        probe.close()
dist.init_process_group("gloo")              # every rank connects to the agent's store as a client
print(f"rank {rank}: joined a group of {dist.get_world_size()}")
# --8<-- [end:body]
dist.barrier()
dist.destroy_process_group()
