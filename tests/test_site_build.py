"""Real `mkdocs build --strict` runs: the project's site, a failing block, an interrupted build."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import ROOT, leftover_processes, processes_of_build, wait_until
from minisite import build, make_site, mkdocs_command
from dpguide.cache import RunCache
from dpguide.render import MERGED_TAB

pytestmark = pytest.mark.usefixtures("clean_process_table")


def test_project_site_shows_rank_tabs_command_and_download(built_site):
    html = (built_site / "learn" / "ddp" / "index.html").read_text()
    for label in ("rank 0", "rank 1", "rank 3", MERGED_TAB):
        assert f">{label}</label>" in html
    assert "torchrun --standalone --nproc-per-node=2 output_shape.py" in html
    assert 'download="output_shape.py"' in html
    served = (built_site / "snippets" / "ddp" / "output_shape.py").read_text()
    source = (ROOT / "docs" / "snippets" / "ddp" / "output_shape.py").read_text()
    assert source.startswith("#| run: ") and not served.startswith("#|")
    assert served == source.split("\n", 1)[1]             # the download is the file minus the engine's header
    assert "#| run:" not in html                          # and no page shows a header line


def test_the_notebook_page_offers_the_executed_notebook_with_its_names_linked(built_site):
    """The page says "download it with the button above": the button is there, its link resolves
    beside the page, and the file is the executed notebook (outputs in it), names linked."""
    html = (built_site / "learn" / "notebooks" / "index.html").read_text()
    link = re.search(r'<a href="([^"]+)" download[^>]*aria-label="Download this notebook"', html)
    assert link and "button above" in html, "no download button on the notebook page"
    notebook = json.loads((built_site / "learn" / "notebooks" / link.group(1)).read_text())
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell["outputs"] for cell in code if cell["source"]), "not the executed notebook"
    prose = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    assert "[`mp.spawn`](https://docs.pytorch.org/" in prose


def test_a_traceback_counts_the_lines_of_the_code_a_reader_sees(built_site):
    """ddp.md runs output_shape.py with plain python: its error names a line of the shown file."""
    html = (built_site / "learn" / "ddp" / "index.html").read_text()
    served = (built_site / "snippets" / "ddp" / "output_shape.py").read_text().splitlines()
    number = int(re.search(r'File (?:&quot;|")output_shape\.py(?:&quot;|"), line (\d+)', html).group(1))
    assert "init_process_group" in served[number - 1]


def test_a_failing_block_fails_the_strict_build_with_its_location(tmp_path):
    site = make_site(tmp_path, {"index.md": """
        # Page

        ```python
        print("before")
        raise RuntimeError("this lesson is broken")
        ```
    """})
    done = build(site)
    assert done.returncode != 0
    assert "index.md:3: block failed" in done.stderr
    assert "python raised RuntimeError: this lesson is broken" in done.stderr
    assert "command: python block.py" in done.stderr and "[python] before" in done.stderr


def test_an_authoring_mistake_fails_the_build_with_file_line(tmp_path):
    site = make_site(tmp_path, {"index.md": '# P\n\n```python\n--8<-- "gone.py"\n```\n'})
    done = build(site)
    assert done.returncode != 0 and "index.md:4: included snippet 'gone.py' does not exist" in done.stderr


def test_interrupted_build_kills_everything_and_keeps_only_complete_entries(tmp_path):
    site = make_site(tmp_path, {"index.md": """
        # P

        ```python
        print("quick")
        ```

        ```python
        import time
        time.sleep(120)
        ```

        ```python
        --8<-- "slow.py"
        ```
    """}, {"slow.py": """
        #| run: torchrun --standalone --nproc-per-node=2 slow.py
        import time
        time.sleep(120)
    """})
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DPGUIDE_JOBS": "4"}
    proc = subprocess.Popen(mkdocs_command(site), cwd=site, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    cache = RunCache(site / ".cache" / "dpguide")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((site / ".cache" / "dpguide" / "runs").glob("*.json")):
        time.sleep(0.1)
    def slow_processes():   # both workers of slow.py (their ranks are forks of the warm server)
        return [p for p in processes_of_build(proc.pid) if "slow.py" in " ".join(_cmdline(p))]

    if not wait_until(lambda: len(slow_processes()) >= 2, timeout=90):
        proc.kill()
        raise AssertionError("the torchrun job never started")
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    started = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert time.monotonic() - started < 15
    assert "build interrupted" in stderr
    entries = list((site / ".cache" / "dpguide" / "runs").glob("*.json"))
    assert len(entries) == 1
    for entry in entries:
        assert cache.load(json.loads(entry.read_text())["key"]) is not None   # complete and valid
    assert not leftover_processes()


def test_a_stale_gpu_record_fails_the_strict_build_naming_the_record(tmp_path):
    from dpguide.engine import shared_forkserver
    from dpguide.launch import Job, run_job
    from dpguide.site import SiteBuild

    page = '# GPU\n\n```python device="cuda"\n--8<-- "gpu.py"\n```\n'
    site = make_site(tmp_path, {"index.md": page}, {"gpu.py": "print('recorded through the real code path')\n"})
    build_site = SiteBuild(site, warn=lambda m: None, info=lambda m: None)
    [block] = build_site.execute()
    engine = build_site.engine
    result = run_job(Job(block.key, block.label, block.files, block.script, block.options), engine.scratch_root,
                     engine.block_env, shared_forkserver(engine.block_env), engine.live)
    build_site.records.write(block, result, {"gpu_name": "cpu stand-in for the test", "gpu_count": 1,
                                             "driver": "-", "cuda": "-", "torch": "-", "nccl": "-",
                                             "python": "-", "date": "-"})
    fresh = build(site)
    assert fresh.returncode == 0, fresh.stderr
    assert "recorded through the real code path" in (site / "site" / "index.html").read_text()
    (site / "docs" / "snippets" / "gpu.py").write_text("print('changed after recording')\n")
    stale = build(site)
    assert stale.returncode != 0
    assert "gpu.py_python.json is stale" in stale.stderr and "dpguide record --only gpu.py@python" in stale.stderr


def _cmdline(proc) -> list[str]:
    try:
        return proc.cmdline()
    except Exception:  # noqa: BLE001 - it ended meanwhile
        return []


def test_a_draft_lesson_builds_with_a_warning_but_the_strict_build_refuses_it(tmp_path):
    """`draft: true` lets a contributor preview a lesson that has no practice yet; --strict (CI) does not."""
    (tmp_path / "docs" / "learn").mkdir(parents=True)
    site = make_site(tmp_path, {"learn/new.md": "---\ndraft: true\n---\n# New lesson\n\n```python\nprint('ran')\n```\n"})
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [arg if arg != "--strict" else "--no-strict" for arg in mkdocs_command(site)]
    plain = subprocess.run(command, capture_output=True,
                           text=True, timeout=300, env=env, cwd=site)
    assert plain.returncode == 0, plain.stderr
    assert "learn/new.md:1: this lesson is a draft" in plain.stderr
    assert "ran" in (site / "site" / "learn" / "new" / "index.html").read_text()
    strict = build(site)
    assert strict.returncode != 0 and "learn/new.md:1: this lesson is a draft" in strict.stderr
