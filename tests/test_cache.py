"""The build cache's housekeeping: temporaries that a killed build left between writing and
renaming are removed by a later build; a temporary of a build running now, and every real entry,
are kept."""

from __future__ import annotations

import os
import time

import pytest

from dpguide.cache import STALE_TEMPORARY_S, sweep_stale_temporaries
from dpguide.site import SiteBuild


def age(path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def leftovers(cache):
    (cache / "runs").mkdir(parents=True)
    (cache / "downloads" / "ddp").mkdir(parents=True)
    files = {"old atomic": cache / "runs" / ".tmp-k2j3.json", "old rename": cache / "downloads" / "ddp" / ".a.py.4242.tmp",
             "new atomic": cache / "runs" / ".tmp-live.json", "entry": cache / "runs" / "abc123.json",
             "memo": cache / "render-memo.json"}
    for path in files.values():
        path.write_text("{}")
    for name in ("old atomic", "old rename", "entry", "memo"):
        age(files[name], STALE_TEMPORARY_S + 60)
    return files


@pytest.mark.unit
def test_only_old_temporaries_are_removed(tmp_path):
    files = leftovers(tmp_path)
    assert sweep_stale_temporaries(tmp_path) == 2
    assert {name for name, path in files.items() if path.exists()} == {"new atomic", "entry", "memo"}
    assert sweep_stale_temporaries(tmp_path / "no such folder") == 0


def test_a_site_build_sweeps_its_cache_and_says_so(project):
    files = leftovers(project.root / "cache")
    said = []
    SiteBuild(project.root, docs_dir=project.docs, cache_dir=project.root / "cache", info=said.append)
    assert not files["old atomic"].exists() and not files["old rename"].exists() and files["new atomic"].exists()
    assert any("removed 2 temporary file(s) that a killed build left" in line for line in said)
