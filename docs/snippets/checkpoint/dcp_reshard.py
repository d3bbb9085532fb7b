#| run: python dcp_reshard.py
#| timeout: 300
"""Save with two ranks (dcp_save.py), load at four, then convert to one torch.save file.

Run it next to dcp_save.py. Without torchrun it is the driver: it starts the two jobs one after the
other. Started by torchrun, it is a worker of the second job.
"""
import os
import subprocess
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

import dcp_save                              # build(), held(), fingerprint() ...


def load(path):
    """A worker of the second job: a fresh model, sharded over this job's ranks, then the load."""
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model, optimizer = dcp_save.build()      # new shards: 4 ranks now
    before = dcp_save.full_fingerprint(model, optimizer)
    model_state, optim_state = get_state_dict(model, optimizer)   # what to fill, and its sharding
    state = {"model": model_state, "optim": optim_state}
    dcp.load(state, checkpoint_id=path)      # each rank reads the saved blocks its shards overlap
    set_state_dict(model, optimizer,
                   model_state_dict=state["model"], optim_state_dict=state["optim"])
    shards = dcp_save.held(model)
    after = dcp_save.full_fingerprint(model, optimizer)
    if rank == 0:
        for r, shapes in enumerate(shards):
            print(f"rank {r} holds:", shapes)
        print("fingerprint before the load:", before)
        print("fingerprint after the load: ", after)

    dist.barrier()
    dist.destroy_process_group()


def torchrun(nproc, script, path):
    """Run `torchrun --standalone --nproc-per-node=NPROC script path`; print what it printed."""
    print(f"$ torchrun --standalone --nproc-per-node={nproc} {Path(script).name} {path}")
    launcher = Path(sys.executable).with_name("torchrun")   # the torchrun next to this Python
    command = [str(launcher), "--standalone", f"--nproc-per-node={nproc}", script, path]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
    print(done.stdout, end="")


def main():
    path = "checkpoint"
    torchrun(2, dcp_save.__file__, path)     # train and save with 2 ranks
    torchrun(4, __file__, path)              # load with 4 ranks: load() above

    dcp_to_torch_save(path, "checkpoint.pt")  # no process group: this process reads every file
    print("process group in this process:", dist.is_initialized())
    state = torch.load("checkpoint.pt")      # plain tensors now: nested dicts, as saved
    print("checkpoint.pt holds:", {k: list(v) for k, v in state.items()})
    print("fingerprint of checkpoint.pt:", dcp_save.fingerprint(state))
    plain = dcp_save.make_model()            # no FSDP, no group: e.g. for inference
    print(plain.load_state_dict(state["model"]))


if __name__ == "__main__":
    if "LOCAL_RANK" in os.environ:           # started by torchrun: a worker of the second job
        load(sys.argv[1])
    else:
        main()
