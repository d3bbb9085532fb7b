#| run: python ifname.py lo
"""GLOO_SOCKET_IFNAME picks the interface gloo uses; each worker lists the TCP sockets it holds."""
import glob
import os
import socket
import subprocess
import sys
import tempfile

if "RANK" in os.environ:                     # a worker, started by the torchrun below
    import psutil
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    dist.all_reduce(torch.ones(1))           # the group is connected and works
    store_port = int(os.environ["MASTER_PORT"])
    lines = []
    for c in psutil.Process().net_connections(kind="tcp"):
        here = f"{c.laddr.ip.removeprefix('::ffff:')}:{c.laddr.port}"   # IPv4 on an IPv6 socket
        if c.status == psutil.CONN_LISTEN:
            lines.append(f"listening on {here} (gloo: other ranks connect here)")
        elif c.raddr.port == store_port:
            lines.append(f"{here} -> MASTER_PORT {store_port} (the job's TCPStore)")
        else:
            lines.append(f"{here} -> {c.raddr.ip}:{c.raddr.port} (gloo, to another rank)")
    print("".join(f"rank {rank}: {line}\n" for line in sorted(lines)), end="")
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0)

# --8<-- [start:body]
with socket.socket() as s:                   # a free local port for the rendezvous endpoint
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
print(f"rendezvous endpoint 127.0.0.1:{port}, GLOO_SOCKET_IFNAME={sys.argv[1]}")
logs = tempfile.mkdtemp()
command = [sys.executable, "-m", "torch.distributed.run",          # i.e. torchrun
           "--nnodes=1", "--nproc-per-node=2",
           "--log-dir", logs, "--tee=2",          # each rank's stderr also in a file of its own
           "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", __file__]
# as in a shell: GLOO_SOCKET_IFNAME=lo torchrun ...; the workers inherit the variable
done = subprocess.run(command, capture_output=True, text=True, timeout=90,
                      env={**os.environ, "GLOO_SOCKET_IFNAME": sys.argv[1]})
print("".join(sorted(done.stdout.splitlines(keepends=True))), end="")    # rank 0 first
if done.returncode != 0:                     # rank 0's error, then torchrun's status
    rank0 = glob.glob(os.path.join(logs, "**", "attempt_0", "0", "stderr.log"), recursive=True)
    with open(rank0[0]) as f:
        print(f"rank 0's stderr:\n{f.read().strip()}", file=sys.stderr)
    print(f"torchrun exit status: {done.returncode}")
sys.exit(done.returncode)
# --8<-- [end:body]
