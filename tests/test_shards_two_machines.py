"""Two machines, simulated: two clones each run one shard into a cache of their own, the caches
merge, and the strict build from the merged cache runs no block and shows what a build on one
machine shows."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from minisite import build, make_site

pytestmark = pytest.mark.usefixtures("clean_process_table")

PAGES = {"index.md": "# Home\n\n```python\nprint('home block')\n```\n",
         "one.md": "# One\n\n```python\nprint(sum(range(10)))\n```\n\n```python\n--8<-- \"ranks.py\"\n```\n",
         "two.md": "# Two\n\n```python\nimport sys\nprint(sys.argv[0])\n```\n\n```python\nprint('two' * 3)\n```\n"}
#: two ranks that print in a fixed order (rank 1 after a barrier), so the merged tab is the same every run
SNIPPETS = {"ranks.py": "#| run: torchrun --standalone --nproc-per-node=2 ranks.py\n"
                        "import torch.distributed as dist\n\n"
                        "dist.init_process_group('gloo')\n"
                        "rank, world = dist.get_rank(), dist.get_world_size()\n"
                        "if rank == 0:\n    print('rank', rank, 'of', world)\n"
                        "dist.barrier()\n"
                        "if rank == 1:\n    print('rank', rank, 'of', world)\n"
                        "dist.barrier()\n"
                        "dist.destroy_process_group()\n"}
#: what differs between two runs of the same block: when it ran and how long it took
RUN_FACTS = re.compile(r"Real run, [^·<]*UTC|\d+(\.\d+)? s\b|exit code \d+ after \d+ s")


def dpguide(clone, *args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "dpguide.cli", *map(str, args)], cwd=clone,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"dpguide {' '.join(map(str, args))}:\n{done.stderr[-3000:]}"
    return done


def page(clone, name: str) -> str:
    html = (clone / "site" / name / "index.html").read_text() if name else (clone / "site" / "index.html").read_text()
    return RUN_FACTS.sub("<run facts>", html)


@pytest.mark.timeout(600)
def test_two_shards_merged_build_a_site_that_runs_nothing_and_equals_one_machines_build(tmp_path):
    first = make_site(tmp_path / "first", PAGES, SNIPPETS)
    second, merged, single = (tmp_path / name for name in ("second", "merged", "single"))
    for clone in (second, merged, single):
        shutil.copytree(first, clone)
    one = dpguide(first, "run-all", "--shard", "1/2", "--cache-dir", tmp_path / "cache-1")
    two = dpguide(second, "run-all", "--shard", "2/2", "--cache-dir", tmp_path / "cache-2")
    shares = [int(re.search(r"shard \d/2: (\d+) of 5 blocks", done.stderr)[1]) for done in (one, two)]
    # the torchrun block (guessed 12 s: there is no record here) alone, the four one-process blocks together
    assert sorted(shares) == [1, 4], (one.stderr, two.stderr)
    keys = [{p.name for p in (tmp_path / f"cache-{i}" / "runs").glob("*.json")} for i in (1, 2)]
    assert not keys[0] & keys[1] and len(keys[0] | keys[1]) == 5, "the shards are not disjoint and complete"

    report = dpguide(merged, "cache", "merge", tmp_path / "cache-1", tmp_path / "cache-2")
    assert "5 entries added" in report.stderr
    from_merged = build(merged)
    assert from_merged.returncode == 0, from_merged.stderr[-3000:]
    assert "[dpguide] nothing to run: 5 block(s) taken from the cache" in from_merged.stderr

    on_one_machine = build(single)
    assert on_one_machine.returncode == 0, on_one_machine.stderr[-3000:]
    assert "[dpguide] ran 5 block(s)" in on_one_machine.stderr
    assert "rank 1 of 2" in page(merged, "one") and "twotwotwo" in page(merged, "two")
    for name in ("", "one", "two"):
        assert page(merged, name) == page(single, name), f"page {name or 'index'} differs"
