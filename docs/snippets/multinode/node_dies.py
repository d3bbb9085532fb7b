#| run: python node_dies.py 1:2
"""An elastic job loses a node mid-run: what the agent on the surviving node does."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

if "RANK" in os.environ:                     # a worker, started by one of the agents below
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    base_store, _, _ = next(dist.rendezvous("env://"))   # one key space per attempt
    store = dist.PrefixStore(f"attempt-{attempt}", base_store)   # (see the torchrun page)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world)

    snapshot = sys.argv[1]                   # on a real cluster: a file system every node sees
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    start = 0
    if os.path.exists(snapshot):
        snap = torch.load(snapshot)
        model.load_state_dict(snap["model"])
        optimizer.load_state_dict(snap["optimizer"])
        start = snap["step"] + 1
    print(f"worker: attempt {attempt}, GROUP_RANK {os.environ['GROUP_RANK']} of"
          f" {os.environ['GROUP_WORLD_SIZE']} nodes, RANK {rank} of {world},"
          f" starting at step {start}")
    ddp_model = DDP(model)
    torch.manual_seed(rank)
    for step in range(start, 8):
        x = torch.randn(16, 3)
        loss = nn.functional.mse_loss(ddp_model(x), x.sum(1, keepdim=True))
        optimizer.zero_grad()
        loss.backward()                      # the gradient all-reduce spans every node
        optimizer.step()
        if rank == 0:                        # write then rename: never a half-written file
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "step": step}
            torch.save(state, snapshot + ".tmp")
            os.replace(snapshot + ".tmp", snapshot)
            print(f"worker: step {step} saved, world size {world}")
        time.sleep(0.5)                      # a slow step, so the kill lands mid-run
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0)

import psutil

with socket.socket() as s:                   # a free local port for the rendezvous endpoint
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
folder = tempfile.mkdtemp()
snapshot = os.path.join(folder, "snapshot.pt")


# --8<-- [start:body]
def start_agent(name, is_host, local_addr):
    """One torchrun agent, its own 'node'; what it and its workers print goes to NAME.log."""
    log = open(os.path.join(folder, f"{name}.log"), "w")
    command = [sys.executable, "-m", "torch.distributed.run",
               f"--nnodes={sys.argv[1]}", "--nproc-per-node=1", "--max-restarts=1",
               "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=job7",
               # who hosts the endpoint's store; a short last call, heartbeat and join timeout
               f"--rdzv-conf=is_host={is_host},last_call_timeout=4,join_timeout=10,"
               "keep_alive_interval=1,keep_alive_max_attempt=3",
               f"--local-addr={local_addr}", __file__, snapshot]
    agent = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                             env={**os.environ, "LOGLEVEL": "INFO"})   # the agent's INFO lines
    return agent, log.name


doomed, _ = start_agent("doomed", is_host=0, local_addr="127.0.0.1")
survivor, survivor_log = start_agent("survivor", is_host=1, local_addr="localhost")
try:
    deadline = time.monotonic() + 60
    while not os.path.exists(snapshot) and time.monotonic() < deadline:
        time.sleep(0.1)                      # wait until training has begun
    if not os.path.exists(snapshot):
        sys.exit("training never started")
    time.sleep(1.5)
    # the node dies: its agent and its workers (which run in sessions of their own), at once
    node = [doomed, *psutil.Process(doomed.pid).children(recursive=True)]
    for process in node:
        process.kill()                       # SIGKILL: no handler, no goodbye
    print(f"killed the other node's agent and its {len(node) - 1} worker(s)")
    status = survivor.wait(timeout=60)
finally:
    for agent in (doomed, survivor):
        if agent.poll() is None:
            agent.kill()
print(f"surviving agent's exit status: {status}")
wanted = ("worker:", "Worker group", "Rendezvous complete", "restart_count", "group_rank",
          "group_world_size", "master_port", "Error:")
with open(survivor_log) as log:
    text = log.read()
for line in text.splitlines():
    if any(word in line for word in wanted) and not line.startswith(" "):
        print(re.sub(r"^[IWE]\d{4} \S+ \d+ \S+\] ", "", line))   # without the log prefix
if status != 0:
    print(text[text.rfind("Traceback"):], file=sys.stderr)    # the agent's last traceback
sys.exit(status)
# --8<-- [end:body]
