#| run: python node_order.py
"""Node ranks come from sorting the agents' descriptors, not from the order in which they join."""
import os
import socket
import subprocess
import sys
import tempfile
import time

with socket.socket() as s:                   # a free local port for the rendezvous endpoint
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
worker = os.path.join(tempfile.mkdtemp(), "who.py")
with open(worker, "w") as f:                 # each worker only reports its node rank
    f.write("import os, sys\n"
            "if os.environ['LOCAL_RANK'] == '0':\n"
            "    print(f\"agent started {sys.argv[1]}: GROUP_RANK={os.environ['GROUP_RANK']}\",\n"
            "          flush=True)\n")

# --8<-- [start:body]
def agent(local_addr, label):
    """One torchrun agent of a two-node job; --local-addr is the address in its node descriptor."""
    return subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--nnodes=2", "--nproc-per-node=1",
         "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=order",
         f"--local-addr={local_addr}", worker, label],
        stderr=subprocess.DEVNULL)


first = agent("localhost", "first (--local-addr=localhost)")
# the first agent joins the rendezvous long before the second
time.sleep(10)
second = agent("127.0.0.1", "10 s later (--local-addr=127.0.0.1)")
print("exit status:", first.wait(timeout=90), second.wait(timeout=90))
# --8<-- [end:body]
