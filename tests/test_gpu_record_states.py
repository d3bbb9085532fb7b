"""GPU record states decided without a GPU and without running anything: recorded, stale, unrecorded, invalid.

Fast: records are written and read in a temporary folder; the blocks are built in memory. The slower
tests in test_gpu_records.py check the same states through a real site build.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from dpguide.cache import digest_of
from dpguide.gpu_records import PROVENANCE_FIELDS, SCHEMA, GpuRecords, RecordState, content_key, record_name, \
    validate_record
from unit_blocks import block_of, line, result_of

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

PROVENANCE = {"gpu_name": "H200", "gpu_count": 2, "driver": "570.1", "cuda": "12.8", "torch": "2.13.0",
              "nccl": "2.27.3", "python": "3.12.3", "date": "2026-12-04T01:02:03+00:00"}
CODE = "import torch\nprint(torch.cuda.device_count())"


def gpu_block(code: str = CODE, info: str = 'device="cuda" gpus="2"', **kw):
    return block_of(info, code, **kw)


def a_result():
    return result_of([line("python", "2"), line("python", "warning", "stderr")], launch="python")


def write(tmp_path, block=None):
    records = GpuRecords(tmp_path / "records")
    block = block or gpu_block()
    return records, block, records.write(block, a_result(), PROVENANCE)


# ----------------------------------------------------------------------------- states
def test_no_file_is_unrecorded(tmp_path):
    state = GpuRecords(tmp_path).state(gpu_block())
    assert state.status == "unrecorded" and state.result is None and state.path.name == "page.md_1.json"


def test_a_written_record_reads_back_as_recorded_with_its_result_and_provenance(tmp_path):
    records, block, path = write(tmp_path)
    state = records.state(block)
    assert state.status == "recorded" and state.path == path and state.reason == ""
    assert state.result.text("python", "stdout") == "2" and state.result.text(stream="stderr") == "warning"
    assert state.provenance == PROVENANCE


def test_the_written_file_holds_what_the_record_command_ran(tmp_path):
    _, block, path = write(tmp_path)
    data = json.loads(path.read_text())
    assert data["schema"] == SCHEMA and data["identity"] == "page.md:1" and data["page"] == "page.md"
    assert data["command"] == "python block.py" and data["content_key"] == content_key(block)
    assert data["digest"] == digest_of({k: v for k, v in data.items() if k != "digest"})


def test_changed_code_makes_the_record_stale_and_hides_its_result(tmp_path):
    records, _, _ = write(tmp_path)
    state = records.state(gpu_block(CODE + "  # edited"))
    assert state.status == "stale" and state.result is None
    assert state.provenance == PROVENANCE and "changed after it was recorded" in state.reason


def test_changed_launch_settings_make_the_record_stale(tmp_path):
    records, _, _ = write(tmp_path)
    assert records.state(gpu_block(info='device="cuda" gpus="4"')).status == "stale"


def test_a_different_build_machine_keeps_it_recorded(tmp_path):
    """The record matches code and launch settings, not the environment of the CPU machine reading it."""
    records = GpuRecords(tmp_path)
    block = gpu_block()
    records.write(block, a_result(), PROVENANCE)
    other_env = gpu_block(environment={"torch": "9.9"})
    assert content_key(other_env) == content_key(block) and records.state(other_env).status == "recorded"


def test_content_key_tracks_script_code_deps_and_launch():
    block = gpu_block()
    base = content_key(block)
    for change in ("script", "deps", "files", "launch"):
        other = gpu_block()
        if change == "script":
            other.script = "other.py"
            other.files = {"other.py": block.code}
        elif change == "deps":
            other.deps = {"helper.py": "abc"}
        elif change == "files":
            other.files = {other.script: b"print(2)\n"}
        else:
            other.options = replace(other.options, gpus=3)
        assert content_key(other) != base, change


def test_not_json_is_invalid_and_says_why(tmp_path):
    records = GpuRecords(tmp_path)
    block = gpu_block()
    records.path_for(block).write_text("{ not json")
    state = records.state(block)
    assert state.status == "invalid" and state.reason.startswith("not valid JSON") and state.result is None


def test_hand_edited_output_is_invalid(tmp_path):
    records, block, path = write(tmp_path)
    path.write_text(path.read_text().replace('"2"', '"8"'))
    state = records.state(block)
    assert state.status == "invalid" and "digest does not match" in state.reason


# ----------------------------------------------------------------------------- validation
def valid_record() -> dict:
    body = {"schema": SCHEMA, "identity": "x", "content_key": "k", "command": "python x.py",
            "result": a_result().to_json(), "provenance": dict(PROVENANCE)}
    return {**body, "digest": digest_of(body)}


def resealed(data: dict) -> dict:
    body = {k: v for k, v in data.items() if k != "digest"}
    return {**body, "digest": digest_of(body)}


def test_a_valid_record_passes():
    validate_record(valid_record())


@pytest.mark.parametrize("field", ["identity", "content_key", "command", "result", "provenance", "digest"])
def test_each_missing_field_is_named(field):
    data = valid_record()
    del data[field]
    with pytest.raises(ValueError, match=f"missing field '{field}'"):
        validate_record(data if field == "digest" else resealed(data))


@pytest.mark.parametrize("field", PROVENANCE_FIELDS)
def test_each_missing_provenance_fact_is_named(field):
    data = valid_record()
    del data["provenance"][field]
    with pytest.raises(ValueError, match=f"provenance lacks {field}$"):
        validate_record(resealed(data))


@pytest.mark.parametrize("data", [[], {"schema": SCHEMA + 1}, {}])
def test_unknown_schema_or_not_a_mapping(data):
    with pytest.raises(ValueError, match="unknown schema"):
        validate_record(data)


def test_a_malformed_result_is_refused_even_with_a_right_digest():
    data = valid_record()
    data["result"]["lines"] = "not a list"
    with pytest.raises(ValueError, match="'lines'"):
        validate_record(resealed(data))


# ----------------------------------------------------------------------------- names and provenance
def test_record_names_keep_safe_characters_and_replace_the_rest():
    block = gpu_block(page="learn/ddp page.md")
    assert record_name(block) == "learn_ddp_page.md_1.json"


def test_provenance_line_states_every_fact():
    text = RecordState("recorded", None, provenance=PROVENANCE).provenance_line()
    assert text == ("recorded on 2 x H200 · torch 2.13.0 · CUDA 12.8 · NCCL 2.27.3 · driver 570.1 · "
                    "2026-12-04T01:02:03+00:00")


# ----------------------------------------------------------------------------- exact reasons (mutation testing)
def test_reasons_are_stated_exactly(tmp_path):
    records, block, path = write(tmp_path)
    assert records.state(gpu_block(CODE + "\n")).reason == "the code or its launch settings changed after it was recorded"
    assert records.state(gpu_block(CODE + "\n")).path == path
    path.write_text("[]")
    assert (records.state(block).reason, records.state(block).path) == ("unknown schema (this engine reads schema 1)", path)
    path.write_text("{")
    assert records.state(block).path == path
    data = valid_record()
    data["digest"] = "0" * 64
    with pytest.raises(ValueError, match=r"^digest does not match its content \(edited by hand, truncated or badly merged\)$"):
        validate_record(data)
    data = valid_record()
    del data["provenance"]["gpu_name"], data["provenance"]["cuda"]
    with pytest.raises(ValueError, match="^provenance lacks gpu_name, cuda$"):
        validate_record(resealed(data))
    with pytest.raises(ValueError, match=r"^unknown schema \(this engine reads schema 1\)$"):
        validate_record({})


def test_record_names_keep_capital_letters():
    assert record_name(gpu_block(page="Learn/DDP.md")) == "Learn_DDP.md_1.json"


# ----------------------------------------------------------------------------- the build's warnings
def test_the_build_warns_of_each_stale_or_invalid_record_with_the_command_that_mends_it(tmp_path):
    records, block, path = write(tmp_path)
    edited = gpu_block(CODE + "  # edited")
    cpu_only = block_of('device="cpu"', CODE)
    assert records.warnings([block, cpu_only]) == []                   # recorded, and a block with no record
    [stale] = records.warnings([edited])
    assert stale == (f"page.md:1: GPU record {path} is stale (the code or its launch settings changed after it "
                     "was recorded); refresh it with: dpguide record --only page.md:1")
    path.write_text("{")
    [invalid] = records.warnings([block])
    assert invalid.startswith(f"page.md:1: GPU record {path} is invalid (not valid JSON")
    assert invalid.endswith("); it is not shown. Re-record it or restore it from git.")
    assert GpuRecords(tmp_path / "none").warnings([block]) == []       # not yet recorded: shown as such, no warning
