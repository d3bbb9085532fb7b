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


#: the results folder when this module was collected, before the benchmark started beside the tests
QUICK_START_SNAPSHOT = results_snapshot()


def summary_ratios(line: str) -> dict[str, float]:
    """`summary: cold/floor=1.72 warm/floor=1.07` -> {"cold/floor": 1.72, "warm/floor": 1.07}."""
    assert line.startswith("summary:"), f"the last line is not the summary: {line!r}"
    pairs = [word.split("=", 1) for word in line.removeprefix("summary:").split()]
    assert pairs and all(len(pair) == 2 for pair in pairs), f"summary is not NAME=RATIO words: {line!r}"
    return {name: float(value) for name, value in pairs}


# it runs beside the other tests from the start (conftest.py's QUICK_BENCHMARK), and beside the
# background site build, which about doubles its time here; this waits for it
@pytest.mark.timeout(1260)
def test_quick_benchmark_builds_its_copy_and_prints_a_summary(quick_benchmark):
    code, output = quick_benchmark
    assert code == 0, f"build_speed.py --quick exited {code}:\n{output[-4000:]}"
    summary = next(line for line in reversed(output.strip().splitlines()) if line.startswith("summary:"))
    ratios = summary_ratios(summary)
    assert {"cold/floor", "warm/floor", "warm/content-floor", "content-floor/floor", "warm-no-memo/floor", "one-snippet/floor",
            "one-snippet/bound", "prose/floor", "engine/bare", "torchrun-cold/bare"} <= ratios.keys(), ratios
    assert "cold/old-cold" not in ratios, "--quick leaves out the old path's cold build (row 2b)"
    assert all(value > 0 for value in ratios.values()), ratios
    assert results_snapshot() == QUICK_START_SNAPSHOT, "--quick must not write into benchmarks/results/"


def load_benchmark(monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_speed_under_test", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)   # its dataclasses look themselves up there
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.unit
def test_a_rebuild_that_must_run_nothing_fails_the_run_when_it_runs_a_block(monkeypatch, tmp_path):
    """Rows 3 and 5 time builds that must run no block: one that writes a cache entry (a run) fails
    the benchmark instead of being timed as a warm build."""
    bench = load_benchmark(monkeypatch)
    runner = bench.Bench(tmp_path, repeat=1)
    runner.runs.mkdir(parents=True)

    def build_that_runs(command, cwd, env):
        (runner.runs / "abc123.json").write_text("{}")
        return 1.0

    monkeypatch.setattr(bench, "timed", build_that_runs)
    assert runner.measure("3 warm", "warm") == 1.0       # not asked to check: timed
    (runner.runs / "abc123.json").unlink()
    with pytest.raises(bench.BenchmarkFailed, match=r"3 warm: the build ran 1 block\(s\) .*abc123\.json"):
        runner.measure("3 warm", "warm", runs_nothing=True)
    monkeypatch.setattr(bench, "timed", lambda command, cwd, env: 1.0)
    assert runner.measure("3 warm", "warm", runs_nothing=True) == 1.0   # nothing written: timed


@pytest.mark.unit
def test_a_bare_command_that_fails_is_noted_and_timed_again_or_left_out(monkeypatch, tmp_path, capsys):
    """The reader's command can abort at exit now and then (a live gloo thread in Python's teardown):
    that must not end a 30-minute benchmark; the log says it happened, and a block whose bare
    command failed twice is left out of both sums."""
    import types

    import dpguide.launch

    bench = load_benchmark(monkeypatch)
    tries = []

    def timed(command, cwd, env):
        tries.append(command)
        if len(tries) == 1:
            raise bench.BenchmarkFailed("`torchrun ...` exited with status 1:\nexitcode  : -6 (SIGABRT)")
        return 2.5

    monkeypatch.setattr(bench, "timed", timed)
    monkeypatch.setattr(dpguide.launch, "prepare_scratch", lambda job, scratch: tmp_path)
    block = types.SimpleNamespace(key="k" * 12, label="learn/x.md:3", files={}, script="x.py", options=None,
                                  reader_command="python x.py")
    assert bench.time_bare(block, tmp_path, {}) == 2.5 and len(tries) == 2
    assert "learn/x.md:3: the bare command failed once, run again (exitcode  : -6 (SIGABRT))" in capsys.readouterr().out
    tries.clear()

    def always_fails(command, cwd, env):
        tries.append(command)
        raise bench.BenchmarkFailed(f"try {len(tries)} failed")

    monkeypatch.setattr(bench, "timed", always_fails)
    assert bench.time_bare(block, tmp_path, {}) is None and len(tries) == 2   # twice: left out
    assert "learn/x.md:3: the bare command failed twice, left out of both sums (try 2 failed)" in capsys.readouterr().out
    # and a block left out counts in neither sum
    second = types.SimpleNamespace(**{**vars(block), "key": "j" * 12, "label": "learn/y.md:9"})
    monkeypatch.setattr(bench, "time_bare", lambda b, scratch, env: None if b is block else 4.0)
    assert bench.torchrun_overhead([block, second], {block.key: 100.0, second.key: 1.0}, {}, tmp_path) == (1.0, 4.0, 1)


@pytest.mark.unit
def test_the_content_floor_compares_only_a_build_served_wholly_from_the_render_memo(monkeypatch):
    """Row 3b's byte-for-byte comparison checks the memo only if the build it compares took every
    code block and every page from it; its log line says whether it did."""
    bench = load_benchmark(monkeypatch)
    line = "INFO    -  render memo: {} of 545 code blocks highlighted and {} of 50 pages indexed from render-memo.json"
    assert bench.served_from_memo(line.format(545, 50))
    assert not bench.served_from_memo(line.format(544, 50))
    assert not bench.served_from_memo(line.format(545, 49))
    assert not bench.served_from_memo("INFO    -  Documentation built in 2.10 seconds")   # memo off: no line
