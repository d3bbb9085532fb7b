"""Shared fixtures: a throwaway project tree, an engine on a private cache, and a process-table check."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import psutil
import pytest

import sys

from background_build import BackgroundCommand, BackgroundSiteBuild
from dpguide.engine import Engine
from dpguide.processes import MARKER

BUILD_MARKER = "DPGUIDE_BUILD"  # spelled out, so these helpers also run against an engine without it

ROOT = Path(__file__).resolve().parents[1]


def leftover_processes() -> list[psutil.Process]:
    """Block processes this test run left behind: ours (descendants of this process) or orphaned ones.

    A zombie does not count; nor does a live block of another build on the same machine (its parent
    is that build, not us and not init), nor anything the site build this session runs in the
    background started (``SITE_BUILD``: its descendants, which include the builds its own lessons
    run, and any process carrying its build token).
    """
    import os

    background, token = SITE_BUILD.descendants() | QUICK_BENCHMARK.descendants(), SITE_BUILD.token_prefix()
    mine = {p.pid for p in psutil.Process(os.getpid()).children(recursive=True)} - background
    found = []
    for proc in psutil.process_iter(["pid", "ppid"]):
        try:
            environ = proc.environ()
            if MARKER in environ and proc.status() != psutil.STATUS_ZOMBIE and \
                    (proc.pid in mine or proc.ppid() == 1) and \
                    not (token and environ.get(BUILD_MARKER, "").startswith(token)):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def processes_of_build(pid: int) -> list[psutil.Process]:
    """Live processes started by the build process ``pid`` (they carry its DPGUIDE_BUILD token)."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get(BUILD_MARKER, "").startswith(f"{pid}-") and \
                    proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def wait_until(condition, timeout: float, interval: float = 0.05):
    """Poll ``condition`` until it returns something true (returned) or ``timeout`` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


@pytest.fixture
def clean_process_table():
    """Fails the test if any block process is still alive after it."""
    yield
    deadline = time.monotonic() + 3
    while leftover_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = leftover_processes()
    assert not alive, f"processes left alive: {[(p.pid, p.cmdline()) for p in alive]}"


#: the project's site, built beside the tests (a cold build takes about 10 minutes here)
SITE_BUILD = BackgroundSiteBuild(ROOT, limit_s=1800)
#: `build_speed.py --quick`, run beside the tests for test_benchmark.py (about 4 minutes here)
QUICK_BENCHMARK = BackgroundCommand([sys.executable, str(ROOT / "benchmarks" / "build_speed.py"), "--quick"],
                                    ROOT, limit_s=1200, env={"NO_MKDOCS_2_WARNING": "1"})


class Project:
    """A minimal docs tree written into a temporary directory."""

    def __init__(self, root: Path):
        self.root = root
        self.docs = root / "docs"
        self.snippets = self.docs / "snippets"
        self.snippets.mkdir(parents=True)

    def page(self, name: str, text: str) -> Path:
        path = self.docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def snippet(self, name: str, text: str) -> Path:
        path = self.snippets / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def engine(self, **kwargs) -> Engine:
        kwargs.setdefault("log", lambda msg: None)
        return Engine(self.root, cache_dir=self.root / "cache", scratch_root=self.root / "scratch", **kwargs)


#: fixtures that run or build the whole site once per session; the first test using one pays for it
WHOLE_SITE_FIXTURES = {"built_site", "site_url", "site_results"}
BUILT_SITE_FIXTURES = {"built_site", "site_url"}       # these wait for SITE_BUILD
WHOLE_SITE_TIMEOUT_S = 2400


def pytest_report_header(config):
    """Say first, before the slow suites, how to run only the fast ones."""
    return ["while writing: `make test-fast` runs the pure engine and authoring tests (seconds; no process "
            "started), `make test-engine` every engine test without the site build (minutes)"]


def pytest_collection_modifyitems(items):
    for item in items:
        whole_site = bool(WHOLE_SITE_FIXTURES & set(getattr(item, "fixturenames", ())))
        if whole_site and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(WHOLE_SITE_TIMEOUT_S))
        if whole_site:      # `make test-engine` leaves these out: they build or run the whole site
            item.add_marker(pytest.mark.site)
        if "browser" in Path(str(item.fspath)).name:
            item.add_marker(pytest.mark.browser)


def pytest_collection_finish(session):
    """Start the site build and the quick benchmark now if a selected test needs them, and run the
    tests that wait for them last.

    The cold build of the whole site is the suite's longest step, and most other tests leave one of
    the two cores idle (they wait on processes and timeouts). So the build starts in the background
    as soon as the selection is known, at a lower priority (nice 10) so the tests in front are not
    slowed, and the whole-site tests, which wait for it, move to the end (in their own order). The
    quick benchmark (a few minutes of builds of a site copy) starts beside it the same way; its
    test moves to just before the whole-site tests.
    """
    if session.config.option.collectonly:
        return
    benchmark = [item for item in session.items if "quick_benchmark" in getattr(item, "fixturenames", ())]
    if benchmark:
        QUICK_BENCHMARK.start()
    whole_site = [item for item in session.items if item.get_closest_marker("site")]
    builds = any(BUILT_SITE_FIXTURES & set(item.fixturenames) for item in whole_site)
    last = benchmark + (whole_site if builds else [])
    session.items[:] = [item for item in session.items if item not in last] + last
    if builds:
        SITE_BUILD.start()


def pytest_unconfigure(config):
    SITE_BUILD.stop()
    QUICK_BENCHMARK.stop()


def pytest_terminal_summary(terminalreporter):
    """Say how many pages a whole-site browser check took as passed because nothing it sees changed."""
    from passed_pages import REUSED

    for check, (reused, total) in sorted(REUSED.items()):
        terminalreporter.write_line(f"browser check {check}: {total - reused} of {total} pages checked, {reused} "
                                    "unchanged since they passed (DPGUIDE_RECHECK_PAGES=1 checks every page)")


@pytest.fixture(autouse=True)
def fresh_quiz_parsing():
    """parse_page is memoised; each test parses afresh, so a test never sees another test's (or, under
    mutation testing, the unmutated code's) cached result."""
    from dpguide.quiz import parse_page

    parse_page.cache_clear()


@pytest.fixture(autouse=True)
def unit_tests_start_no_process(request, monkeypatch):
    """A test marked `unit` (the `make test-fast` subset) fails if it forks or starts a process."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(*args, **kwargs):
        raise AssertionError("a unit test started a process: drop its `unit` mark or keep it in memory")

    import os
    import subprocess

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path / "project")


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The project's real site, built once per test session with `mkdocs build --strict`.

    The build started in the background when collection ended (``SITE_BUILD``); this waits for it.
    """
    return SITE_BUILD.wait()


@pytest.fixture(scope="session")
def quick_benchmark() -> tuple[int, str]:
    """`build_speed.py --quick`'s exit status and output; it started beside the tests when collection ended."""
    return QUICK_BENCHMARK.wait()


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served over HTTP on a free localhost port."""
    from sitecheck import serve

    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from sitecheck import launch_chromium

    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture
def page(browser):
    """A fresh browser page whose console errors and off-site requests are collected."""
    from sitecheck import watched_page

    context = browser.new_context()
    page = watched_page(context)
    yield page
    context.close()
