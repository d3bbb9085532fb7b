"""A whole-site browser check skips only pages whose every input is unchanged since they passed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import passed_pages
from passed_pages import PassedPages

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

URL = "http://127.0.0.1:1/"


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setattr(passed_pages, "RECORDS", tmp_path / "records")
    monkeypatch.setattr(passed_pages, "REUSED", {})        # the run's summary lists the site's checks only
    monkeypatch.delenv("DPGUIDE_RECHECK_PAGES", raising=False)
    root = tmp_path / "site"
    for page in ("", "learn/a/", "learn/b/"):
        (root / page).mkdir(parents=True, exist_ok=True)
        (root / page / "index.html").write_text(f"<p>{page}</p>")
    (root / "assets").mkdir()
    (root / "assets" / "style.css").write_text("p {}")
    (tmp_path / "check.py").write_text("def check(): ...")
    return root


def pages(site: Path, check: str = "audit") -> PassedPages:
    return PassedPages(check, site, URL, [site.parent / "check.py"], sys.executable)


URLS = [URL, URL + "learn/a/", URL + "learn/b/"]


def test_only_pages_that_passed_as_they_are_now_are_skipped(site):
    assert pages(site).to_check(URLS) == URLS                      # nothing passed yet
    pages(site).record(URLS[:2])                                    # learn/b/ had a problem: not recorded
    assert pages(site).to_check(URLS) == [URL + "learn/b/"]
    assert passed_pages.REUSED == {"audit": (2, 3)}
    (site / "learn" / "a" / "index.html").write_text("<p>changed</p>")
    assert pages(site).to_check(URLS) == [URL + "learn/a/", URL + "learn/b/"]
    assert pages(site, "phone").to_check(URLS) == URLS              # each check keeps its own passes


@pytest.mark.parametrize("change", ["a stylesheet", "the search index", "the check's code"])
def test_a_change_to_anything_else_the_browser_or_the_check_sees_checks_every_page_again(site, change):
    pages(site).record(URLS)
    assert pages(site).to_check(URLS) == []
    if change == "a stylesheet":
        (site / "assets" / "style.css").write_text("p { color: red }")
    elif change == "the search index":
        (site / "search").mkdir()
        (site / "search" / "search_index.json").write_text("{}")
    else:
        (site.parent / "check.py").write_text("def check(): return 1")
    assert pages(site).to_check(URLS) == URLS


def test_every_page_is_checked_when_asked_or_when_the_record_is_damaged(site, monkeypatch):
    pages(site).record(URLS)
    monkeypatch.setenv("DPGUIDE_RECHECK_PAGES", "1")
    assert pages(site).to_check(URLS) == URLS
    monkeypatch.delenv("DPGUIDE_RECHECK_PAGES")
    (passed_pages.RECORDS / "audit.json").write_text("{not json")
    assert pages(site).to_check(URLS) == URLS
