#| run: python module_to_tensors.py
"""What module.to keeps: the module, its Parameter objects and their gradients.

A buffer it converts is a new tensor; one with nothing to convert stays the same object.
"""
# --8<-- [start:body]
import torch
from torch import nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(3)          # parameters: weight, bias; buffers: running_mean, running_var, ...
bn(torch.randn(4, 3)).sum().backward()
weight, grad, running_mean = bn.weight, bn.weight.grad, bn.running_mean
counter = bn.num_batches_tracked    # an integer buffer
values = bn.weight.detach().clone()

returned = bn.to(torch.float64)
print("returned is bn:", returned is bn)
print("weight: same object", bn.weight is weight, "| dtype", bn.weight.dtype,
      "| values kept", torch.equal(bn.weight.float(), values))
print("weight.grad: same object", bn.weight.grad is grad, "| dtype", bn.weight.grad.dtype)
print("running_mean: same object", bn.running_mean is running_mean,
      "| the old reference is still", running_mean.dtype)
print("num_batches_tracked: same object", bn.num_batches_tracked is counter,
      "| dtype", bn.num_batches_tracked.dtype)

running_mean = bn.running_mean
bn.to("cpu")                    # already on the CPU in float64: nothing to convert
print("after bn.to('cpu'): running_mean same object", bn.running_mean is running_mean)

# tensor.to is recorded by autograd: gradients flow back to the original, which keeps its .grad
a = torch.ones(2, requires_grad=True)
b = a.to(torch.float64)
print("b is a leaf:", b.is_leaf, "| b.grad_fn:", type(b.grad_fn).__name__)
(b * 3).sum().backward()
print("a.grad:", a.grad)
# --8<-- [end:body]
