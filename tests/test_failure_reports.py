"""What a failing block's report says (engine.check_outcome): the first failing process's own error
is in it even when other processes printed more after it."""

from __future__ import annotations

import pytest

from dpguide.engine import check_outcome
from dpguide.errors import BlockFailed
from unit_blocks import block_of, line, result_of

pytestmark = pytest.mark.unit

ROOT_CAUSE_RANK_0 = ["Root Cause (first observed failure):", "[0]:", "  rank      : 0 (local_rank: 0)",
                     "  exitcode  : 1 (pid: 9)"]


def report(result) -> str:
    block = block_of('launch="torchrun" nproc="2"', "print('x')")
    with pytest.raises(BlockFailed) as info:
        check_outcome(block, result)
    return str(info.value)


def test_the_report_shows_the_first_failing_rank_s_error_beyond_the_merged_tail():
    lines = [line("rank 0", "the real reason rank 0 stopped", "stderr")]
    lines += [line("rank 1", f"rank 1 step {i}") for i in range(30)]  # more than the merged tail holds
    lines += [line("torchrun", text, "stderr") for text in ROOT_CAUSE_RANK_0]
    text = report(result_of(lines, returncode=1))
    assert "rank 0's own last stderr lines:\n    the real reason rank 0 stopped" in text


def test_the_report_says_when_the_failing_rank_printed_nothing_on_stderr():
    lines = [line("rank 0", "a print", "stdout")] + [line("torchrun", t, "stderr") for t in ROOT_CAUSE_RANK_0]
    assert "rank 0 printed nothing on stderr" in report(result_of(lines, returncode=1))


def test_the_report_picks_the_failing_rank_s_last_attempt():
    lines = [line("rank 0", "first attempt's error", "stderr"),
             line("rank 0 (restart 1)", "second attempt's error", "stderr")]
    lines += [line("rank 1 (restart 1)", f"rank 1 step {i}") for i in range(30)]
    lines += [line("torchrun", text, "stderr") for text in ROOT_CAUSE_RANK_0]
    assert "rank 0 (restart 1)'s own last stderr lines:\n    second attempt's error" in report(
        result_of(lines, returncode=1))


def test_the_report_does_not_repeat_an_error_the_merged_tail_already_shows():
    lines = [line("rank 0", "rank 0's error", "stderr")] + [line("torchrun", t, "stderr") for t in ROOT_CAUSE_RANK_0]
    text = report(result_of(lines, returncode=1))
    assert "own last stderr lines" not in text and "rank 0 printed nothing" not in text
