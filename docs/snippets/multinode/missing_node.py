#| run: python missing_node.py
"""Start one agent of a two-node job: it waits at the rendezvous for a node that never comes."""
import socket
import subprocess
import sys

with socket.socket() as s:                   # a free local port for the rendezvous endpoint
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

# --8<-- [start:bug]
command = [sys.executable, "-m", "torch.distributed.run",          # i.e. torchrun
           "--nnodes=2", "--nproc-per-node=1",
           "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=job42",
           "--rdzv-conf=join_timeout=5",      # give up after 5 s instead of the default 600 s
           "-m", "this"]                      # any program: no worker ever starts
print("starting one agent of", command[3], "and no other")
agent = subprocess.run(command, capture_output=True, text=True, timeout=60)
print("agent exit status:", agent.returncode)
print(agent.stderr[agent.stderr.rfind("Traceback"):], file=sys.stderr)   # torchrun's last traceback
sys.exit(agent.returncode)
# --8<-- [end:bug]
