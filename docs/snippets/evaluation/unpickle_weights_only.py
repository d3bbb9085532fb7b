#| run: torchrun --standalone --nproc-per-node=2 unpickle_weights_only.py
"""weights_only=True on an object collective: torch.save/torch.load instead of pickle."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


# --8<-- [start:body]
class NotJustData:
    def __reduce__(self):
        return (print, (f"a call chosen by rank {rank} ran while unpickling",))


out = [None, None]
try:
    dist.all_gather_object(out, {"loss": torch.tensor(0.5)}, weights_only=True)
    print(f"rank {rank} plain data, weights_only=True -> {out}")
    dist.all_gather_object(out, NotJustData() if rank == 1 else "plain data",
                           weights_only=True)
    print(f"rank {rank} received {out}")
except Exception as e:
    lines = str(e).strip().splitlines()
    first = next((l for l in lines if "Unsupported global" in l), lines[0]).strip()
    print(f"rank {rank} {type(e).__name__}: {first.split('. Please')[0]}")
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
