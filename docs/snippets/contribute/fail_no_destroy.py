#| run: python fail_no_destroy.py
"""A script that never destroys its process group: the exit probe names the missing call."""
from gallery import include, show

show(f'''
    ```python
    {include('train.py')}
    ```
''', {"train.py": '''
    #| run: torchrun --standalone --nproc-per-node=2 train.py
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    total = torch.ones(1)
    dist.all_reduce(total)
    print(f"rank {dist.get_rank()}: {total.item()}")
'''})
