"""Every code block of the real site is a pytest item (id: page:line), sharing the build's cache.

``pytest -k ddp.md`` checks one lesson. Blocks run in parallel once per session
(as the build does); each item then reports its own block's outcome.
"""

from __future__ import annotations

import pytest

from conftest import ROOT
from dpguide.engine import Engine, check_outcome
from dpguide.errors import BlockFailed

ENGINE = Engine(ROOT, log=lambda msg: None)
BLOCKS = ENGINE.collect()


@pytest.fixture(scope="session")
def site_results(request):
    selected = {item.callspec.params["block"].key for item in request.session.items
                if getattr(item, "callspec", None) and "block" in item.callspec.params}
    try:
        ENGINE.run([b for b in BLOCKS if b.key in selected])
    except BlockFailed:
        pass
    return ENGINE


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:{b.line}" for b in BLOCKS])
def test_block(block, site_results):
    if block.options.skip:
        pytest.skip(f"not run: {block.options.skip}")
    if not block.options.runs_on_cpu_build:
        pytest.skip("GPU-only: checked through its record (tests/test_gpu_records.py)")
    if block.key in site_results.failures:
        pytest.fail(site_results.failures[block.key], pytrace=False)
    result = site_results.result_for(block)
    assert result is not None
    check_outcome(block, result)
