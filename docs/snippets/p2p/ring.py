#| run: torchrun --standalone --nproc-per-node=3 ring.py
"""Pass a token once around a ring with blocking send/recv."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# --8<-- [start:ring]
right = (rank + 1) % world                  # the rank I send to
left = (rank - 1) % world                   # the rank I receive from

token = torch.tensor([100.0 + rank])        # every rank starts with its own value
incoming = torch.zeros(1)                   # recv writes into a tensor of the right shape and dtype

if rank % 2 == 0:                           # even ranks send first, odd ranks receive first,
    dist.send(token, dst=right)             # so every blocking send meets a matching recv
    dist.recv(incoming, src=left)
else:
    dist.recv(incoming, src=left)
    dist.send(token, dst=right)

print(f"rank {rank}: sent {token.item():.0f} to rank {right}, "
      f"received {incoming.item():.0f} from rank {left}")
# --8<-- [end:ring]
dist.barrier()
dist.destroy_process_group()
