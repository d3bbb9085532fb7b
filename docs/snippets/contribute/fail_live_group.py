#| run: python fail_live_group.py
"""What a script whose processes end with their group still alive looks like: right output, and
still a failed block. Its ranks are started by mp.spawn, so they end as Python ends, teardown
included (the build ends only the processes it starts itself before the teardown).
"""
from gallery import include, show

show(f'''
    ```python
    {include('live.py')}
    ```
''', {"live.py": '''
    #| run: python live.py
    import socket

    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def work(rank, world, port):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=world)
        model = DDP(nn.Linear(4, 1))
        out = model(torch.randn(8, 4))           # forward only: see the page
        print(f"rank {rank}: output shape {tuple(out.shape)}")
        dist.barrier()
        dist.destroy_process_group()   # the model (and torch.distributed.nn) still hold the group


    if __name__ == "__main__":
        with socket.socket() as s:               # a free port for the ranks to meet on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        mp.spawn(work, args=(2, port), nprocs=2)
'''})
