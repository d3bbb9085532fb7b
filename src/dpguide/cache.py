"""The run cache: one self-checking JSON file per block key, written atomically.

An entry holds the key, the full result and a sha256 digest of both. An entry
that does not parse, has the wrong schema, the wrong key or a digest that does
not match is reported, moved aside to ``corrupt/`` (never deleted, never
trusted) and the block runs again.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
from pathlib import Path

from .results import RunResult

SCHEMA = 1


def digest_of(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def atomic_write_json(path: Path, data: dict) -> None:
    """Write ``data`` so that ``path`` holds either the old or the complete new content."""
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` so that ``path`` holds either the old or the complete new content."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


STALE_TEMPORARY_S = 3600     # no write of this cache takes an hour: an older temporary was left by a killed build


def sweep_stale_temporaries(directory: Path, older_than_s: float = STALE_TEMPORARY_S, now: float | None = None) -> int:
    """Remove the temporary files that a build killed between writing and renaming left under
    ``directory`` (``.tmp-*`` from ``atomic_write_text``, and ``.NAME.PID.tmp`` that an older
    ``write_if_changed`` made); return how many. Only old ones: a temporary of a build running beside this one is seconds old."""
    now = datetime.datetime.now().timestamp() if now is None else now
    removed = 0
    for path in Path(directory).rglob(".*"):
        if not (path.name.startswith(".tmp-") or path.name.endswith(".tmp")) or not path.is_file():
            continue
        try:
            if now - path.stat().st_mtime > older_than_s:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            pass
    return removed


def unseal(raw: str, key: str) -> dict:
    """The entry ``raw`` (a cache file's text) as a dict, if it is a sound entry for ``key``;
    ValueError saying what is wrong otherwise."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError("unknown schema")
    if data.get("key") != key:
        raise ValueError("entry is for another key")
    if "result" not in data or data.get("digest") != digest_of({"key": data["key"], "result": data["result"]}):
        raise ValueError("digest does not match its content (edited or truncated)")
    return data


class RunCache:
    def __init__(self, directory: Path, report=print):
        self.directory = Path(directory)
        self.report = report

    def path_for(self, key: str) -> Path:
        return self.directory / "runs" / f"{key}.json"

    def load(self, key: str) -> RunResult | None:
        path = self.path_for(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return RunResult.from_json(unseal(raw, key)["result"])
        except (ValueError, KeyError, TypeError) as exc:
            self._quarantine(path, str(exc))
            return None

    def store(self, key: str, result: RunResult) -> None:
        body = {"key": key, "result": result.to_json()}
        atomic_write_json(self.path_for(key), {
            "schema": SCHEMA, **body, "digest": digest_of(body),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})

    def _quarantine(self, path: Path, reason: str) -> None:
        target = self.directory / "corrupt" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        self.report(f"cache entry {path} is corrupt ({reason}); moved to {target}, the block runs again")

    # ------------------------------------------------------------------ timings, for scheduling
    def timings(self) -> dict[str, float]:
        try:
            return json.loads((self.directory / "timings.json").read_text())
        except (FileNotFoundError, ValueError):
            return {}

    def save_timings(self, timings: dict[str, float]) -> None:
        atomic_write_json(self.directory / "timings.json", timings)
