"""The record-release command: run every block twice on the torch installed here, write its release record.

    dpguide record-release              records/releases/torch-<torch.__version__>.json

Each run uses a cache of its own (so every block really runs, twice) and keeps
every block's result, also of blocks that do not do what their page says: on
another release that is the finding. ``tools/record_release.py`` makes the
virtual environment of a release and calls this in it.
"""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from .engine import Engine
from .environment import device_kind
from .errors import BlockFailed, GuideError
from .gpu_records import content_key
from .release_records import block_runs, build_flavour, release_file_name, write_record
from .results import RunResult

_PROBE = ("import json, torch; print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda, "
          "'hip': getattr(torch.version, 'hip', None)}))")


def probe_release() -> dict:
    """The provenance of this environment's torch (a fresh interpreter asks it)."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise GuideError(f"cannot import torch in {sys.executable}: {out.stderr.strip()[-500:]}")
    info = json.loads(out.stdout.strip().splitlines()[-1])
    return {"torch": info["torch"], "build": build_flavour(info["cuda"], info["hip"]),
            "python": platform.python_version(), "machine": platform.machine(), "device": device_kind(),
            "date": datetime.date.today().isoformat()}


def one_run(root: Path, cache_dir: Path, log) -> dict[str, RunResult]:
    """Every CPU-build block run once with a cold cache: content key -> its result, passing or not."""
    engine = Engine(root, cache_dir=cache_dir, log=log)
    blocks = [b for b in engine.collect() if b.options.runs_on_cpu_build]
    try:
        engine.run(blocks)
    except BlockFailed as exc:
        log(f"[record-release] {exc.where}: on this release (recorded, not an error here)")
    found = {}
    for block in blocks:
        result = engine.result_for(block) or engine.failed_results.get(block.key)
        if result is not None:
            found.setdefault(content_key(block), result)
    return found


def record_release(root: Path, runs: int = 2, out=print) -> int:
    provenance = {**probe_release(), "runs": runs}
    path = Path(root) / "records" / "releases" / release_file_name(provenance["torch"])
    out(f"recording {provenance['torch']} ({provenance['build']}), {runs} cold runs of every block -> {path}")
    with tempfile.TemporaryDirectory(prefix="dpguide-release-") as scratch:
        results = [one_run(root, Path(scratch) / f"run-{n}", lambda msg: print(msg, file=sys.stderr))
                   for n in range(runs)]
    first, rest = results[0], results[1:]
    recorded = {key: block_runs(result, rest[0].get(key) if rest else None) for key, result in first.items()}
    write_record(path, provenance, recorded)
    varies = sum(r.varies for r in recorded.values())
    out(f"wrote {path}: {len(recorded)} blocks, {varies} printed otherwise on their second run")
    return 0
