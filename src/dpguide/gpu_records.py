"""GPU records: outputs of GPU-only blocks, recorded on a real GPU, committed, checked on every build.

One JSON file per block under ``records/gpu/``: the block's content hash, the
command, the full result and the provenance (GPU model and count, driver,
CUDA, torch, NCCL, date), sealed by a digest. On the CPU build a block is
``recorded`` (hash matches), ``stale`` (code changed since: never shown as
current), ``unrecorded`` or ``invalid`` (schema or digest wrong: refused).

The digest detects accidents (a hand edit, a truncated file, a bad merge), not
forgery: anyone can recompute it. What vouches for a record is review: the GPU
workflow fails on any new, untracked or modified record, and a person commits it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .blocks import Block
from .cache import atomic_write_json, digest_of
from .results import RunResult

SCHEMA = 1
PROVENANCE_FIELDS = ("gpu_name", "gpu_count", "driver", "cuda", "torch", "nccl", "python", "date")


def content_key(block: Block) -> str:
    """What the record must match: code, local imports and launch settings (not the machine)."""
    payload = {"script": block.script, "code": hashlib.sha256(block.code).hexdigest(),
               "deps": block.deps, "launch": block.options.launch_key()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def record_name(block: Block) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", block.identity) + ".json"


@dataclass
class RecordState:
    status: str                  # recorded | stale | unrecorded | invalid
    path: Path
    result: RunResult | None = None
    provenance: dict | None = None
    reason: str = ""

    def provenance_line(self) -> str:
        p = self.provenance or {}
        return (f"recorded on {p.get('gpu_count')} x {p.get('gpu_name')} · torch {p.get('torch')} · "
                f"CUDA {p.get('cuda')} · NCCL {p.get('nccl')} · driver {p.get('driver')} · {p.get('date')}")


def check_sealed(data: dict, schema: int, fields: tuple, provenance_fields: tuple) -> None:
    """Raise ValueError unless ``data`` has this schema, these fields and provenance, and its digest
    matches (shared by GPU and release records)."""
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ValueError(f"unknown schema (this engine reads schema {schema})")
    for key in (*fields, "provenance", "digest"):
        if key not in data:
            raise ValueError(f"missing field {key!r}")
    missing = [f for f in provenance_fields if f not in data["provenance"]]
    if missing:
        raise ValueError(f"provenance lacks {', '.join(missing)}")
    body = {k: v for k, v in data.items() if k != "digest"}
    if data["digest"] != digest_of(body):
        raise ValueError("digest does not match its content (edited by hand, truncated or badly merged)")


def validate_record(data: dict) -> None:
    """Raise ValueError unless ``data`` is a well-formed, untampered record."""
    check_sealed(data, SCHEMA, ("identity", "content_key", "command", "result"), PROVENANCE_FIELDS)
    RunResult.from_json(data["result"])


class GpuRecords:
    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def path_for(self, block: Block) -> Path:
        return self.directory / record_name(block)

    def state(self, block: Block) -> RecordState:
        path = self.path_for(block)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return RecordState("unrecorded", path)
        except ValueError as exc:
            return RecordState("invalid", path, reason=f"not valid JSON: {exc}")
        try:
            validate_record(data)
        except ValueError as exc:
            return RecordState("invalid", path, reason=str(exc))
        if data["content_key"] != content_key(block):
            return RecordState("stale", path, provenance=data["provenance"],
                               reason="the code or its launch settings changed after it was recorded")
        return RecordState("recorded", path, RunResult.from_json(data["result"]), data["provenance"])

    def warnings(self, blocks) -> list[str]:
        """What the build warns about the GPU records of ``blocks``: each stale or invalid one, with the
        command that mends it (neither is shown as an output)."""
        found = []
        for block in blocks:
            state = self.state(block) if block.options.needs_gpu_record else None
            if state is not None and state.status == "stale":
                found.append(f"{block.label}: GPU record {state.path} is stale ({state.reason}); "
                             f"refresh it with: dpguide record --only {block.identity}")
            elif state is not None and state.status == "invalid":
                found.append(f"{block.label}: GPU record {state.path} is invalid ({state.reason}); "
                             "it is not shown. Re-record it or restore it from git.")
        return found

    def write(self, block: Block, result: RunResult, provenance: dict) -> Path:
        body = {"schema": SCHEMA, "identity": block.identity, "content_key": content_key(block),
                "page": block.page, "command": block.reader_command, "result": result.to_json(),
                "provenance": provenance}
        path = self.path_for(block)
        atomic_write_json(path, {**body, "digest": digest_of(body)})
        return path
