#| run: python fail_no_destroy.py
"""A script whose ranks never destroy their process group: the exit probe names the missing call.
Its ranks are started by mp.spawn, so they end as Python ends, teardown included.
"""
from gallery import include, show

show(f'''
    ```python
    {include('train.py')}
    ```
''', {"train.py": '''
    #| run: python train.py
    import socket

    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp


    def work(rank, world, port):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=world)
        total = torch.ones(1)
        dist.all_reduce(total)
        print(f"rank {rank}: {total.item()}")


    if __name__ == "__main__":
        with socket.socket() as s:               # a free port for the ranks to meet on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        mp.spawn(work, args=(2, port), nprocs=2)
'''})
