#| run: python address_in_use.py
"""MASTER_PORT already taken: the store that init_process_group starts cannot listen on it."""
import os
import socket

import torch.distributed as dist

# --8<-- [start:bug]
other = socket.socket()                      # stands for a previous job still holding the port
other.bind(("127.0.0.1", 0))
other.listen()
port = other.getsockname()[1]
print(f"port {port} is in use by another socket")

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
try:
    dist.init_process_group("gloo")          # rank 0 starts the store on MASTER_PORT
finally:
    other.close()
# --8<-- [end:bug]
