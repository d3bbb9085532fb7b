"""The contributor command line: run one block or one page as the build does, run all with a table."""

from __future__ import annotations

import subprocess
import sys

import pytest

from minisite import make_site

pytestmark = pytest.mark.usefixtures("clean_process_table")

PAGES = {"index.md": """
    # P

    ```python
    print("first block")
    ```

    ```python expect="fail" raises="KeyError"
    {}["missing"]
    ```
"""}


def dpguide(site, *args):
    return subprocess.run([sys.executable, "-m", "dpguide.cli", *args], cwd=site, capture_output=True, text=True,
                          timeout=300)


def test_run_one_block_by_page_and_line_prints_its_output(tmp_path):
    site = make_site(tmp_path, PAGES)
    done = dpguide(site, "run", "docs/index.md:3")
    assert done.returncode == 0, done.stderr
    assert "=== index.md:3" in done.stdout and "first block" in done.stdout
    assert "index.md:7" not in done.stdout


def test_a_page_can_be_named_from_the_docs_folder_and_a_wrong_one_is_a_clear_error(tmp_path):
    site = make_site(tmp_path, PAGES)
    done = dpguide(site, "run", "index.md:3")                  # as the build log writes it
    assert done.returncode == 0, done.stderr
    assert "first block" in done.stdout
    wrong = dpguide(site, "run", "learn/nope.md:3")
    assert wrong.returncode != 0
    assert "learn/nope.md: no such page" in wrong.stderr and "Traceback" not in wrong.stderr


def test_run_a_page_reports_the_expected_failure_truthfully(tmp_path):
    site = make_site(tmp_path, PAGES)
    done = dpguide(site, "run", "docs/index.md")
    assert done.returncode == 0, done.stderr
    assert "KeyError: 'missing'" in done.stdout and "python raised KeyError" in done.stdout


def test_run_all_prints_a_summary_table_and_uses_the_cache(tmp_path):
    site = make_site(tmp_path, PAGES)
    first = dpguide(site, "run-all")
    assert first.returncode == 0, first.stderr
    header = first.stdout.splitlines()[0].split()
    assert header == ["block", "mode", "ranks", "seconds", "source", "status"]
    assert first.stdout.count(" run ") == 2
    second = dpguide(site, "run-all")
    assert second.stdout.count(" cached ") == 2


def test_a_failing_block_makes_run_exit_non_zero(tmp_path):
    site = make_site(tmp_path, {"index.md": "```python\nraise SystemExit(4)\n```\n"})
    done = dpguide(site, "run", "docs/index.md")
    assert done.returncode == 1 and "exit status 4" in done.stderr
