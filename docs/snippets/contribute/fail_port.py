#| run: python fail_port.py
"""A hard-coded MASTER_PORT that something else on the machine already holds."""
import socket

from gallery import show

with socket.socket() as other_program:  # stands in for another block or build using the port
    other_program.bind(("127.0.0.1", 0))
    other_program.listen()
    port = other_program.getsockname()[1]
    show(f'''
        ```python
        import os
        import torch.distributed as dist

        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = "{port}"
        dist.init_process_group("gloo", rank=0, world_size=1)
        dist.destroy_process_group()
        ```
    ''')
