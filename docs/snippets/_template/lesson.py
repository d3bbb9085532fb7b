#| run: torchrun --standalone --nproc-per-node=2 lesson.py
# The line above is for the build: it runs this file the way a reader would. Pages show the
# file from the next line on, and the download leaves the header out.
import torch.distributed as dist


def main():
    # torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT; gloo runs on CPUs.
    dist.init_process_group(backend="gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"rank {rank} of {world}")
    # End as upstream examples do: wait for every rank, then destroy the group.
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
