#| run: torchrun --standalone --nproc-per-node=2 worker_seeds.py
"""DataLoader worker seeds come from the rank's RNG: equal seeds repeat augmentation."""
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, get_worker_info

dist.init_process_group("gloo")
rank = dist.get_rank()


class Noisy(Dataset):
    """Four samples; each gets a random 'augmentation' drawn in the worker."""
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([i, info.id, info.seed]), torch.rand(1)


def show(label, loader):
    for (i, worker, seed), noise in ((b[0][0], b[1][0]) for b in loader):
        print(f"rank {rank} {label}: sample {i}, worker {worker} (seed {seed}), "
              f"noise {noise.item():.4f}")


# --8<-- [start:body]
torch.manual_seed(0)                             # same seed on every rank
show("same seed  ", DataLoader(Noisy(), num_workers=2))

g = torch.Generator().manual_seed(1000 + rank)   # base seed of the workers, per rank
show("generator  ", DataLoader(Noisy(), num_workers=2, generator=g))
# --8<-- [end:body]

dist.barrier()
dist.destroy_process_group()
