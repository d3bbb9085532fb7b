"""Merging run caches made on several machines (one per shard) into one.

A run cache is content-addressed: ``runs/<key>.json``, each entry sealed with a digest of its key
and result (``cache.unseal``). A merge reads every entry of every source, checks every seal and
refuses, before writing anything, an entry whose seal is broken and a key that two caches hold
with two different results (shards are disjoint, so that is a mistake of the plan or of the
machines, never something to settle by picking one). Entries already in the target with the same
result are left as they are. The timings of all caches are merged too (the target's win).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .cache import RunCache, atomic_write_text, unseal
from .errors import GuideError


@dataclass
class MergeReport:
    added: int = 0
    already: int = 0
    sources: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"merged {len(self.sources)} cache(s): {self.added} entries added, "
                f"{self.already} held twice with the same result")


def _entries(cache_dir: Path) -> dict[str, Path]:
    return {path.stem: path for path in sorted((cache_dir / "runs").glob("*.json"))}


def merge_caches(target: Path, sources: list[Path]) -> MergeReport:
    """Merge the run caches ``sources`` into ``target`` (created if missing); GuideError listing
    every broken seal and every conflicting key, with nothing written, if there is any."""
    target, sources = Path(target), [Path(source) for source in sources]
    problems = [f"{source}: not a run cache (no runs/ folder)" for source in sources
                if not (source / "runs").is_dir()]
    chosen: dict[str, tuple[Path, str, str]] = {}      # key -> (file, its text, its result as JSON)
    same = 0
    for origin in [target, *sources]:
        for key, path in _entries(origin).items():
            raw = path.read_text(encoding="utf-8")
            try:
                result = json.dumps(unseal(raw, key)["result"], sort_keys=True)
            except ValueError as exc:
                problems.append(f"{path}: {exc}")
                continue
            if key in chosen and chosen[key][2] != result:
                problems.append(f"{path}: key {key} has another result in {chosen[key][0]} "
                                "(two caches ran one block: shards must be disjoint)")
                continue
            same += key in chosen
            chosen.setdefault(key, (path, raw, result))
    if problems:
        raise GuideError("cache merge refused, nothing written:\n  " + "\n  ".join(problems))
    report = MergeReport(already=same, sources=[str(source) for source in sources])
    store = RunCache(target)
    for key, (path, raw, _) in chosen.items():
        if path.parent.parent != target:             # an entry the target does not hold yet
            atomic_write_text(store.path_for(key), raw)
            report.added += 1
    timings: dict[str, float] = {}
    for origin in [*reversed(sources), target]:
        timings.update(RunCache(origin).timings())
    if timings:
        store.save_timings(timings)
    return report
