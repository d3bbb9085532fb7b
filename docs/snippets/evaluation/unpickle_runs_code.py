#| run: torchrun --standalone --nproc-per-node=2 unpickle_runs_code.py
"""Object collectives unpickle what peers send: unpickling can call any function."""
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


# --8<-- [start:body]
class NotJustData:
    def __reduce__(self):                # tells pickle how to rebuild the object:
        return (print, (f"a call chosen by rank {rank} ran while unpickling",))


out = [None, None]
dist.all_gather_object(out, NotJustData() if rank == 1 else "plain data")
print(f"rank {rank} received {out}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
