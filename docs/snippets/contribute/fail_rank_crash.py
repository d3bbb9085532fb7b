#| run: python fail_rank_crash.py
"""What one crashing rank looks like: torchrun ends the others and names the first failure."""
from gallery import include, show

show(f'''
    ```python
    {include('crash.py')}
    ```
''', {"crash.py": '''
    #| run: torchrun --standalone --nproc-per-node=2 crash.py
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    if dist.get_rank() == 1:
        raise RuntimeError("rank 1 could not load its shard")
    dist.all_reduce(torch.ones(1))
'''})
