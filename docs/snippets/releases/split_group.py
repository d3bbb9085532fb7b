#| run: torchrun --standalone --nproc-per-node=4 split_group.py
"""split_group on gloo: a rank in no split gets dist.GroupMember.NON_GROUP_MEMBER."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")              # no device_id: nothing bound
rank = dist.get_rank()
# --8<-- [start:body]
try:
    sub = dist.split_group(split_ranks=[[0, 1]])    # ranks 2 and 3 are in no split
except RuntimeError as e:
    print(f"rank {rank}: split_group raised RuntimeError: {e}")
else:
    if sub == dist.GroupMember.NON_GROUP_MEMBER:
        print(f"rank {rank}: not in the new group, got {sub!r}")
    else:
        t = torch.tensor([float(rank + 1)])
        dist.all_reduce(t, group=sub)
        print(f"rank {rank}: in a group of {sub.size()}, all_reduce gives {t.item()}")
# --8<-- [end:body]
dist.destroy_process_group()
