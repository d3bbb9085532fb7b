#| run: python torchrun_flags.py
"""Run torchrun with --log-line-prefix-template, then ask it for --print-completion."""
import os
import subprocess
import sys
from pathlib import Path

if "LOCAL_RANK" in os.environ:               # started by torchrun below: a worker
    print(f"hello from rank {os.environ['RANK']}")
    sys.exit(0)

# --8<-- [start:body]
torchrun = str(Path(sys.executable).with_name("torchrun"))
prefix = "${role_name}/${rank}@${hostname} | "
for tee in ["--tee=3", "--tee=0"]:
    cmd = [torchrun, "--standalone", "--nproc-per-node=2", tee,
           f"--log-line-prefix-template={prefix}", __file__]
    done = subprocess.run(cmd, capture_output=True, text=True)
    print(f"--- {tee}: exit code {done.returncode}, stdout:")
    print(done.stdout, end="")
    if done.returncode:                      # the first line that is not a log line
        print([l for l in done.stderr.splitlines() if l[:1] not in "WEI "][0][:95])

done = subprocess.run([torchrun, "--print-completion", "bash"],
                      capture_output=True, text=True)
print(f"--- --print-completion bash: exit code {done.returncode}")
print((done.stdout or done.stderr).strip().splitlines()[-1][:95])
# --8<-- [end:body]
