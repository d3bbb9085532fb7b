#| run: python fail_live_group.py
"""What a script that leaves its group alive at exit looks like: right output, and still a failed
block.
"""
from gallery import include, show

show(f'''
    ```python
    {include('live.py')}
    ```
''', {"live.py": '''
    #| run: torchrun --standalone --nproc-per-node=2 live.py
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo")
    model = DDP(nn.Linear(4, 1))
    print("output shape:", tuple(model(torch.randn(8, 4)).shape))   # forward only: see the page
    dist.barrier()
    dist.destroy_process_group()   # the model (and torch.distributed.nn) still hold the group
'''})
