"""The whole built site in a real browser: console, offline, accessibility, links, mobile, search.

Screenshots of each page type go to build-artifacts/screenshots/ for review (not committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from passed_pages import PassedPages
from sitecheck import CHROMIUM, axe_problems, link_report, overflow_problem, page_urls, split_across_browsers, \
    visit_each, watched_page

SHOTS = ROOT / "build-artifacts" / "screenshots"
PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def urls(built_site, site_url):
    return page_urls(built_site, site_url)


def settled(page) -> None:
    """Wait until no CSS transition or animation runs: colours measured mid-fade are not the page's."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")


def set_scheme(page, scheme: str) -> None:
    """Switch the palette the way a reader does: with the toggle in the header."""
    for _ in range(2):
        if page.evaluate("document.body.getAttribute('data-md-color-scheme')") == scheme:
            return
        page.locator("form[data-md-component='palette'] label:visible").first.click()
        settled(page)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == scheme


#: what a dark scheme can change: Material's palettes swap colour variables and nothing else, so
#: the slate pass runs only axe's colour rules (the default pass runs every rule)
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def audit_pages(browser, urls) -> dict[str, dict[str, list[str]]]:
    """Visit each of ``urls`` once, as a reader would load it, and check it three ways on that visit."""
    context = browser.new_context()
    page = watched_page(context)
    found = {}
    for url in urls:
        here = found[url] = {"console": [], "default": [], "slate": []}
        page.goto(url)
        page.wait_for_load_state("networkidle")
        here["console"] += page.problems
        page.problems.clear()
        set_scheme(page, "default")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        settled(page)
        here["default"] += axe_problems(page)
        set_scheme(page, "slate")
        here["slate"] += axe_problems(page, rules=COLOUR_RULES)
        here["console"] += page.problems       # anything the checks themselves set off
        page.problems.clear()
    context.close()
    return found


def check_changed_pages(check: str, visit, browser, urls, built_site, site_url) -> dict[str, dict[str, list[str]]]:
    """``visit`` (split across two browsers) for the pages that did not pass ``check`` as they are now;
    {url: {kind: problems}} for those, and the pages without a problem are noted as passed."""
    record = PassedPages(check, built_site, site_url, [Path(__file__), ROOT / "tests" / "sitecheck.py"], CHROMIUM)
    todo = record.to_check(urls)
    results = {}
    for share in (split_across_browsers(browser, todo, visit) if todo else []):
        results.update(share)
    record.record([url for url, kinds in results.items() if not any(kinds.values())])
    return results


@pytest.fixture(scope="module")
def audit(browser, urls, built_site, site_url):
    """Every page visited once and checked three ways on that visit (two browsers share the pages),
    except pages unchanged since they passed (passed_pages.py).

    Returns {"console": [...], "default": [...], "slate": [...]}: console errors and outside
    requests while loading; axe's serious and critical findings in the light scheme (every rule,
    every collapsible opened); and in the dark scheme (colour rules).
    """
    results = check_changed_pages("audit", audit_pages, browser, urls, built_site, site_url)
    return {kind: [problem for kinds in results.values() for problem in kinds[kind]]
            for kind in ("console", "default", "slate")}


def test_every_page_loads_without_console_errors_or_outside_requests(audit, urls):
    assert len(urls) >= 5
    assert not audit["console"], "\n".join(audit["console"])


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_no_serious_or_critical_accessibility_violations(audit, scheme):
    assert not audit[scheme], "\n".join(audit[scheme])


def test_every_internal_link_and_anchor_resolves_and_external_links_are_listed(built_site):
    problems, external = link_report(built_site)
    report = ROOT / "build-artifacts" / "external-links.txt"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(external) + "\n")
    assert not problems, "\n".join(problems)


def test_snippet_download_links_serve_the_file(page, site_url, built_site):
    page.goto(site_url + "learn/ddp/")
    links = page.locator("a.dpg-download")
    assert links.count() >= 1
    for index in range(links.count()):
        href = links.nth(index).get_attribute("href")
        response = page.request.get(page.url + href if not href.startswith("http") else href)
        assert response.status == 200, href
        served = (built_site / "snippets" / href.split("snippets/", 1)[1]).read_bytes()
        assert response.body() == served and not served.startswith(b"#|")   # the file minus the engine's header


def overflowing_on_a_phone(browser, urls) -> dict[str, dict[str, list[str]]]:
    def look(page, url):
        problem = overflow_problem(page)
        return {"overflow": [problem] if problem else []}
    return visit_each(browser, urls, PHONE, look)


def test_phone_viewport_has_no_horizontal_overflow_and_usable_navigation(browser, urls, built_site, site_url):
    results = check_changed_pages("phone-overflow", overflowing_on_a_phone, browser, urls, built_site, site_url)
    problems = [problem for kinds in results.values() for problem in kinds["overflow"]]
    context = browser.new_context(**PHONE)
    page = watched_page(context)
    page.goto(urls[0])
    page.locator("label.md-header__button[for='__drawer']").click()
    page.wait_for_timeout(400)
    assert page.locator("nav.md-nav--primary").is_visible()
    context.close()
    assert not problems, "\n".join(problems)


def test_search_finds_a_lesson(page, site_url):
    page.goto(site_url)
    page.locator("input.md-search__input").click()
    page.keyboard.type("DistributedSampler", delay=20)      # Material searches on key events
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    results = page.locator(".md-search-result__item").all_inner_texts()
    assert any("Data loading" in text or "DistributedSampler" in text for text in results), results


def test_screenshots_of_each_page_type(browser, site_url):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    shots = {"concept": "learn/ddp/", "practice": "practice/ddp-basics/", "flashcards": "flashcards/",
             "contribute": "contribute/"}
    for name, path in shots.items():
        page.goto(site_url + path)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    page.goto(site_url + "learn/ddp/")
    page.locator(".tabbed-set").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "torchrun-output.png"))
    page.goto(site_url + "learn/devices/")
    notice = page.locator(".admonition.warning:visible", has_text="GPU output not yet recorded")
    if notice.count():
        notice.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "gpu-record.png"))
    context.close()
    assert len(list(SHOTS.glob("*.png"))) >= 6
