"""Release records: what every block printed on other torch releases, committed, compared on every build.

The site is built on one torch (the newest release, PyPI's wheel). Readers have
others. One JSON file per release under ``records/releases/`` holds, for every
block the CPU build runs, two real runs of it on that release, keyed by the
block's content (code, local imports, launch settings: ``gpu_records.content_key``),
with the release's provenance (torch version and build flavour, Python, machine,
date) and a digest. On the build each shown output gets, per recorded release:

- ``same``: that release printed the same (``output_drift`` blurs pids, ports, times...);
- ``differs``: it printed something else, and its two runs agree with each other;
- ``varies``: its two runs (or the build release's own two runs) differ from each
  other, so a difference says nothing about the release: a race;
- ``fails``: the block does not do there what the page says (another exception, or none);
- ``stale``: the block was recorded there, but its code (or a file it imports, or its
  launch settings) changed since: nothing of the old run is shown, and the build warns (a
  strict build fails) until the release is refreshed (``dpguide record-release --refresh``);
- ``unrecorded``: the block is new since that release was recorded: nothing is shown.

The digest detects accidents (a hand edit, a truncated file, a bad merge), not
forgery; what vouches for a record is review of the commit that adds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .blocks import Block
from .cache import atomic_write_json, digest_of
from .errors import BlockFailed, GuideError
from .gpu_records import check_sealed, content_key
from .output_drift import differing_lines, first_difference, same_output
from .results import RunResult
from .snippet_files import ENGINE_DEP

SCHEMA = 1
PROVENANCE_FIELDS = ("torch", "build", "python", "machine", "device", "date", "runs")
STATUSES = ("same", "differs", "varies", "fails", "stale", "unrecorded")


def compared_across_releases(block: Block) -> bool:
    """Whether a block's output is compared with other releases: every block the CPU build runs,
    except those that run this site's own engine (the Contribute page's gallery of build errors),
    whose output is the engine's and whose key changes with every engine edit."""
    return block.options.runs_on_cpu_build and ENGINE_DEP not in block.deps


def release_file_name(torch_version: str) -> str:
    return f"torch-{torch_version}.json"


def build_flavour(cuda: str | None, hip: str | None = None) -> str:
    """How a reader names the wheel: 'CUDA 13.2 build', 'ROCm 6.4 build' or 'CPU-only build'."""
    if cuda:
        return f"CUDA {cuda} build"
    if hip:
        return f"ROCm {hip} build"
    return "CPU-only build"


@dataclass
class BlockRuns:
    """The runs of one block's code on one release: the first, and the second when it printed otherwise."""

    first: RunResult
    second: RunResult | None = None     # None: the second run printed the same as the first

    @property
    def varies(self) -> bool:
        return self.second is not None


@dataclass
class ReleaseRecord:
    path: Path
    provenance: dict
    runs: dict[str, BlockRuns] = field(default_factory=dict)     # content key -> runs
    #: block identity -> the content keys its blocks had when recorded (one snippet file, launched alike,
    #: can be several blocks that differ in arguments or environment)
    identities: dict[str, list[str]] = field(default_factory=dict)
    #: inline value expression -> what it evaluated to on that release (None: it raised there)
    values: dict[str, str | None] = field(default_factory=dict)

    @property
    def torch(self) -> str:
        return self.provenance["torch"]

    @property
    def label(self) -> str:
        return f"torch {self.torch} ({self.provenance['build']})"

    def provenance_line(self) -> str:
        p = self.provenance
        runs = f"{p['runs']} runs of every block" if "second_run" not in p else f"one run of every block, a second {p['second_run']}"
        return (f"torch {p['torch']}, {p['build']} · Python {p['python']} on {p['device']} ({p['machine']}) · "
                f"{runs} · {p['date']}")


@dataclass
class ReleaseComparison:
    """How one block's shown output compares with one other release."""

    record: ReleaseRecord
    status: str                         # one of STATUSES
    result: RunResult | None = None     # that release's run, for differs / fails / varies
    reason: str = ""
    #: indices into ``result.lines`` of the lines the build's run did not print (noise blurred)
    marked: frozenset[int] = frozenset()


def validate(data: dict) -> None:
    """Raise ValueError unless ``data`` is a well-formed, untampered release record."""
    check_sealed(data, SCHEMA, ("blocks", "identities"), PROVENANCE_FIELDS)


def load_record(path: Path) -> ReleaseRecord:
    """The record in ``path``; GuideError naming the file and what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        validate(data)
        runs = {key: BlockRuns(RunResult.from_json(entry["first"]),
                               RunResult.from_json(entry["second"]) if entry.get("second") else None)
                for key, entry in data["blocks"].items()}
        identities = {str(k): [str(x) for x in v] for k, v in data["identities"].items()}
        values = {str(k): None if v is None else str(v) for k, v in data.get("values", {}).items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GuideError(f"{path}: release record refused: {exc}\n  fix: restore it from git "
                         "(git checkout -- records/releases) or record the release again "
                         "(python tools/record_release.py)") from None
    return ReleaseRecord(path, data["provenance"], runs, identities, values)


def write_record(path: Path, provenance: dict, runs: dict[str, BlockRuns], identities: dict[str, list[str]],
                 values: dict[str, str | None] | None = None) -> Path:
    """Write a release record: ``runs`` by content key, ``identities`` (block identity -> the content
    keys its blocks had when recorded), ``values`` (inline value expression -> its value there),
    sealed by a digest. Runs no identity names are dropped."""
    kept = {key for keys in identities.values() for key in keys}
    body = {"schema": SCHEMA, "provenance": provenance,
            "identities": {k: sorted(set(v)) for k, v in sorted(identities.items())},
            "blocks": {key: {"first": r.first.to_json(), "second": r.second.to_json() if r.second else None}
                       for key, r in sorted(runs.items()) if key in kept}}
    if values:
        body["values"] = dict(sorted(values.items()))
    atomic_write_json(Path(path), {**body, "digest": digest_of(body)})
    return Path(path)


def block_runs(first: RunResult, second: RunResult | None) -> BlockRuns:
    """Two runs of a block kept as a record keeps them: the second only when it printed otherwise."""
    return BlockRuns(first, second if second is not None and not same_output(first, second) else None)


def page_says(block: Block, result: RunResult) -> str:
    """'' when ``result`` does what the block's page says, else why not (first line)."""
    from .engine import check_outcome

    try:
        check_outcome(block, result)
        return ""
    except BlockFailed as exc:
        return exc.reason.splitlines()[0]


class ReleaseRecords:
    """Every release record of the project, read once."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.records = [load_record(p) for p in sorted(self.directory.glob("*.json"))]

    def own(self, build_torch: str | None) -> ReleaseRecord | None:
        """The record of the build's own release (its two runs tell which outputs vary run to run)."""
        return next((r for r in self.records if r.torch == build_torch), None)

    def others(self, build_torch: str | None) -> list[ReleaseRecord]:
        """The other releases, newest first."""
        return sorted((r for r in self.records if r.torch != build_torch), key=lambda r: _version_key(r.torch),
                      reverse=True)

    def value_differences(self, expr: str, value: str | None, build_torch: str | None) -> list[tuple[str, str]]:
        """(torch version, its value) of each other release whose record evaluated ``expr`` to
        something else than ``value`` ('raises' where it raised); releases without it say nothing."""
        found = []
        for record in self.others(build_torch):
            # a release's own version string is no difference worth a note
            if expr in record.values and record.values[expr] not in (value, record.torch):
                found.append((record.torch, "raises" if record.values[expr] is None else record.values[expr]))
        return found

    def varies_here(self, block: Block, result: RunResult, build_torch: str | None) -> bool:
        """Whether the build's own release printed different things on different runs of this block:
        its record's two runs, or the build's run against them."""
        own = self.own(build_torch)
        runs = own.runs.get(content_key(block)) if own is not None and compared_across_releases(block) else None
        return runs is not None and (runs.varies or not (same_output(result, runs.first) or (
            runs.second is not None and same_output(result, runs.second))))

    def compare(self, block: Block, result: RunResult, build_torch: str | None) -> list[ReleaseComparison]:
        if not compared_across_releases(block):
            return []
        key = content_key(block)
        build_varies = self.varies_here(block, result, build_torch)
        found = []
        for record in self.others(build_torch):
            runs = record.runs.get(key)
            if runs is None:
                if key not in record.identities.get(block.identity, [key]):
                    found.append(ReleaseComparison(record, "stale", reason="its code changed after that release "
                                                   "was recorded"))
                else:
                    found.append(ReleaseComparison(record, "unrecorded", reason="new since that release was recorded"))
                continue
            why = page_says(block, runs.first)
            marked = frozenset(differing_lines(result, runs.first))
            if why:
                found.append(ReleaseComparison(record, "fails", runs.first, why, marked))
            elif same_output(result, runs.first) or (runs.second is not None and same_output(result, runs.second)):
                found.append(ReleaseComparison(record, "same"))
            elif runs.varies or build_varies:
                where = "its two runs there" if runs.varies else f"two runs on torch {build_torch}"
                found.append(ReleaseComparison(record, "varies", runs.first, f"{where} printed different things",
                                               marked))
            else:
                found.append(ReleaseComparison(record, "differs", runs.first, first_difference(result, runs.first),
                                               marked))
        return found


def _version_key(version: str) -> tuple:
    public, _, local = version.partition("+")
    return tuple(int(p) if p.isdigit() else 0 for p in public.split(".")), local
