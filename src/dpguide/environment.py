"""The environment blocks run in, and its fingerprint (part of every cache key).

Blocks get the build's environment minus anything that would make one run
depend on another or on the contributor's shell (RANK, MASTER_PORT, ...), plus
a few settings the build fixes on purpose (documented on the Contribute page).
The fingerprint is computed without importing torch, so a fully cached build
never pays for that import.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import sys
from pathlib import Path

#: variables never passed from the build's shell to a block
_STRIPPED = re.compile(
    r"^(RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|GROUP_WORLD_SIZE|ROLE_RANK|ROLE_NAME|"
    r"ROLE_WORLD_SIZE|MASTER_ADDR|MASTER_PORT|TORCHELASTIC_\w+|TORCH_DISTRIBUTED_DEBUG|NCCL_\w+|GLOO_\w+|"
    r"OMP_NUM_THREADS|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUNBUFFERED|PYTEST_\w+|DPGUIDE_\w+|COV_CORE_\w+)$")

#: what the build sets for every block (and why: see docs/contribute/engine.md)
FIXED = {
    "OMP_NUM_THREADS": "1",        # torchrun sets 1 per worker anyway; same for python blocks, no banner
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
}
# Not PYTHONUNBUFFERED: it makes a print two writes (text, then newline), and two processes that
# share a pipe tear each other's lines. The exit probe, loaded into every process a block starts,
# line-buffers stdout instead, as a reader's terminal does (exit_probe/sitecustomize.py).


def block_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a block runs with."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not _STRIPPED.match(k)}
    env.update(FIXED)
    bindir = str(Path(sys.executable).parent)
    if bindir not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def torch_version() -> str:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def device_kind() -> str:
    """'cpu', or the NVIDIA GPUs the driver lists (read from /proc, no subprocess)."""
    gpus = Path("/proc/driver/nvidia/gpus")
    if gpus.is_dir():
        count = len(list(gpus.iterdir()))
        if count:
            return f"cuda x{count}"
    return "cpu"


def fingerprint() -> dict[str, str]:
    """What about this machine can change a block's output."""
    return {"python": platform.python_version(), "implementation": sys.implementation.name,
            "machine": platform.machine(), "torch": torch_version(), "device": device_kind()}
