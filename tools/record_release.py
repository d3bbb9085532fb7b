"""Record what every block prints on another torch release, in a virtual environment of its own.

    python tools/record_release.py 2.14.1                 PyPI's wheel (on Linux: a CUDA build)
    python tools/record_release.py 2.13.0 --cpu           the CPU-only wheel (download.pytorch.org/whl/cpu)
    python tools/record_release.py 2.13.0 --cpu --find-links /opt/wheels    ... from a folder of wheels

Makes `.venvs/torch-VERSION[-cpu]` with the project's lock (constraints.txt) but that torch, the
NVIDIA packages that torch asks for resolved fresh, and the project itself without its own pin,
then runs `dpguide record-release` in it: two cold runs of every block, written to
records/releases/torch-<torch.__version__>.json for review and commit. Like the Makefile, the
install reads no pip configuration of the machine, so the torch asked for is the torch installed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: lock lines the release brings its own versions of
_RELEASE_OWNED = re.compile(r"^(torch|triton|nvidia-[\w-]+|cuda-[\w-]+)==")
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def pip_environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_NO_INDEX")}
    return {**env, "PIP_CONFIG_FILE": os.devnull}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="a torch release, e.g. 2.14.1")
    parser.add_argument("--cpu", action="store_true", help="the CPU-only wheel (VERSION+cpu)")
    parser.add_argument("--find-links", help="a folder of wheels to take torch from (no index for torch then)")
    parser.add_argument("--runs", default="2")
    args = parser.parse_args()
    venv = ROOT / ".venvs" / (f"torch-{args.version}" + ("-cpu" if args.cpu else ""))
    python = venv / "bin" / "python"
    env = pip_environment()
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lock:
        lock.writelines(line for line in (ROOT / "constraints.txt").read_text().splitlines(keepends=True)
                        if not _RELEASE_OWNED.match(line))
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    wanted = f"torch=={args.version}" + ("+cpu" if args.cpu else "")
    source = (["--find-links", args.find_links] if args.find_links else
              ["--extra-index-url", CPU_INDEX] if args.cpu else [])
    subprocess.run(pip + ["-c", lock.name, *source, wanted], check=True, env=env)
    subprocess.run(pip + ["-c", lock.name, "--no-deps", "-e", str(ROOT)], check=True, env=env)
    requirements = [line for line in Path(lock.name).read_text().splitlines() if line and not line.startswith("#")]
    subprocess.run(pip + requirements, check=True, env=env)
    os.unlink(lock.name)
    return subprocess.run([str(python), "-m", "dpguide.cli", "record-release", "--runs", args.runs],
                          cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
