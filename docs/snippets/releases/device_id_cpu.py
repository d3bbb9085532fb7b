#| run: python device_id_cpu.py
"""Pass a CPU device as device_id to a one-rank gloo group."""
import torch
import torch.distributed as dist

# --8<-- [start:body]
store = dist.HashStore()
for device in [torch.device("cpu", 0), torch.device("cpu")]:
    try:
        dist.init_process_group("gloo", store=store, rank=0, world_size=1,
                                device_id=device)
    except ValueError as e:
        print(f"device_id={device}: ValueError: {e}")
        continue
    world = dist.group.WORLD
    gloo = world._get_backend(torch.device("cpu"))
    print(f"device_id={device}: accepted, bound_device_id={world.bound_device_id}, "
          f"gloo supports_splitting={gloo.supports_splitting}")
    dist.destroy_process_group()
# --8<-- [end:body]
