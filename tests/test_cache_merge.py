"""`dpguide cache merge`: every seal checked, two results for one key refused, nothing half-merged."""

from __future__ import annotations

import json

import pytest

from dpguide.cache import RunCache
from dpguide.cache_merge import merge_caches
from dpguide.errors import GuideError
from unit_blocks import line, result_of

pytestmark = pytest.mark.unit


def result(text: str):
    return result_of([line("rank 0", text)], launch="python")


def cache_with(path, entries: dict[str, str], timings: dict[str, float] | None = None) -> RunCache:
    cache = RunCache(path)
    for key, text in entries.items():
        cache.store(key, result(text))
    if timings:
        cache.save_timings(timings)
    return cache


def test_two_shard_caches_merge_into_one_that_holds_every_entry(tmp_path):
    cache_with(tmp_path / "a", {"k1": "one\n", "k2": "two\n"}, {"p.md:1": 1.0})
    cache_with(tmp_path / "b", {"k3": "three\n"}, {"p.md:9": 2.0})
    report = merge_caches(tmp_path / "merged", [tmp_path / "a", tmp_path / "b"])
    merged = RunCache(tmp_path / "merged")
    assert [merged.load(k).lines[0].text for k in ("k1", "k2", "k3")] == ["one\n", "two\n", "three\n"]
    assert merged.timings() == {"p.md:1": 1.0, "p.md:9": 2.0}
    assert (report.added, report.already) == (3, 0)
    # a second merge of the same caches adds nothing: the same results are already there
    again = merge_caches(tmp_path / "merged", [tmp_path / "a", tmp_path / "b"])
    assert (again.added, again.already) == (0, 3)


def test_a_broken_seal_is_refused_with_its_file_and_nothing_is_written(tmp_path):
    source = cache_with(tmp_path / "a", {"k1": "one\n", "k2": "two\n"})
    entry = json.loads(source.path_for("k2").read_text())
    entry["result"]["duration"] = 0.01
    source.path_for("k2").write_text(json.dumps(entry))
    with pytest.raises(GuideError) as info:
        merge_caches(tmp_path / "merged", [tmp_path / "a"])
    assert f"{source.path_for('k2')}: digest does not match its content" in str(info.value)
    assert not (tmp_path / "merged" / "runs").exists() or not list((tmp_path / "merged" / "runs").iterdir())
    assert source.path_for("k2").exists()            # a source is read, never moved aside


def test_two_different_results_for_one_key_are_refused(tmp_path):
    cache_with(tmp_path / "a", {"k1": "one\n"})
    cache_with(tmp_path / "b", {"k1": "another run\n", "k2": "two\n"})
    with pytest.raises(GuideError, match="key k1 has another result in .*shards must be disjoint"):
        merge_caches(tmp_path / "merged", [tmp_path / "a", tmp_path / "b"])
    assert RunCache(tmp_path / "merged").load("k2") is None


def test_a_folder_that_is_not_a_cache_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(GuideError, match="not a run cache"):
        merge_caches(tmp_path / "merged", [tmp_path / "empty"])
