"""Which blocks a release's second run covers: exactly those whose second run can change what the build shows.

Pure: the reference record (the build torch's two runs) is written to a temporary folder, the first
runs are results built in memory.
"""

from __future__ import annotations

import pytest

from dpguide.gpu_records import content_key
from dpguide.release_records import BlockRuns, ReleaseRecords, block_runs, load_record, release_file_name
from dpguide.release_recording import second_run_keys
from test_release_records import BUILD, printed, provenance, seal
from unit_blocks import block_of

pytestmark = pytest.mark.unit


def reference(tmp_path, *pairs):
    return load_record(seal(tmp_path / release_file_name(BUILD), provenance(BUILD), *pairs))


def test_a_first_run_like_either_reference_run_needs_no_second(tmp_path):
    same, race = block_of("", "print(1)"), block_of("", "print(2)", prose_lines=3)
    ref = reference(tmp_path, (same, BlockRuns(printed("1"))), (race, block_runs(printed("a"), printed("b"))))
    first = {content_key(same): printed("1"), content_key(race): printed("b")}
    assert second_run_keys(first, [same, race], ref) == set()


def test_a_first_run_that_differs_from_both_reference_runs_gets_a_second(tmp_path):
    block = block_of("", "print(1)")
    ref = reference(tmp_path, (block, block_runs(printed("a"), printed("b"))))
    assert second_run_keys({content_key(block): printed("c")}, [block], ref) == {content_key(block)}


def test_a_block_the_reference_never_ran_gets_a_second(tmp_path):
    old, new = block_of("", "print(1)"), block_of("", "print(2)")
    ref = reference(tmp_path, (old, BlockRuns(printed("1"))))
    assert second_run_keys({content_key(new): printed("2")}, [new], ref) == {content_key(new)}


def test_a_block_that_fails_its_page_there_needs_no_second(tmp_path):
    block = block_of("", "print(1)")
    ref = reference(tmp_path, (block, BlockRuns(printed("1"))))
    crashed = printed("Traceback (most recent call last):", "RuntimeError: boom", returncode=1)
    assert second_run_keys({content_key(block): crashed}, [block], ref) == set()


@pytest.mark.parametrize("second", [None, printed("1"), printed("something else")])
def test_where_no_second_run_is_made_none_would_have_changed_the_status_shown(tmp_path, second):
    """The promise behind the saving: a block left out shows the same status whatever its second run printed."""
    block = block_of("", "print(1)")
    ref = reference(tmp_path, (block, BlockRuns(printed("1"))))
    assert second_run_keys({content_key(block): printed("1")}, [block], ref) == set()
    seal(tmp_path / release_file_name("2.14.1"), provenance("2.14.1"), (block, block_runs(printed("1"), second)))
    (c,) = ReleaseRecords(tmp_path).compare(block, printed("1"), BUILD)
    assert c.status == "same"


def test_the_provenance_says_where_a_second_run_was_made(tmp_path):
    block = block_of("", "print(1)")
    prov = provenance("2.14.1") | {"second_run": f"where the first printed otherwise than on torch {BUILD}"}
    record = load_record(seal(tmp_path / "r.json", prov, (block, BlockRuns(printed("1")))))
    assert "one run of every block, a second where the first printed otherwise than on torch" in record.provenance_line()
    assert "2 runs of every block" in load_record(
        seal(tmp_path / "s.json", provenance("2.14.1"), (block, BlockRuns(printed("1"))))).provenance_line()
