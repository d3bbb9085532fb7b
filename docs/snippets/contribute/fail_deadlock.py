#| run: python fail_deadlock.py
"""What a deadlock looks like: rank 0 waits in all_reduce for a rank that never calls it."""
from gallery import include, show

show(f'''
    ```python timeout="10"
    {include('mismatch.py')}
    ```
''', {"mismatch.py": '''
    #| run: torchrun --standalone --nproc-per-node=2 mismatch.py
    import time
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    print(f"rank {rank} reached the collective", flush=True)
    if rank == 0:
        dist.all_reduce(torch.ones(1))
    else:
        time.sleep(600)
'''})
