"""The capture of torchrun's per-rank log files: stamped writes merged in the order of writing."""

from __future__ import annotations

import time

import pytest

from dpguide.capture import LineSink, RankLogTailer

pytestmark = pytest.mark.unit


def rank_folder(root, local_rank: int):
    folder = root / "node0" / "run" / "attempt_0" / str(local_rank)
    folder.mkdir(parents=True)
    return folder


class Writer:
    """Writes a rank's two log files as a forked rank does: each write, then its stamp."""

    def __init__(self, folder, stamped: bool = True):
        self.folder, self.stamped = folder, stamped
        self.sizes = {"O": 0, "E": 0}
        for name in ("stdout.log", "stderr.log"):
            (folder / name).write_bytes(b"")

    def write(self, tag: str, text: str, t_ns: int, stamp: bool = True) -> None:
        name = {"O": "stdout.log", "E": "stderr.log"}[tag]
        data = text.encode()
        with open(self.folder / name, "ab") as log:
            log.write(data)
        start = self.sizes[tag]
        self.sizes[tag] += len(data)
        if self.stamped and stamp:
            with open(self.folder / "stamps.log", "a") as stamps:
                stamps.write(f"{tag} {t_ns} {start} {start + len(data)}\n")


def read_all(tmp_path) -> tuple[list, RankLogTailer]:
    sink = LineSink()
    tailer = RankLogTailer([tmp_path / "node0"], sink, nproc=2)
    tailer._poll(final=True)
    return sink.finished_lines({}), tailer


def test_stamped_writes_of_two_ranks_and_both_streams_merge_in_the_order_written(tmp_path):
    base = time.monotonic_ns()
    rank0, rank1 = Writer(rank_folder(tmp_path, 0)), Writer(rank_folder(tmp_path, 1))
    # all of it lands in one read of the files: only the stamps know the order
    rank1.write("E", "b\n", base + 2)
    rank0.write("O", "a", base + 1)          # one line in two writes: its time is the write that ends it
    rank0.write("O", "\n", base + 3)
    rank0.write("E", "c\n", base + 4)
    rank1.write("O", "d\n", base + 5)
    lines, tailer = read_all(tmp_path)
    assert [(line.source, line.stream, line.text) for line in lines] == [
        ("rank 1", "stderr", "b"), ("rank 0", "stdout", "a"), ("rank 0", "stderr", "c"), ("rank 1", "stdout", "d")]
    assert tailer.stamped


def test_a_line_written_from_c_follows_the_stamped_line_before_it_in_its_stream(tmp_path):
    base = time.monotonic_ns()
    rank0 = Writer(rank_folder(tmp_path, 0))
    rank0.write("E", "warning from python\n", base + 1)
    rank0.write("O", "printed\n", base + 2)
    rank0.write("E", "terminate called without an active exception\n", 0, stamp=False)
    lines, _ = read_all(tmp_path)
    texts = [line.text for line in lines]
    assert texts.index("warning from python") < texts.index("terminate called without an active exception")
    assert len(texts) == 3


def test_ranks_that_stamp_nothing_are_read_in_file_order_and_say_so(tmp_path):
    rank0 = Writer(rank_folder(tmp_path, 0), stamped=False)
    rank0.write("O", "one\n", 0)
    rank0.write("O", "two\n", 0)
    lines, tailer = read_all(tmp_path)
    assert [line.text for line in lines] == ["one", "two"]
    assert not tailer.stamped


def test_a_line_whose_stamp_is_not_written_yet_waits_one_read(tmp_path):
    base = time.monotonic_ns()
    rank0 = Writer(rank_folder(tmp_path, 0))
    rank0.write("E", "first\n", base + 1)
    rank0.write("O", "second\n", base + 2, stamp=False)   # data on disk, its stamp not yet
    sink = LineSink()
    tailer = RankLogTailer([tmp_path / "node0"], sink, nproc=1)
    tailer._poll()
    assert [line.text for line in sink.lines] == ["first"]
    with open(rank0.folder / "stamps.log", "a") as stamps:
        stamps.write(f"O {base + 2} 0 7\n")
    tailer._poll()
    assert [line.text for line in sink.finished_lines({})] == ["first", "second"]
