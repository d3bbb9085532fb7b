#| run: torchrun --standalone --nproc-per-node=2 record_off.py
"""A worker raises inside main with no @record: the summary has no traceback."""
import torch.distributed as dist

# --8<-- [start:body]
def main():
    dist.init_process_group("gloo")
    dist.barrier()                           # both ranks are connected before rank 1 fails
    rank = dist.get_rank()
    try:
        if rank == 1:
            raise ValueError(f"bad batch on rank {rank}")
        print(f"rank {rank} finished its work")
    finally:
        dist.destroy_process_group()

if __name__ == "__main__":
    main()
# --8<-- [end:body]
