"""Release records: each state an output can have against another release, and a record refused loudly.

Pure: records are written to and read from a temporary folder, blocks and results built in memory.
The last test reads the records committed under records/releases/ (real runs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dpguide.errors import GuideError
from dpguide.gpu_records import content_key
from dpguide.output_drift import same_output
from dpguide.release_records import (BlockRuns, ReleaseRecords, block_runs, build_flavour, load_record,
                                     release_file_name, write_record)
from dpguide.release_render import release_lines
from unit_blocks import block_of, line, result_of

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
BUILD = "2.15.0+cu132"


def provenance(torch: str, build: str = "CUDA 12.8 build") -> dict:
    return {"torch": torch, "build": build, "python": "3.11.7", "machine": "x86_64", "device": "cpu",
            "date": "2026-12-06", "runs": 2}


def seal(path, prov: dict, *pairs):
    """Write a release record holding, for each (block, runs), those runs under the block's content key."""
    return write_record(path, prov, {content_key(b): r for b, r in pairs}, {b.identity: [content_key(b)] for b, _ in pairs})


def printed(*texts: str, returncode: int = 0):
    """A python run that printed ``texts``: on stdout, or on stderr when it failed (its traceback)."""
    stream = "stderr" if returncode else "stdout"
    return result_of([line("python", t, stream) for t in texts], launch="python", returncode=returncode)


def records_with(tmp_path, block, torch: str, first, second=None) -> ReleaseRecords:
    seal(tmp_path / release_file_name(torch), provenance(torch), (block, block_runs(first, second)))
    return ReleaseRecords(tmp_path)


def status(tmp_path, block, shown, first, second=None, torch="2.14.1"):
    (c,) = records_with(tmp_path, block, torch, first, second).compare(block, shown, BUILD)
    return c


def test_the_same_output_is_same(tmp_path):
    block = block_of("", "print(1)")
    assert status(tmp_path, block, printed("1"), printed("1")).status == "same"


def test_another_output_differs_and_names_the_first_difference(tmp_path):
    block = block_of("", "print(1)")
    c = status(tmp_path, block, printed("x 1"), printed("x 2"))
    assert c.status == "differs" and c.reason == "python, line 1: 'x 1' vs 'x 2'" and c.result.text() == "x 2"


def test_two_runs_that_disagree_there_make_it_a_race_not_a_difference(tmp_path):
    block = block_of("", "print(1)")
    c = status(tmp_path, block, printed("rank 0 failed first"), printed("rank 1 failed first"),
               printed("rank 2 failed first"))
    assert c.status == "varies" and "two runs there" in c.reason


def test_a_race_on_the_build_release_itself_is_also_no_difference(tmp_path):
    block = block_of("", "print(1)")
    seal(tmp_path / release_file_name(BUILD), provenance(BUILD), (block, block_runs(printed("a"), printed("b"))))
    seal(tmp_path / release_file_name("2.14.1"), provenance("2.14.1"), (block, block_runs(printed("c"), None)))
    (c,) = ReleaseRecords(tmp_path).compare(block, printed("a"), BUILD)
    assert c.status == "varies" and BUILD in c.reason


def test_a_block_that_does_not_do_what_its_page_says_there_fails(tmp_path):
    block = block_of('expect="fail" raises="RuntimeError"', "raise RuntimeError")
    traceback = ("Traceback (most recent call last):", '  File "block.py", line 1, in <module>')
    shown = printed(*traceback, "RuntimeError: Found no NVIDIA driver on your system.", returncode=1)
    there = printed(*traceback, "AssertionError: Torch not compiled with CUDA enabled", returncode=1)
    c = status(tmp_path, block, shown, there)
    assert c.status == "fails" and "expected to raise RuntimeError but raised AssertionError" in c.reason


def test_changed_code_is_stale_and_nothing_of_the_old_code_is_shown(tmp_path):
    old, new = block_of("", "print(1)"), block_of("", "print(2)")
    records = records_with(tmp_path, old, "2.14.1", printed("1"))
    (c,) = records.compare(new, printed("2"), BUILD)
    assert c.status == "stale" and c.result is None
    assert release_lines([c]) == ['<p class="dpg-releases">Other torch releases: recorded for older code (not shown) '
                                  'on torch 2.14.1 (CUDA 12.8 build).</p>']


def test_a_block_new_since_the_record_is_unrecorded_not_stale(tmp_path):
    old, new = block_of("", "print(1)"), block_of("", "print(2)", prose_lines=5)
    (c,) = records_with(tmp_path, old, "2.14.1", printed("1")).compare(new, printed("2"), BUILD)
    assert c.status == "unrecorded" and c.result is None


def test_the_build_release_is_not_listed_as_another_release(tmp_path):
    block = block_of("", "print(1)")
    assert records_with(tmp_path, block, BUILD, printed("1")).compare(block, printed("1"), BUILD) == []


def test_releases_are_listed_newest_first(tmp_path):
    block = block_of("", "print(1)")
    for torch in ("2.13.0+cpu", "2.14.1", "2.9.1"):
        seal(tmp_path / release_file_name(torch), provenance(torch), (block, block_runs(printed("1"), None)))
    assert [r.torch for r in ReleaseRecords(tmp_path).others(BUILD)] == ["2.14.1", "2.13.0+cpu", "2.9.1"]


def test_a_second_run_that_printed_the_same_is_not_kept():
    assert block_runs(printed("1"), printed("1")).second is None
    assert block_runs(printed("1"), printed("2")).varies


@pytest.mark.parametrize("damage", ["edit", "truncate", "schema"])
def test_a_damaged_record_stops_with_its_path_and_reason(tmp_path, damage):
    block = block_of("", "print(1)")
    path = seal(tmp_path / "torch-2.14.1.json", provenance("2.14.1"), (block, BlockRuns(printed("1"))))
    data = json.loads(path.read_text())
    if damage == "edit":
        data["blocks"][content_key(block)]["first"]["lines"][0][3] = "2"
        path.write_text(json.dumps(data))
    elif damage == "truncate":
        path.write_text(path.read_text()[:100])
    else:
        data["schema"] = 99
        path.write_text(json.dumps(data))
    with pytest.raises(GuideError) as info:
        ReleaseRecords(tmp_path)
    assert str(path) in str(info.value) and "release record refused" in str(info.value)


def test_the_line_under_an_output_groups_releases_by_status_and_folds_the_differing_run(tmp_path):
    block = block_of("", "print(1)")
    seal(tmp_path / "torch-2.14.1.json", provenance("2.14.1"), (block, BlockRuns(printed("1"))))
    seal(tmp_path / "torch-2.13.0+cpu.json", provenance("2.13.0+cpu", "CPU-only build"), (block, BlockRuns(printed("one"))))
    lines = release_lines(ReleaseRecords(tmp_path).compare(block, printed("1"), BUILD))
    assert lines[0] == ('<p class="dpg-releases">Other torch releases: same on torch 2.14.1 (CUDA 12.8 build); '
                        'differs on torch 2.13.0+cpu (CPU-only build).</p>')
    assert '??? note "torch 2.13.0+cpu (CPU-only build) prints something else"' in lines
    assert any("one" in x for x in lines)


def test_the_folded_run_highlights_exactly_the_lines_this_page_did_not_print(tmp_path):
    block = block_of("", "print(1)")
    c = status(tmp_path, block, printed("same", "1", "end"), printed("same", "2", "end", "extra"))
    lines = release_lines([c])
    assert c.status == "differs" and c.marked == {1, 3}
    assert '    ```text hl_lines="2 4"' in lines
    assert any("Highlighted: the 2 lines this page's run did not print" in x for x in lines)


def test_build_flavours_are_named_as_readers_know_them():
    assert build_flavour("13.2") == "CUDA 13.2 build" and build_flavour(None) == "CPU-only build"
    assert build_flavour(None, "6.4") == "ROCm 6.4 build"


# ----------------------------------------------------------------------------- the committed records
COMMITTED = sorted((ROOT / "records" / "releases").glob("*.json"))


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_committed_records_load_with_their_provenance_and_name_their_release(path):
    """A second run is kept when it printed otherwise under the filter of its day: a filter that
    learns a new kind of noise later may call some of them the same, so that is not asserted."""
    record = load_record(path)
    assert record.runs and record.provenance["runs"] == 2
    assert path.name == release_file_name(record.torch)
    assert re.fullmatch(r"(CUDA \d+\.\d+|ROCm [\d.]+|CPU-only) build", record.provenance["build"])


def test_the_page_note_names_the_build_torch_and_its_flavour_once():
    from dpguide.release_render import build_note

    note = build_note("2.15.0+cu132", "CUDA 13.2 build", "3.11.7", "cpu")
    assert "torch 2.15.0+cu132 (CUDA 13.2 build), Python 3.11.7, on a machine without a GPU" in note


def test_the_drift_report_counts_every_status_per_release_and_lists_what_fails_or_differs():
    from dpguide.release_render import drift_report

    counts = {"torch 2.14.1 (CUDA 12.8 build)": {"same": 5, "differs": 1, "varies": 0, "fails": 1, "stale": 3,
                                                 "unrecorded": 2}}
    rows = drift_report(counts, {"torch 2.14.1 (CUDA 12.8 build)": [("a.md:3", "fails", "raised X")]},
                        {"torch 2.14.1 (CUDA 12.8 build)": "recorded then"})
    assert rows[0] == ("- **torch 2.14.1 (CUDA 12.8 build)**: 5 same, 1 differ, 0 vary from run to run, 1 do not do "
                       "what their page says, 3 recorded for older code, 2 not recorded yet. "
                       "<small>Recorded: recorded then.</small>")
    assert "    - `a.md:3`: fails: <code>raised X</code>" in rows
    assert drift_report({}, {}, {}) == ["*No release records yet: every output is from the build's torch only.*"]


def test_an_output_that_changes_between_runs_on_the_build_torch_says_so(tmp_path):
    block = block_of("", "print(1)")
    seal(tmp_path / release_file_name(BUILD), provenance(BUILD), (block, block_runs(printed("seed 1"), printed("seed 2"))))
    records = ReleaseRecords(tmp_path)
    assert records.varies_here(block, printed("seed 1"), BUILD)
    assert release_lines([], True) == ['<p class="dpg-releases">Other torch releases: this output changes from '
                                       'run to run on this torch too (a race).</p>']
    steady = block_of("", "print(2)")
    seal(tmp_path / release_file_name(BUILD), provenance(BUILD), (steady, block_runs(printed("2"), None)))
    assert not ReleaseRecords(tmp_path).varies_here(steady, printed("2"), BUILD)
    assert ReleaseRecords(tmp_path).varies_here(steady, printed("3"), BUILD)


def test_blocks_that_run_the_site_engine_are_not_compared_across_releases(tmp_path):
    from dataclasses import replace

    from dpguide.release_records import compared_across_releases
    from dpguide.snippet_files import ENGINE_DEP

    block = block_of("", "print(1)")
    gallery = replace(block, deps={ENGINE_DEP: "abc"})
    assert compared_across_releases(block) and not compared_across_releases(gallery)
    records = records_with(tmp_path, block, "2.14.1", printed("1"))
    assert records.compare(gallery, printed("1"), BUILD) == [] and not records.varies_here(gallery, printed("2"), BUILD)


def test_inline_values_are_kept_per_release_and_only_differences_are_said(tmp_path):
    block = block_of("", "print(1)")
    values = {"dist.is_nccl_available()": "False", "torch.__version__": "2.13.0+cpu", "gone()": None,
              "same()": "3"}
    write_record(tmp_path / "torch-2.13.0+cpu.json", provenance("2.13.0+cpu", "CPU-only build"),
                 {content_key(block): BlockRuns(printed("1"))}, {block.identity: [content_key(block)]}, values)
    releases = ReleaseRecords(tmp_path)
    assert releases.records[0].values == values
    assert releases.value_differences("dist.is_nccl_available()", "True", BUILD) == [("2.13.0+cpu", "False")]
    assert releases.value_differences("gone()", "1", BUILD) == [("2.13.0+cpu", "raises")]
    assert releases.value_differences("same()", "3", BUILD) == []
    assert releases.value_differences("torch.__version__", BUILD, BUILD) == []
    assert releases.value_differences("new_since()", "1", BUILD) == []


def test_an_inline_value_says_what_other_releases_give_where_they_differ():
    from dpguide.claims import PageClaimRenderer

    class Checker:
        def value(self, expr):
            return "True"

    shown = PageClaimRenderer({}, Checker(), elsewhere=lambda e, v: [("2.13.0+cpu", "False")]).value_html("x()")
    assert shown.endswith('<small class="dpg-value-releases">(False on torch 2.13.0+cpu)</small>')
    assert "(" not in PageClaimRenderer({}, Checker()).value_html("x()").split("</span>")[1]
