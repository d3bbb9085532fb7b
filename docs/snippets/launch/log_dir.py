#| run: python log_dir.py
"""Start torchrun with --log-dir and --tee, then list the directory it wrote."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

if "LOCAL_RANK" in os.environ:               # started by torchrun below: a worker
    rank = int(os.environ["RANK"])
    print(f"hello from rank {rank} (stdout)")
    print(f"rank {rank} warns on stderr", file=sys.stderr)
    sys.exit(0)

# --8<-- [start:body]
log_dir = Path(tempfile.mkdtemp())
torchrun = Path(sys.executable).with_name("torchrun")
cmd = [str(torchrun), "--standalone", "--nproc-per-node=2",
       f"--log-dir={log_dir}", "--tee=3", __file__]
done = subprocess.run(cmd, capture_output=True, text=True)
print("torchrun exit code:", done.returncode)
print("--- what the console got on stdout (--tee=3 also writes it to files):")
print(done.stdout, end="")
print(f"--- files under the log dir ({log_dir}):")
for path in sorted(log_dir.rglob("*")):
    if path.is_file():
        rel = path.relative_to(log_dir)
        print(f"{rel}: {path.read_text().strip()!r}")
# --8<-- [end:body]
