"""Record what every block prints on other torch releases, each in a virtual environment of its own.

    python tools/record_release.py 2.14.1 2.13.0          PyPI's wheels (on Linux: CUDA builds)
    python tools/record_release.py 2.13.0+cpu             the CPU-only wheel (download.pytorch.org/whl/cpu)
    python tools/record_release.py 2.13.0+cpu --find-links /opt/wheels    ... from a folder of wheels
    python tools/record_release.py 2.14.1+cu130 --refresh only the blocks changed or new since its record
    python tools/record_release.py 2.14.1 --install-only  make the venv only (to try a snippet there)

A version's local label picks the flavour: +cpu the CPU-only wheel; none, or a CUDA label such
as +cu130 (as a record's file name has it), PyPI's wheel. Releases are recorded one after another:
on a 2-core machine two at once only share the same cores.

Makes `.venvs/torch-VERSION[-cpu]` with the project's lock (constraints.txt) but that torch, the
NVIDIA packages that torch asks for resolved fresh, and the project itself without its own pin,
then runs `dpguide record-release` in it: a cold run of every block and a second cold run of the
blocks whose first printed otherwise than the build's torch (its record, which `make record-releases`
writes first, is the reference; the second run tells a race from a difference), written to
records/releases/torch-<torch.__version__>.json for review and commit. Last, `dpguide drift-report`
(in the build's venv, .venv) writes records/releases/drift.md: per release,
how many blocks print the same, differ, vary from run to run or fail, and which. Like the Makefile, the
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
    parser.add_argument("versions", nargs="+", help="torch releases, e.g. 2.14.1 2.13.0+cpu")
    parser.add_argument("--cpu", action="store_true", help="the CPU-only wheels (as VERSION+cpu)")
    parser.add_argument("--find-links", help="a folder of wheels to take the CPU-only torch from")
    parser.add_argument("--runs", default="2")
    parser.add_argument("--refresh", action="store_true", help="record only blocks changed or new since")
    parser.add_argument("--install-only", action="store_true",
                        help="make the venvs and stop (to try a snippet on an older release)")
    args = parser.parse_args()
    status = 0
    for version in args.versions:
        public, _, label = version.partition("+")
        status = status or record(public, args.cpu or label == "cpu", args)
    if status == 0 and not args.install_only:
        # the report compares against the build's record, so it runs in the build's venv (`make
        # record-releases` starts this tool with the system python3, which has no dpguide)
        build_python = ROOT / ".venv" / "bin" / "python"
        python = str(build_python) if build_python.exists() else sys.executable
        status = subprocess.run([python, "-m", "dpguide.cli", "drift-report"], cwd=ROOT).returncode
    return status


def record(version: str, cpu: bool, args) -> int:
    """Make (or reuse) the venv of one release and run the record command in it."""
    venv = ROOT / ".venvs" / (f"torch-{version}" + ("-cpu" if cpu else ""))
    python = venv / "bin" / "python"
    env = pip_environment()
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lock:
        lock.writelines(line for line in (ROOT / "constraints.txt").read_text().splitlines(keepends=True)
                        if not _RELEASE_OWNED.match(line))
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    wanted = f"torch=={version}" + ("+cpu" if cpu else "")
    # a folder of wheels serves the CPU-only releases only: `torch==2.13.0` also matches a local
    # 2.13.0+cpu wheel there, which pip would take instead of PyPI's CUDA build
    source = ((["--find-links", args.find_links] if args.find_links else ["--extra-index-url", CPU_INDEX])
              if cpu else [])
    subprocess.run(pip + ["-c", lock.name, *source, wanted], check=True, env=env)
    subprocess.run(pip + ["-c", lock.name, "--no-deps", "-e", str(ROOT)], check=True, env=env)
    requirements = [line for line in Path(lock.name).read_text().splitlines() if line and not line.startswith("#")]
    subprocess.run(pip + requirements, check=True, env=env)
    os.unlink(lock.name)
    if args.install_only:
        print(f"{venv}: torch {wanted} installed")
        return 0
    command = [str(python), "-m", "dpguide.cli", "record-release", "--runs", args.runs]
    reference = build_record()
    if reference is not None:
        command += ["--reference", str(reference)]
    return subprocess.run(command + (["--refresh"] if args.refresh else []), cwd=ROOT).returncode


def build_record() -> Path | None:
    """The release record of the build's torch (.venv), if it has been recorded: the reference that
    tells which blocks need a second run on another release."""
    build_python = ROOT / ".venv" / "bin" / "python"
    if not build_python.exists():
        return None
    found = subprocess.run([str(build_python), "-c", "import torch; print(torch.__version__)"],
                           capture_output=True, text=True)
    path = ROOT / "records" / "releases" / f"torch-{found.stdout.strip()}.json"
    return path if found.returncode == 0 and path.is_file() else None


if __name__ == "__main__":
    sys.exit(main())
