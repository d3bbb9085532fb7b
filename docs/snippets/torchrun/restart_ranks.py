#| run: torchrun --standalone --nproc-per-node=2 --max-restarts=1 restart_ranks.py
"""What a worker is told, attempt by attempt: rank 1 fails on the first attempt only."""
import os
import sys
import time

attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
names = ["RANK", "LOCAL_RANK", "GROUP_RANK", "WORLD_SIZE"]
values = " ".join(f"{name}={os.environ[name]}" for name in names)
print(f"attempt {attempt}: pid {os.getpid()}, agent pid {os.getppid()}, {values}")

if attempt == 0 and os.environ["RANK"] == "1":
    time.sleep(1)                    # let rank 0 print first; then fail this attempt
    sys.exit("rank 1 fails on attempt 0 (simulated)")
