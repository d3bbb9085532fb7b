"""The drift of the site's blocks across torch releases: each compared, counted per release, listed.

The build compares what it shows with every release record (``SiteBuild``); the
record command compares the build release's own record with the others and
writes the same report to ``records/releases/drift.md`` (``write_drift_report``),
so a reviewer sees in the commit that adds records what changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .blocks import Block
from .cache import atomic_write_text
from .errors import GuideError
from .gpu_records import content_key
from .release_records import STATUSES, ReleaseComparison, ReleaseRecords, compared_across_releases
from .release_render import drift_report
from .results import RunResult

REPORT_NAME = "drift.md"


@dataclass
class Drift:
    """Every block's comparisons with every other release (by block key), in the order of ``blocks``."""

    releases: ReleaseRecords
    blocks: list[Block]
    comparisons: dict[str, list[ReleaseComparison]] = field(default_factory=dict)

    @classmethod
    def of(cls, releases: ReleaseRecords, blocks: list[Block], result_for: Callable[[Block], RunResult | None],
           build_torch: str | None) -> "Drift":
        drift = cls(releases, blocks)
        for block in blocks:
            result = result_for(block)
            if result is not None and block.key not in drift.comparisons:
                drift.comparisons[block.key] = releases.compare(block, result, build_torch)
        return drift

    def counts(self) -> dict[str, dict[str, int]]:
        """Per release label, how many blocks have each status."""
        counts: dict[str, dict[str, int]] = {}
        for comparisons in self.comparisons.values():
            for c in comparisons:
                counts.setdefault(c.record.label, dict.fromkeys(STATUSES, 0))[c.status] += 1
        return counts

    def _each(self):
        seen = set()
        for block in self.blocks:
            if block.key not in seen:
                seen.add(block.key)
                for c in self.comparisons.get(block.key, []):
                    yield block, c

    def stale(self) -> dict[str, list[str]]:
        """Per release (torch version), the labels of the blocks whose record there is for older code."""
        found: dict[str, list[str]] = {}
        for block, c in self._each():
            if c.status == "stale" and block.label not in found.setdefault(c.record.torch, []):
                found[c.record.torch].append(block.label)
        return {torch: labels for torch, labels in found.items() if labels}

    def report(self) -> list[str]:
        """The drift report (Markdown lines): counts per release, then what fails or differs, by block."""
        listed: dict[str, list] = {}
        for block, c in self._each():
            if c.status in ("fails", "differs"):
                listed.setdefault(c.record.label, []).append((block.label, c.status, c.reason))
        provenance = {r.label: r.provenance_line() for r in self.releases.records}
        return drift_report(self.counts(), listed, provenance)


def records_drift(releases: ReleaseRecords, blocks: list[Block], build_torch: str) -> Drift:
    """The drift measured on records alone: the build release's first recorded run of each block
    stands for what the build shows."""
    own = releases.own(build_torch)
    if own is None:
        raise GuideError(f"no release record of the build's torch {build_torch} in {releases.directory}: "
                         "record it first (dpguide record-release)")
    compared = [b for b in blocks if compared_across_releases(b)]

    def first_run(block: Block) -> RunResult | None:
        runs = own.runs.get(content_key(block))
        return runs.first if runs is not None else None

    return Drift.of(releases, compared, first_run, build_torch)


def report_lines(drift: Drift, build_label: str) -> list[str]:
    """The text of ``drift.md``: the report, headed by the release it compares against."""
    return [f"# Drift across torch releases, against {build_label}", "",
             "Written by `dpguide drift-report` (and by `tools/record_release.py` after recording) from the "
             "records in this folder; the site's page *How the outputs are made* shows the same report, "
             "computed from the build's own runs.", "", *drift.report(), ""]


def write_drift_report(directory: Path, drift: Drift, build_label: str) -> Path:
    """Write ``drift.md`` beside the records."""
    path = Path(directory) / REPORT_NAME
    atomic_write_text(path, "\n".join(report_lines(drift, build_label)))
    return path


def report_drift(root: Path, out=print) -> int:
    """The drift-report command: compare the records against the record of the torch installed here,
    write ``records/releases/drift.md`` and print the counts per release."""
    from .release_recording import probe_release, site_blocks

    directory = Path(root) / "records" / "releases"
    releases = ReleaseRecords(directory)
    build_torch = probe_release()["torch"]
    drift = records_drift(releases, site_blocks(root), build_torch)
    path = write_drift_report(directory, drift, releases.own(build_torch).label)
    for release, row in drift.counts().items():
        out(f"{release}: " + ", ".join(f"{row[s]} {s}" for s in STATUSES))
    out(f"wrote {path}")
    return 0
