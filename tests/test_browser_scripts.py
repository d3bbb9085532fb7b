"""Scripts only where used: a diagram the build drew from its record needs no Mermaid, one left for
the browser loads this site's copy on the visit's first diagram (never a CDN), the FSRS scheduler
loads only where flashcards are; diagrams still show after instant navigation."""

from __future__ import annotations

NO_DIAGRAM = "learn/why-parallel/"
DIAGRAM = "learn/ddp/"
CARDS = "flashcards/"
PRACTICE = "practice/ddp-basics/"


def scripts_of(page, site_url, path) -> list[str]:
    """The file names of the scripts a first visit to ``path`` requests, once the network is idle."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.resource_type == "script" else None)
    page.goto(site_url + path)
    page.wait_for_load_state("networkidle")
    return [url.rsplit("/", 1)[-1].split("?")[0] for url in asked]


def drawn(page) -> None:
    """Every diagram of the page drawn: each pre.mermaid swapped by Material for a div holding the
    SVG, or put in by the build as a div whose (open) shadow root holds the recorded SVG."""
    page.wait_for_function("() => document.querySelectorAll('div.mermaid').length > 0 && "
                           "document.querySelectorAll('pre.mermaid').length === 0", timeout=20000)


def recorded_drawings(page) -> list[bool]:
    """For each diagram the build drew: whether its SVG is attached in a shadow root."""
    return page.evaluate("() => [...document.querySelectorAll('div.dpg-drawn')]"
                         ".map(d => !!(d.shadowRoot && d.shadowRoot.querySelector('svg')))")


def test_a_page_without_diagram_or_cards_loads_neither_script(page, site_url):
    for path in (NO_DIAGRAM, PRACTICE):
        names = scripts_of(page, site_url, path)
        assert "dpguide.js" in names and "mermaid.min.js" not in names and "ts-fsrs.umd.js" not in names, path
    assert page.problems == []


def test_a_diagram_page_shows_its_recorded_drawing_without_loading_mermaid(page, site_url):
    assert "mermaid.min.js" not in scripts_of(page, site_url, DIAGRAM)
    drawn(page)
    assert recorded_drawings(page) == [True]
    assert page.problems == []          # no request left the site (the watched page refuses a CDN)


def test_a_diagram_without_a_record_draws_with_the_vendored_mermaid(page, tmp_path):
    from minisite import served_site_with_scripts

    with served_site_with_scripts(tmp_path, {"index.md": "# A\n\n```mermaid\nflowchart LR\n  A --> B\n```\n"}) as url:
        assert "mermaid.min.js" in scripts_of(page, url, "")
        drawn(page)
        assert recorded_drawings(page) == []
    assert page.problems == []


def test_a_diagram_still_draws_after_instant_navigation_from_a_page_without_one(page, site_url):
    scripts_of(page, site_url, NO_DIAGRAM)
    page.locator(f"nav a[href$='{DIAGRAM.split('/')[1]}/']").first.click()
    page.wait_for_url(f"**/{DIAGRAM}")
    drawn(page)                         # DOMParser leaves a declarative shadow root inert: dpguide.js attaches it
    assert recorded_drawings(page) == [True]
    assert page.problems == []


def test_the_flashcards_page_loads_the_scheduler_and_builds_its_study_queue(page, site_url):
    assert "ts-fsrs.umd.js" in scripts_of(page, site_url, CARDS)
    page.wait_for_selector(".dpg-study .dpg-study-counts")
    assert "did not load" not in page.locator(".dpg-study").inner_text()
    assert page.problems == []
