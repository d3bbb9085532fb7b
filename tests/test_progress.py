"""The build's progress display: plain lines with every count in a log, one updating bar on a terminal."""

import io

import pytest

from dpguide.progress import BuildProgress

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)


def test_plain_mode_writes_one_line_per_block_with_every_count():
    lines = []
    progress = BuildProgress(3, cached=5, log=lines.append, tty=False)
    progress.block_started()
    progress.block_started()
    progress.block_finished("a.md:1", 1.25, "ok")
    progress.block_finished("a.md:9", 0.5, "FAILED")
    assert len(lines) == 2
    assert lines[0].startswith("[dpguide] 1/3 run, 1 running, 5 cached, 0 failed,") and lines[0].endswith("a.md:1")
    assert "2/3 run, 0 running, 5 cached, 1 failed," in lines[1] and "FAILED  a.md:9" in lines[1]


def test_terminal_mode_draws_one_bar_and_keeps_failures_above_it():
    stream, lines = io.StringIO(), []
    progress = BuildProgress(2, cached=1, log=lines.append, stream=stream, tty=True)
    progress.block_started()
    assert "0/2" in stream.getvalue() and "1 running" in stream.getvalue()     # redrawn at once
    progress.block_finished("p.md:3", 0.1, "ok")
    assert "1/2" in stream.getvalue()
    progress.block_started()
    progress.block_finished("p.md:7", 0.1, "FAILED")
    progress.close()
    shown = stream.getvalue()
    assert lines == []                        # no per-block lines: the bar replaces them
    assert "[dpguide] FAILED p.md:7" in shown
    assert "2/2" in shown and "1 cached, 1 failed" in shown and "\r" in shown


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_without_a_stream_it_reports_to_stderr_and_asks_it_whether_it_is_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", FakeTerminal())
    progress = BuildProgress(1, cached=0, log=[].append)
    assert progress.tty and progress._bar is not None
    progress.close()
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert not BuildProgress(1, cached=0, log=[].append).tty


def test_counts_start_at_zero_seconds_and_messages_reach_the_log_in_plain_mode():
    lines = []
    progress = BuildProgress(4, cached=2, log=lines.append, tty=False)
    assert progress.counts() == "0/4 run, 0 running, 2 cached, 0 failed, 0s"
    progress.say("[dpguide] RETRY x")
    progress.close()
    progress.close()                                  # closing twice, or without a bar, is harmless
    assert lines == ["[dpguide] RETRY x"]


def test_a_closed_bar_can_be_closed_again():
    progress = BuildProgress(1, cached=0, log=[].append, stream=FakeTerminal(), tty=True)
    progress.close()
    progress.close()
    assert progress._bar is None
