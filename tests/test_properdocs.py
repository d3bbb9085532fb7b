"""ProperDocs, the maintained MkDocs 1.6 fork, builds the same site from the same hooks and cache.

The project's site built by ProperDocs equals the MkDocs build file for file (the generator tag
aside), runs no block when MkDocs has filled the cache, and ProperDocs' --strict refuses what the
engine warns about, as MkDocs' does.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from minisite import make_site

PROPERDOCS = [sys.executable, "-m", "properdocs", "build", "--strict"]
GENERATOR = re.compile(rb'<meta name="generator" content="[^"]*">')


def comparable(path: Path) -> bytes:
    """A built file's bytes as both generators should write them: the generator tag blanked, and a
    gzip file (the sitemap) compared by what it holds, not by its header's time stamp."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        return gzip.decompress(data)
    return GENERATOR.sub(b'<meta name="generator">', data) if path.suffix == ".html" else data


def build_with_properdocs(root: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([*PROPERDOCS, "-f", str(root / "mkdocs.yml"), "-d", str(out)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.timeout(900)
def test_properdocs_builds_the_site_mkdocs_built_file_for_file_and_runs_nothing(built_site, tmp_path):
    done = build_with_properdocs(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    assert re.search(r"\[dpguide\] nothing to run: \d+ block\(s\) taken from the cache", done.stderr), done.stderr[-2000:]
    ours = {p.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("*") if p.is_file()}
    theirs = {p.relative_to(built_site) for p in built_site.rglob("*") if p.is_file()}
    assert ours == theirs, f"only ProperDocs: {sorted(ours - theirs)[:5]}; only MkDocs: {sorted(theirs - ours)[:5]}"
    differ = [str(p) for p in sorted(ours) if comparable(tmp_path / "site" / p) != comparable(built_site / p)]
    assert not differ, f"{len(differ)} files differ between the ProperDocs and the MkDocs build: {differ[:10]}"
    assert b"ProperDocs" in (tmp_path / "site" / "index.html").read_bytes()   # it was ProperDocs that built it


def test_properdocs_strict_refuses_what_the_engine_warns_about(tmp_path):
    """The engine's warnings reach ProperDocs' strict count: a draft lesson fails its strict build."""
    (tmp_path / "docs" / "learn").mkdir(parents=True)
    site = make_site(tmp_path, {"learn/new.md": "---\ndraft: true\n---\n# New lesson\n\nNo code.\n"})
    done = build_with_properdocs(site, site / "site")
    assert done.returncode != 0 and "learn/new.md:1: this lesson is a draft" in done.stderr, done.stderr[-2000:]
    assert "Aborted with 1 warnings in strict mode" in done.stdout + done.stderr
