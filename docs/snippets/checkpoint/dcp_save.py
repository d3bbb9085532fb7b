#| run: torchrun --standalone --nproc-per-node=2 dcp_save.py
"""Train a model sharded with FSDP2 on two ranks, then save it with torch.distributed.checkpoint:
every rank writes the shards it holds, and nobody gathers the full model.
"""
import hashlib
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions, get_model_state_dict, get_optimizer_state_dict, get_state_dict)
from torch.distributed.fsdp import fully_shard


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def build():
    """The model sharded over every rank of the group (FSDP2), and its optimizer."""
    model = make_model()
    fully_shard(model[0])
    fully_shard(model[2])
    fully_shard(model)
    return model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def held(model):
    """The shape of this rank's shard of every parameter, as a list over all ranks."""
    mine = {name: tuple(p.to_local().shape) for name, p in model.named_parameters()}
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, mine)
    return every


def fingerprint(state):
    """A hash of every tensor of a (nested) state dict, with its key: equal iff bitwise equal."""
    digest = hashlib.sha256()
    def walk(prefix, value):
        if isinstance(value, dict):
            for key in sorted(value, key=str):
                walk(f"{prefix}/{key}", value[key])
        elif isinstance(value, torch.Tensor):
            digest.update(prefix.encode() + value.detach().contiguous().numpy().tobytes())
    walk("", state)
    return digest.hexdigest()[:16]


def full_fingerprint(model, optimizer):
    """The fingerprint of the full (unsharded) weights and momentum: the same on every rank."""
    full = StateDictOptions(full_state_dict=True)
    return fingerprint({"model": get_model_state_dict(model, options=full),
                        "optim": get_optimizer_state_dict(model, optimizer, options=full)})


def main(path):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model, optimizer = build()
    torch.manual_seed(10 + rank)             # each rank its own data
    x = torch.randn(32, 8)
    y = x[:, :4] * 2.0
    for step in range(5):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

    # every rank: its own shards of the weights and of the optimizer's state, then its own file
    model_state, optim_state = get_state_dict(model, optimizer)   # sharded: DTensors
    dcp.save({"model": model_state, "optim": optim_state}, checkpoint_id=path)

    shards = held(model)                     # only to print what was saved
    check = full_fingerprint(model, optimizer)
    if rank == 0:
        for r, shapes in enumerate(shards):
            print(f"rank {r} held:", shapes)
        print("fingerprint of the saved weights and momentum:", check)
        print(f"files in {path}/:")
        for file in sorted(Path(path).iterdir()):
            print(f"  {file.name:<14} {file.stat().st_size:>5} bytes")
        meta = dcp.FileSystemReader(path).read_metadata()
        entry = meta.state_dict_metadata["model.0.weight"]
        print("from .metadata: model.0.weight has shape", tuple(entry.size), "and is stored as")
        sizes = {tuple(chunk.offsets): tuple(chunk.sizes) for chunk in entry.chunks}
        for index, where in meta.storage_data.items():
            if index.fqn == "model.0.weight":
                print(f"  the {sizes[tuple(index.offset)]} block at {tuple(index.offset)}:",
                      f"{where.relative_path}, {where.length} bytes from byte {where.offset}")
        items = {}
        for index, where in meta.storage_data.items():
            items.setdefault(where.relative_path, []).append(index.fqn)
        for file, names in sorted(items.items()):
            groups = sum(name.startswith("optim.param_groups") for name in names)
            print(f"  {file} holds {len(names)} items, {groups} of them from param_groups")

    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "checkpoint")
