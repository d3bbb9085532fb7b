"""Every code block of the real site is a pytest item (id: page:line), sharing the build's cache.

``pytest -k ddp.md`` checks one lesson. Blocks run in parallel once per session
(as the build does); each item then reports its own block's outcome.
"""

from __future__ import annotations

import pytest

from conftest import ROOT, SITE_BUILD
from dpguide.engine import Engine, check_outcome
from dpguide.errors import BlockFailed
from dpguide.gpu_records import GpuRecords
from dpguide.site import gpu_section

ENGINE = Engine(ROOT, log=lambda msg: None)
BLOCKS = ENGINE.collect()
RECORDS = GpuRecords(ROOT / "records" / "gpu")


@pytest.fixture(scope="session")
def site_results(request):
    SITE_BUILD.wait_if_started()
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
        check_gpu_only(block)
        return
    if block.key in site_results.failures:
        pytest.fail(site_results.failures[block.key], pytrace=False)
    result = site_results.result_for(block)
    assert result is not None
    check_outcome(block, result)


def check_gpu_only(block):
    """A GPU-only block on a CPU machine: its record is valid and current, or it says plainly it is not recorded."""
    state = RECORDS.state(block)
    assert state.status in ("recorded", "unrecorded"), \
        f"{block.label}: GPU record {state.path} is {state.status} ({state.reason})"
    shown = "\n".join(gpu_section(block, state))
    if state.status == "unrecorded":
        assert "GPU output not yet recorded" in shown
        assert f"dpguide record --only {block.identity}" in shown
    else:
        assert state.provenance_line() in shown
