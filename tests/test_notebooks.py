"""Notebook lessons: executed in a real kernel once per change, cached, failures named by cell."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from dpguide.environment import block_environment, fingerprint
from dpguide.errors import BlockFailed
from dpguide.notebooks import NotebookRunner

pytestmark = pytest.mark.usefixtures("clean_process_table")


def write(path, *cells):
    nbformat.write(new_notebook(cells=list(cells), metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                            "display_name": "Python 3"}}), path)
    return path


def runner(tmp_path, log):
    return NotebookRunner(tmp_path / "cache", tmp_path / "scratch", block_environment(), fingerprint(), log=log.append)


def outputs(path) -> list[str]:
    nb = json.loads(path.read_text())
    return ["".join(o.get("text", "")) or o.get("ename", "") for c in nb["cells"] if c["cell_type"] == "code"
            for o in c["outputs"]]


def test_executed_once_cached_then_re_executed_after_an_edit(tmp_path):
    log = []
    source = write(tmp_path / "lesson.ipynb", new_markdown_cell("# T"), new_code_cell("print(6 * 7)"),
                   new_code_cell("raise ValueError('shown on purpose')", metadata={"tags": ["raises-exception"]}))
    first = runner(tmp_path, log).executed("lesson.ipynb", source)
    assert outputs(first) == ["42\n", "ValueError"]
    assert runner(tmp_path, log).executed("lesson.ipynb", source) == first
    assert sum("executing notebook" in m for m in log) == 1
    write(source, new_markdown_cell("# T"), new_code_cell("print(6 * 8)"),
          new_code_cell("raise ValueError('shown on purpose')", metadata={"tags": ["raises-exception"]}))
    assert outputs(runner(tmp_path, log).executed("lesson.ipynb", source))[0] == "48\n"
    assert sum("executing notebook" in m for m in log) == 2


def test_a_failing_cell_is_named_and_an_untrue_raises_tag_is_refused(tmp_path):
    source = write(tmp_path / "bad.ipynb", new_code_cell("x = 1"), new_code_cell("1 / 0"))
    with pytest.raises(BlockFailed) as info:
        runner(tmp_path, []).executed("learn/bad.ipynb", source)
    assert str(info.value).startswith("learn/bad.ipynb: cell 1: a notebook cell failed")
    assert "ZeroDivisionError" in str(info.value)
    source = write(tmp_path / "tag.ipynb", new_code_cell("print('fine')", metadata={"tags": ["raises-exception"]}))
    with pytest.raises(BlockFailed, match="cell 0: tagged raises-exception but it did not raise"):
        runner(tmp_path, []).executed("learn/tag.ipynb", source)


def test_shown_outputs_name_no_path_of_the_build_machine(tmp_path):
    # a reader's folders differ: the scratch folder is dropped, installed packages read <site-packages>
    source = write(tmp_path / "paths.ipynb",
                   new_code_cell("import os, sysconfig\nprint(os.getcwd())\nprint(os.path.abspath('f.py'))\n"
                                 "print(sysconfig.get_paths()['purelib'] + '/torch/x.py')\n"
                                 "import multiprocessing.spawn\nprint(multiprocessing.spawn.__file__)"),
                   new_code_cell("import os\nraise OSError(os.path.abspath('g.py'))",
                                 metadata={"tags": ["raises-exception"]}))
    path = runner(tmp_path, []).executed("learn/paths.ipynb", source)
    executed = json.loads(path.read_text())
    shown = json.dumps([c["outputs"] for c in executed["cells"]])
    assert outputs(path)[0] == ".\nf.py\n<site-packages>/torch/x.py\n<stdlib>/multiprocessing/spawn.py\n"
    assert executed["cells"][1]["outputs"][0]["evalue"] == "g.py"
    assert str(tmp_path) not in shown and "site-packages/" not in shown


@pytest.mark.unit
def test_rewrite_outputs_replaces_the_longest_path_first_in_every_shown_text():
    from dpguide.notebooks import rewrite_outputs

    nb = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "stream", "text": "/s/w/a.py /s/w\n"},
        {"output_type": "error", "evalue": "/v/lib/x", "traceback": ["at /v/lib/x", "/v/bin"]},
        {"output_type": "execute_result", "data": {"text/plain": ["'/s/w/b'"], "image/png": "/s/w"}}]}]}
    rewrite_outputs(nb, {"/s/w/": "", "/s/w": ".", "/v/lib": "<site-packages>", "/v/": "<venv>/"})
    out = nb["cells"][0]["outputs"]
    assert out[0]["text"] == "a.py .\n"
    assert (out[1]["evalue"], out[1]["traceback"]) == ("<site-packages>/x", ["at <site-packages>/x", "<venv>/bin"])
    assert out[2]["data"] == {"text/plain": ["'b'"], "image/png": "/s/w"}


def test_a_tampered_cached_copy_is_executed_again(tmp_path):
    log = []
    source = write(tmp_path / "n.ipynb", new_code_cell("print('real')"))
    cached = runner(tmp_path, log).executed("n.ipynb", source)
    cached.write_text(cached.read_text().replace("real\\n", "fake\\n"))
    again = runner(tmp_path, log).executed("n.ipynb", source)
    assert outputs(again) == ["real\n"]
    assert any("is invalid" in m for m in log)


def test_two_builds_executing_the_same_notebook_at_once_do_not_share_a_folder(tmp_path):
    # the same notebook, hence the same key, executed by two runners (two builds) at the same time:
    # each must work in a folder of its own, or one removes the file the other just wrote
    import threading

    source = write(tmp_path / "same.ipynb", new_code_cell("open('mine.txt', 'w').write('x')"),
                   new_code_cell("import time, os\ntime.sleep(2)\nprint(os.path.exists('mine.txt'))"))
    found, errors = [], []

    def build(n):
        try:
            own_cache = NotebookRunner(tmp_path / f"cache{n}", tmp_path / "scratch", block_environment(),
                                       fingerprint(), log=lambda message: None)
            found.append(outputs(own_cache.executed("same.ipynb", source))[-1])
        except BlockFailed as exc:
            errors.append(str(exc))

    builds = [threading.Thread(target=build, args=(n,)) for n in range(2)]
    for thread in builds:
        thread.start()
    for thread in builds:
        thread.join(120)
    assert errors == [] and found == ["True\n", "True\n"]
    assert not list((tmp_path / "scratch").glob("nb-*"))   # each run's folder is removed after it


def test_the_kernel_takes_no_tcp_port_so_two_builds_cannot_race_for_one(tmp_path):
    # with TCP, jupyter_client picks five ports that are free when it looks, and the kernel binds them
    # a moment later; another build's kernel can take one in between ("Address already in use", the
    # kernel dies: seen in a fresh-clone run on 5 December 2026). Unix sockets in a folder of the
    # run's own cannot clash. The kernel reads how it is reached from its own connection file.
    import tempfile

    source = write(tmp_path / "ports.ipynb", new_code_cell(
        "import json, ipykernel.connect\ninfo = json.load(open(ipykernel.connect.get_connection_file()))\n"
        "print(info['transport'], info['ip'].startswith(__import__('tempfile').gettempdir()))"))
    before = set(Path(tempfile.gettempdir()).glob("dpguide-kernel-*"))
    assert outputs(runner(tmp_path, []).executed("ports.ipynb", source)) == ["ipc True\n"]
    assert set(Path(tempfile.gettempdir()).glob("dpguide-kernel-*")) <= before    # its socket folder is gone


KILLED_RUN = """
import sys
from pathlib import Path
from dpguide.environment import block_environment, fingerprint
from dpguide.notebooks import NotebookRunner
root = Path(sys.argv[1])
NotebookRunner(root / "cache", root / "scratch", block_environment(), fingerprint()).executed("slow.ipynb", root / "slow.ipynb")
"""


def test_a_build_killed_in_a_notebook_leaves_no_cell_process_and_no_socket_folder(tmp_path):
    # the kernel carries the build's marker like every block process: the guardian ends what a cell
    # started (here a child that sleeps) and removes the kernel's socket folder
    import os
    import signal
    import subprocess
    import sys
    import tempfile

    import psutil

    from conftest import wait_until

    pidfile = tmp_path / "child.pid"
    write(tmp_path / "slow.ipynb", new_code_cell(
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(300)"))
    build = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    child = None
    try:
        assert wait_until(lambda: pidfile.exists() and pidfile.read_text(), timeout=120), "the cell never ran"
        child = psutil.Process(int(pidfile.read_text()))
        assert list(Path(tempfile.gettempdir()).glob(f"dpguide-kernel-p{build.pid}-*"))
        build.send_signal(signal.SIGKILL)
        build.wait(10)
        assert wait_until(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE, timeout=10), \
            "the cell's child outlived the killed build"
        assert wait_until(lambda: not list(Path(tempfile.gettempdir()).glob(f"dpguide-kernel-p{build.pid}-*")),
                          timeout=10), "the kernel's socket folder was left"
    finally:
        build.kill()
        if child is not None and child.is_running():
            os.kill(child.pid, signal.SIGKILL)


@pytest.mark.unit
def test_the_page_hook_leaves_a_notebook_page_to_mkdocs_jupyter(monkeypatch):
    """mkdocs-jupyter renders a notebook page from its executed file and ignores the page text, so
    the hook does not pass a notebook's JSON through the engine's Markdown renderer (wasted work,
    and fences inside JSON strings are not the page's blocks); a Markdown page still goes through it."""
    import importlib.util
    import types

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("execute_hook_under_test", ROOT / "hooks" / "execute.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    rendered = []
    monkeypatch.setattr(hook, "_build", types.SimpleNamespace(
        render_page=lambda uri, markdown, link_for: rendered.append(uri) or markdown + "\nrendered"))
    monkeypatch.setattr(hook, "_link_resolver", lambda page, files: None)

    def page(uri):
        return types.SimpleNamespace(file=types.SimpleNamespace(src_uri=uri))

    assert hook.on_page_markdown('{"cells": []}', page("learn/lesson.ipynb"), {}, None) == '{"cells": []}'
    assert hook.on_page_markdown("# Lesson", page("learn/lesson.md"), {}, None) == "# Lesson\nrendered"
    assert rendered == ["learn/lesson.md"]
