"""The record command: run every GPU block this machine can, write one record per block.

On a machine without CUDA every GPU block is listed as skipped with its reason
and the command exits 0. With ``--check`` (the GPU CI job) a record whose
output differs from the committed one is reported as drift and the command
fails, as does any block that does not behave as its page says.
"""

from __future__ import annotations

import datetime
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from .engine import Engine, check_outcome, shared_forkserver
from .errors import BlockFailed
from .gpu_records import GpuRecords
from .launch import Job, run_job

_PROBE = r"""
import json, torch
info = {"count": torch.cuda.device_count() if torch.cuda.is_available() else 0, "torch": torch.__version__,
        "cuda": torch.version.cuda}
if info["count"]:
    info["name"] = torch.cuda.get_device_name(0)
    try:
        info["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    except Exception:
        info["nccl"] = "unavailable"
print(json.dumps(info))
"""


def probe_machine() -> dict:
    """GPU model and count, driver, CUDA, torch and NCCL versions (a fresh interpreter asks torch)."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    info = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else {"count": 0}
    driver = "unknown"
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True)
        driver = smi.stdout.strip().splitlines()[0] if smi.returncode == 0 and smi.stdout.strip() else driver
    info["driver"] = driver
    return info


def _comparable(result) -> list:
    return [(line.source, line.stream, line.text) for line in result.lines]


def record_all(root: Path, only: str | None = None, check: bool = False, out=print) -> int:
    engine = Engine(root)
    records = GpuRecords(root / "records" / "gpu")
    blocks = [b for b in engine.collect() if b.options.needs_gpu_record and (only is None or b.identity == only)]
    machine = probe_machine()
    rows, status = [], 0
    for block in blocks:
        needs = block.options.gpus
        if machine["count"] == 0:
            rows.append((block.identity, "skipped", "no CUDA device on this machine"))
            continue
        if needs > machine["count"]:
            rows.append((block.identity, "skipped", f"needs {needs} GPUs, this machine has {machine['count']}"))
            continue
        job = Job(block.key, block.label, block.files, block.script, block.options)
        result = run_job(job, engine.scratch_root, engine.block_env, shared_forkserver(engine.block_env),
                         engine.live)
        try:
            check_outcome(block, result)
        except BlockFailed as exc:
            rows.append((block.identity, "FAILED", str(exc).splitlines()[0]))
            status = 1
            continue
        previous = records.state(block)
        if previous.status == "recorded" and _comparable(previous.result) == _comparable(result):
            rows.append((block.identity, "unchanged", f"same output as {previous.path.name}; record kept"))
            continue
        if check and previous.status == "recorded":
            rows.append((block.identity, "DRIFT", f"output differs from {previous.path.name}"))
            status = 1
            continue
        provenance = {"gpu_name": machine.get("name"), "gpu_count": machine["count"],
                      "driver": machine["driver"], "cuda": machine.get("cuda"), "torch": machine.get("torch"),
                      "nccl": machine.get("nccl"), "python": platform.python_version(),
                      "date": datetime.date.today().isoformat()}
        path = records.write(block, result, provenance)
        rows.append((block.identity, "recorded", str(path.relative_to(root))))
    out(f"GPU blocks: {len(blocks)}; this machine: {machine['count']} CUDA GPU(s)")
    for row in rows:
        out("  {:<50} {:<9} {}".format(*row))
    return status
