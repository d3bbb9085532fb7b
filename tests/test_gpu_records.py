"""GPU records: recorded, stale, unrecorded and tampered states, rendered and reported honestly.

Records here are written from real CPU runs through the same code path the
GPU runner uses (``GpuRecords.write`` after ``run_job``); only the provenance
of these test records is the test's own, and they live in a temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from dpguide.engine import shared_forkserver
from dpguide.gpu_records import GpuRecords, validate_record
from dpguide.launch import Job, run_job
from dpguide.recording import record_all
from dpguide.site import SiteBuild

pytestmark = pytest.mark.usefixtures("clean_process_table")

PAGE = '''
# GPU lesson

```python device="cuda"
--8<-- "gpu/where.py"
```
'''
CODE = 'print("device agnostic line", 1 + 1)\n'
PROVENANCE = {"gpu_name": "test-run-on-cpu", "gpu_count": 1, "driver": "n/a", "cuda": "n/a",
              "torch": "n/a", "nccl": "n/a", "python": "n/a", "date": "n/a"}


def setup(project, code=CODE):
    project.snippet("gpu/where.py", code)
    project.page("gpu.md", PAGE)
    warnings = []
    site = SiteBuild(project.root, cache_dir=project.root / "cache", records_dir=project.root / "records",
                     warn=warnings.append, info=lambda m: None)
    return site, warnings


def record_for_real(site: SiteBuild, block) -> Path:
    engine = site.engine
    result = run_job(Job(block.key, block.label, block.files, block.script, block.options),
                     engine.scratch_root, engine.block_env, shared_forkserver(engine.block_env), engine.live)
    assert result.succeeded
    return site.records.write(block, result, PROVENANCE)


def rendered(site: SiteBuild, page_text: str) -> str:
    return site.render_page("gpu.md", page_text)


def test_unrecorded_block_says_so_and_shows_the_record_command(project):
    site, warnings = setup(project)
    site.execute()
    html = rendered(site, PAGE)
    assert "GPU output not yet recorded" in html
    assert "dpguide record --only gpu/where.py@python" in html
    assert "the *Run it* command above shows you what it prints" in html     # the reader's way, first
    assert "device agnostic line" not in html
    assert not warnings


def test_recorded_block_shows_the_real_output_with_its_provenance(project):
    site, warnings = setup(project)
    [block] = site.execute()
    record_for_real(site, block)
    html = rendered(site, PAGE)
    assert "recorded on 1 x test-run-on-cpu" in html
    assert "device agnostic line 2" in html


def test_editing_the_code_makes_the_record_stale_warned_and_not_shown(project):
    site, _ = setup(project)
    [block] = site.execute()
    record_for_real(site, block)
    site, warnings = setup(project, code=CODE.replace("1 + 1", "2 + 2"))
    site.execute()
    html = rendered(site, PAGE)
    assert "GPU record is stale" in html and "device agnostic line" not in html
    assert len(warnings) == 1 and "gpu_where.py_python.json" in warnings[0] and "is stale" in warnings[0]


def test_a_hand_edited_record_is_refused(project):
    site, _ = setup(project)
    [block] = site.execute()
    path = record_for_real(site, block)
    path.write_text(path.read_text().replace("device agnostic line 2", "device agnostic line 3"))
    site, warnings = setup(project)
    site.execute()
    assert "GPU record refused" in rendered(site, PAGE)
    assert "digest does not match" in warnings[0]


def test_device_any_block_shows_cpu_run_and_gpu_tabs(project):
    project.snippet("gpu/any.py", CODE)
    page = '```python device="any"\n--8<-- "gpu/any.py"\n```\n'
    project.page("any.md", page)
    site = SiteBuild(project.root, cache_dir=project.root / "cache", records_dir=project.root / "records",
                     warn=lambda m: None, info=lambda m: None)
    site.execute()
    md = site.render_page("any.md", page)
    assert '=== "CPU (this build)"' in md and '=== "GPU (recorded)"' in md
    assert "device agnostic line 2" in md and "GPU output not yet recorded" in md


def test_record_command_on_a_cpu_machine_skips_every_gpu_block_with_its_reason(project, capsys):
    setup(project)
    (project.root / "mkdocs.yml").write_text("site_name: x\n")
    lines = []
    assert record_all(project.root, out=lines.append) == 0
    assert lines[0].startswith("GPU blocks: 1; this machine: 0 CUDA GPU(s)")
    assert "gpu/where.py@python" in lines[1] and "skipped" in lines[1] and "no CUDA device" in lines[1]


def test_every_committed_record_passes_its_schema_and_digest_check():
    records = sorted((ROOT / "records" / "gpu").glob("*.json"))
    if not records:
        pytest.skip("no GPU record is committed yet; every GPU-only block is checked as unrecorded, with its "
                    "record command, by tests/test_docs_blocks.py")
    for path in records:
        validate_record(json.loads(path.read_text()))
