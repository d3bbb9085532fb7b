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


#: what torchrun printed in a CI build where rank 1 could not connect to rank 0 while creating the group
#: (the text of that report; rank 0's line here is what a rank killed by a signal gets)
UNCONNECTED = ["Failures:", "[1]:", "  rank      : 0 (local_rank: 0)", "  exitcode  : -9 (pid: 8)",
               "Root Cause (first observed failure):", "[0]:", "  rank      : 1 (local_rank: 1)",
               "  exitcode  : 1 (pid: 9)"]
CONNECT_TRACEBACK = ["Traceback (most recent call last):",
                     '  File "<site-packages>/torch/distributed/distributed_c10d.py", line 2169, in '
                     "_new_process_group_helper",
                     "RuntimeError: Gloo connectFullMesh failed with [pair.cc:553] Connection closed by peer "
                     "[127.0.0.1]:35977. This is typically caused by a remote worker crashing."]


def unconnected(rank_0_lines=()) -> list:
    lines = [line("rank 1", text, "stderr") for text in CONNECT_TRACEBACK]
    lines += [line("rank 0", text, "stderr") for text in rank_0_lines]
    lines += [line("torchrun", f"torchrun line {i}", "stderr") for i in range(20)]   # past the merged tail
    return lines + [line("torchrun", text, "stderr") for text in UNCONNECTED]


def test_the_report_shows_every_other_failed_rank_and_how_it_ended():
    text = report(result_of(unconnected(), returncode=1))
    assert "rank 1's own last stderr lines:" in text and "Connection closed by peer" in text
    assert "rank 0 also failed, exit code -9 (SIGKILL), and printed nothing on stderr" in text
    text = report(result_of(unconnected(["rank 0's own reason"]), returncode=1))
    assert "rank 0 also failed, exit code -9 (SIGKILL); its own last stderr lines:\n    rank 0's own reason" in text


def test_a_group_that_could_not_connect_is_a_known_flake_only_if_nothing_else_raised():
    from dpguide.engine import _known_flake

    result = result_of(unconnected(), returncode=1)
    assert result.connect_flake_sources() == ["rank 1"]
    assert "could not connect to its peers" in _known_flake(result)
    # a rank that raised first is the program's own failure, whatever its peers say after it
    raised = result_of(unconnected(["Traceback (most recent call last):", "ValueError: bad batch"]),
                       returncode=1)
    assert raised.connect_flake_sources() == [] and _known_flake(raised) is None
    assert result_of(unconnected(), returncode=0).connect_flake_sources() == []


def note(rank: int, threads: int, teardown: bool = True, group_alive: bool = False, attempt: int = 0) -> dict:
    return {"rank": rank, "attempt": attempt, "gloo_threads": ["pt_gloo_runloop"] * threads,
            "group_alive": group_alive, "teardown": teardown}


def test_the_live_group_report_counts_every_process_that_tears_down_and_only_those():
    notes = [note(-1, 2, group_alive=True), note(-1, 2, group_alive=True),   # two mp.spawn children
             note(0, 3), note(1, 3, teardown=False), note(2, 0)]              # rank 1 skipped the teardown
    text = report(result_of([line("rank 0", "right answer")], exit_notes=notes))
    assert "still running: rank 0 (3 threads), 2 processes (2 threads each)" in text
    assert "never called dist.destroy_process_group() (2 processes)" in text
    assert "rank 1" not in text.split("last output")[0]


def test_a_live_group_only_in_processes_that_skip_the_teardown_is_not_reported():
    result = result_of([line("rank 0", "right answer")], exit_notes=[note(0, 3, teardown=False)])
    check_outcome(block_of('launch="torchrun" nproc="2"', "print('x')"), result)


#: rank 0's stderr in a cold build where its C++ log line landed inside its own traceback (the merged
#: stream places an unstamped C++ write after the line before it)
INTERLEAVED = ["Traceback (most recent call last):",
               '  File "<site-packages>/torch/distributed/distributed_c10d.py", line 2169, in _new_process_group_helper',
               "    backend_class = ProcessGroupGloo(",
               "[E1205 17:59:54.296826133 ProcessGroupGloo.cpp:67] Gloo connectFullMesh failed with "
               "[pair.cc:553] Connection closed by peer [127.0.0.1]:13537.",
               "                    ^^^^^^^^^^^^^^^^^",
               "RuntimeError: Gloo connectFullMesh failed with [pair.cc:553] Connection closed by peer "
               "[127.0.0.1]:13537."]


def test_a_cpp_log_line_inside_a_traceback_does_not_hide_the_exception():
    result = result_of([line("rank 0", text, "stderr") for text in INTERLEAVED], returncode=1)
    [(source, kind, message)] = result.exceptions()
    assert (source, kind) == ("rank 0", "RuntimeError") and message.startswith("Gloo connectFullMesh failed")
    assert result.connect_flake_sources() == ["rank 0"]


def test_a_flake_is_retried_when_the_run_did_not_end_as_the_page_says_or_any_ending_is_accepted():
    from dpguide.engine import _needs_retry

    flaky = result_of(unconnected(), returncode=1)
    expects_value_error = block_of('launch="torchrun" nproc="2" expect="fail" raises="ValueError"', "print('x')")
    assert _needs_retry(expects_value_error, flaky)          # it raised gloo's error, not its lesson's
    expects_any_failure = block_of('launch="torchrun" nproc="2" expect="fail"', "print('x')")
    assert not _needs_retry(expects_any_failure, flaky)      # failing was the lesson: the run stands
    from dataclasses import replace

    bank_item = replace(expects_any_failure, options=replace(expects_any_failure.options, outcome_any=True))
    assert _needs_retry(bank_item, flaky)                    # a quiz item's page would show the flake as its error
