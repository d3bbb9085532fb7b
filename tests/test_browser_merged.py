"""The merged "all ranks" tab in real Chromium: lines of two ranks and both their streams, in the
order the build captured them.

A mini site runs one torchrun block whose two ranks take turns, writing to stdout and stderr
alternately, with only a barrier between turns: all turns take a few milliseconds, so they fall
within one or two of the build's 20 ms reads of the log files, and only the ranks' own write stamps
can put them in order. The test compares what the browser shows in the merged tab with the
capture times the build stored for each line, and with the turn order of the program itself.
"""

from __future__ import annotations

import json

import pytest

from minisite import build, make_site
from dpguide.cache import RunCache
from dpguide.render import MERGED_TAB

pytestmark = pytest.mark.browser

TURNS = [(0, "stdout"), (1, "stderr"), (0, "stderr"), (1, "stdout"), (1, "stderr"), (0, "stdout")]

PAGE = f'''# Merged

```python launch="torchrun" nproc="2"
import sys

import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
for turn, (who, stream) in enumerate({TURNS!r}):
    if rank == who:
        print(f"turn {{turn}}: rank {{rank}} on {{stream}}", file=getattr(sys, stream), flush=True)
    dist.barrier()
dist.destroy_process_group()
```
'''


@pytest.fixture(scope="module")
def merged_site(tmp_path_factory):
    from sitecheck import serve

    root = make_site(tmp_path_factory.mktemp("merged"), {"index.md": PAGE})
    done = build(root)
    assert done.returncode == 0, done.stdout + done.stderr
    with serve(root / "site") as url:
        yield root, url


def test_the_merged_tab_shows_both_streams_of_both_ranks_in_capture_order(merged_site, page):
    root, url = merged_site
    [entry] = list((root / ".cache" / "dpguide" / "runs").glob("*.json"))
    result = RunCache(root / ".cache" / "dpguide").load(entry.stem)
    assert result is not None
    captured = [line for line in result.lines if line.text.startswith("turn ")]
    assert [line.t for line in captured] == sorted(line.t for line in captured)
    assert [(line.source, line.stream) for line in captured] == [(f"rank {r}", s) for r, s in TURNS]

    page.goto(url)
    page.get_by_text(MERGED_TAB, exact=True).click()
    panel = page.locator(".tabbed-set .tabbed-block").last
    shown = [text for text in panel.locator("code").first.inner_text().splitlines() if "turn " in text]
    assert shown == [f"[{line.source}] {line.text}" for line in captured]
    assert json.dumps(shown).count("stderr") == 3          # the error stream is in the tab, in its place
    assert "in the order they were written" in panel.inner_text()  # and the note says how it was ordered
