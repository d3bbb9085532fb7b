"""The drift of blocks across releases: counted per release, stale blocks named, the report written."""

from __future__ import annotations

import pytest

from dpguide.errors import GuideError
from dpguide.release_drift import REPORT_NAME, Drift, records_drift, write_drift_report
from dpguide.release_records import BlockRuns, ReleaseRecords
from test_release_records import BUILD, printed, provenance, seal
from unit_blocks import block_of

pytestmark = pytest.mark.unit


def two_blocks():
    return block_of("", "print(1)"), block_of("", "print(2)", prose_lines=5)


def test_counts_name_each_status_per_release_and_the_report_lists_what_differs(tmp_path):
    same, other = two_blocks()
    seal(tmp_path / "torch-2.14.1.json", provenance("2.14.1"),
         (same, BlockRuns(printed("1"))), (other, BlockRuns(printed("two"))))
    shown = {same.key: printed("1"), other.key: printed("2")}
    drift = Drift.of(ReleaseRecords(tmp_path), [same, other], lambda b: shown[b.key], BUILD)
    assert drift.counts()["torch 2.14.1 (CUDA 12.8 build)"] == {
        "same": 1, "differs": 1, "varies": 0, "fails": 0, "stale": 0, "unrecorded": 0}
    report = "\n".join(drift.report())
    assert f"`{other.label}`: differs" in report and f"`{same.label}`" not in report


def test_a_block_changed_since_recording_is_named_stale_for_that_release(tmp_path):
    old, new = block_of("", "print(1)"), block_of("", "print(10)")
    seal(tmp_path / "torch-2.14.1.json", provenance("2.14.1"), (old, BlockRuns(printed("1"))))
    drift = Drift.of(ReleaseRecords(tmp_path), [new], lambda b: printed("10"), BUILD)
    assert new.identity == old.identity and drift.stale() == {"2.14.1": [new.label]}


def test_the_record_command_report_compares_records_with_the_build_release_record(tmp_path):
    same, other = two_blocks()
    seal(tmp_path / f"torch-{BUILD}.json", provenance(BUILD, "CUDA 13.2 build"),
         (same, BlockRuns(printed("1"))), (other, BlockRuns(printed("2"))))
    seal(tmp_path / "torch-2.13.0+cpu.json", provenance("2.13.0+cpu", "CPU-only build"),
         (same, BlockRuns(printed("1"))), (other, BlockRuns(printed("3"))))
    releases = ReleaseRecords(tmp_path)
    drift = records_drift(releases, [same, other], BUILD)
    assert list(drift.counts()) == ["torch 2.13.0+cpu (CPU-only build)"]
    assert drift.counts()["torch 2.13.0+cpu (CPU-only build)"]["differs"] == 1
    path = write_drift_report(tmp_path, drift, releases.own(BUILD).label)
    text = path.read_text()
    assert path.name == REPORT_NAME and text.startswith(f"# Drift across torch releases, against torch {BUILD}")
    assert "1 same, 1 differ," in text and len(ReleaseRecords(tmp_path).records) == 2


def test_without_a_record_of_the_build_torch_the_report_says_what_to_record(tmp_path):
    with pytest.raises(GuideError, match="record it first"):
        records_drift(ReleaseRecords(tmp_path), list(two_blocks()), BUILD)


@pytest.mark.unit
def test_the_committed_drift_report_is_the_one_the_committed_records_give():
    """records/releases/drift.md is rewritten by the record command; a record committed without it
    (or a hand edit of it) fails here."""
    from pathlib import Path

    from dpguide.release_drift import report_lines
    from dpguide.release_recording import site_blocks

    root = Path(__file__).resolve().parents[1]
    directory = root / "records" / "releases"
    releases = ReleaseRecords(directory)
    own = max(releases.records, key=lambda r: _public(r.torch))
    drift = records_drift(releases, site_blocks(root), own.torch)
    assert (directory / REPORT_NAME).read_text() == "\n".join(report_lines(drift, own.label))


def _public(version: str) -> tuple:
    return tuple(int(p) for p in version.split("+")[0].split("."))
