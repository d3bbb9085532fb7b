"""The build-speed benchmark runs end to end: `build_speed.py --quick` must build its site copy and report."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "build_speed.py"
RESULTS = ROOT / "benchmarks" / "results"


def results_snapshot() -> dict[str, int]:
    return {path.name: path.stat().st_mtime_ns for path in RESULTS.iterdir()}


def summary_ratios(line: str) -> dict[str, float]:
    """`summary: cold/floor=1.72 warm/floor=1.07` -> {"cold/floor": 1.72, "warm/floor": 1.07}."""
    assert line.startswith("summary:"), f"the last line is not the summary: {line!r}"
    pairs = [word.split("=", 1) for word in line.removeprefix("summary:").split()]
    assert pairs and all(len(pair) == 2 for pair in pairs), f"summary is not NAME=RATIO words: {line!r}"
    return {name: float(value) for name, value in pairs}


# it runs beside the suite's background site build (conftest.py), which about doubles its time here
@pytest.mark.timeout(600)
def test_quick_benchmark_builds_its_copy_and_prints_a_summary():
    before = results_snapshot()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=540)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"build_speed.py --quick exited {done.returncode}:\n{output[-4000:]}"
    ratios = summary_ratios(done.stdout.strip().splitlines()[-1])
    assert {"cold/floor", "warm/floor", "one-snippet/floor", "prose/floor", "engine/bare",
            "torchrun-cold/bare", "cold/old-cold"} <= ratios.keys(), ratios
    assert all(value > 0 for value in ratios.values()), ratios
    assert results_snapshot() == before, "--quick must not write into benchmarks/results/"
