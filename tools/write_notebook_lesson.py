"""Writes docs/learn/notebooks.ipynb from this script, with no outputs (the build executes it).

Run from the repository root: .venv/bin/python tools/write_notebook_lesson.py
"""
import nbformat
from nbformat.v4 import new_notebook, new_markdown_cell, new_code_cell

cells = [
    new_markdown_cell("""# Distributed code in notebooks

This page is a Jupyter notebook. The site build executed it in a real kernel and shows what each
cell printed; download it with the button above and run it yourself.

Notebooks and multi-process training pull in different directions: a notebook is one long-lived
process that holds your state, while data-parallel training needs several processes that each run
the same program from the start. The usual first attempt, `torch.multiprocessing.spawn` of a
function defined in a cell, fails, and the reason tells you what works instead."""),
    new_markdown_cell("""## Spawning a function defined in the notebook

`mp.spawn` starts fresh Python interpreters (the *spawn* start method). Each child must find the
function it should run by importing it: it pickles a *reference* such as `__main__.worker`, and the
child looks that name up in its own `__main__`. In a script, the child re-imports the script file as
its `__main__`, so `worker` is there. A notebook's `__main__` is the kernel itself and has no file
to re-import, so the child's `__main__` has no `worker`:"""),
    new_code_cell("""import torch.multiprocessing as mp

def worker(rank, world_size):
    print(f"hello from rank {rank} of {world_size}")

mp.spawn(worker, args=(2,), nprocs=2)""", metadata={"tags": ["raises-exception"]}),
    new_markdown_cell("""Each child died with an `AttributeError` while unpickling its task: it could not find
`worker` on its `__main__`. The parent turns the children's failure into the exception above.

## What works: put the training code in a file

Write the program to a file (here with the `%%writefile` cell magic) and launch it with `torchrun`,
exactly as you would from a terminal. Each rank is a fresh process running the file from the top,
which is what distributed code expects."""),
    new_code_cell("""%%writefile nb_ddp.py
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Linear(3, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(100 + rank)                       # different data on each rank
x = torch.randn(32, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
for step in range(30):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"rank {rank} step {step:2d} loss {loss.item():.4f}")
dist.barrier()
dist.destroy_process_group()"""),
    new_code_cell("""!torchrun --standalone --nproc-per-node=2 nb_ddp.py"""),
    new_markdown_cell("""The `!` line runs `torchrun` as a shell command, and the notebook shows everything the
two ranks printed. The loss falls on both ranks, each training on its own data with gradients
averaged by DDP.

A function can also be spawned from a notebook if it lives in an importable module (a `.py` file
next to the notebook, imported with `import`), because then the children import it by module name
instead of looking in `__main__`. Launching a file with `torchrun` is simpler and is the same command
you will use on a cluster.

## Next

Back to [the training loop](../training-loop/), or practise with the [flashcards](../../flashcards/).

(Links in a notebook are written as the site's URLs: notebook cells are not rewritten like Markdown pages.)"""),
]
nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                         "language_info": {"name": "python"}})
nbformat.write(nb, "docs/learn/notebooks.ipynb")
