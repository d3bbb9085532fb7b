#| run: torchrun --standalone --nproc-per-node=3 ring_async.py
"""The same ring with isend/irecv: start both transfers, do other work, then wait."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# --8<-- [start:ring]
right, left = (rank + 1) % world, (rank - 1) % world
token = torch.tensor([100.0 + rank])
incoming = torch.zeros(1)

send_work = dist.isend(token, dst=right)    # returns at once with a work handle
recv_work = dist.irecv(incoming, src=left)  # no ordering trick needed: nothing blocks here

busy = sum(i * i for i in range(10_000))    # other work can run while the transfers are in flight

recv_work.wait()                            # only now is `incoming` safe to read
send_work.wait()                            # and only now may `token` be modified or reused
print(f"rank {rank}: received {incoming.item():.0f} from rank {left} "
      f"(recv done: {recv_work.is_completed()})")
# --8<-- [end:ring]
dist.barrier()
dist.destroy_process_group()
