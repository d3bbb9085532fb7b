#| run: torchrun --standalone --nproc-per-node=3 all_to_all.py
"""all_to_all_single and all_to_all on gloo: chunk j of rank i goes to rank j."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# --8<-- [start:body]
# One tensor in, one tensor out: split into `world` equal chunks along dim 0.
send = torch.arange(world) + 10 * rank                  # rank 1 sends [10, 11, 12]
recv = torch.empty(world, dtype=send.dtype)
dist.all_to_all_single(recv, send)
print(f"rank {rank}: all_to_all_single sent {send.tolist()} got {recv.tolist()}")

# Uneven splits: rank i sends i + 1 elements to every rank.
send = torch.full((world * (rank + 1),), rank)
in_splits = [rank + 1] * world                          # how much goes to each rank
out_splits = [i + 1 for i in range(world)]              # how much comes from each rank
recv = torch.empty(sum(out_splits), dtype=send.dtype)
dist.all_to_all_single(recv, send, out_splits, in_splits)
print(f"rank {rank}: uneven splits got {recv.tolist()}")

# Lists of tensors: send[j] goes to rank j, recv[i] comes from rank i.
send = [torch.tensor([10 * rank + j]) for j in range(world)]
recv = [torch.empty(1, dtype=torch.int64) for _ in range(world)]
dist.all_to_all(recv, send)
print(f"rank {rank}: all_to_all got {[t.item() for t in recv]}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
