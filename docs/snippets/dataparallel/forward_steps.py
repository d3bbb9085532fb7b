#| run: python forward_steps.py
"""Print the key lines of DataParallel.__init__ and .forward from the torch installed here."""
import inspect

import torch
from torch import nn


def show(function, steps):
    print(f"DataParallel.{function.__name__}:")
    for line in inspect.getsource(function).splitlines():
        if any(step in line for step in steps):
            print("   ", line.strip())


print("torch", torch.__version__)
show(nn.DataParallel.__init__, ("device_type is None", "self.device_ids = []", "return",
                                "output_device = device_ids[0]", "len(self.device_ids) == 1",
                                "self.module.to("))
show(nn.DataParallel.forward, ("if not self.device_ids", "return self.module(", "for t in chain(",
                               "module must have", "self.scatter(", "len(self.device_ids) == 1",
                               "self.replicate(", "self.parallel_apply(", "self.gather("))

doc = [line.strip() for line in nn.DataParallel.__doc__.splitlines()]
start = next(i for i, line in enumerate(doc) if line.startswith("It is recommended"))
print("From the DataParallel docstring:")
print("   ", " ".join(doc[start:start + 3]))
