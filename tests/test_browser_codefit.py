"""Code fits its column at a desktop width: no code box of any page scrolls sideways at 1280x900,
and the snippet line limit is no longer than what a code box (Learn page or practice question)
shows there, measured in the browser rather than assumed."""

from __future__ import annotations

import pytest

from dpguide.snippet_files import LINE_LIMIT
from sitecheck import page_urls, visit_each, watched_page
from test_browser_site import check_changed_pages

DESKTOP = {"viewport": {"width": 1280, "height": 900}}

#: every box a reader sees code in: page code, practice code, notebook cells
CODE_BOXES = "article pre > code, article pre.dpg-quiz-code > code, article .jp-InputArea pre"

SCROLLING = f"""() => [...document.querySelectorAll({CODE_BOXES!r})]
    .filter(box => box.scrollWidth > box.clientWidth + 1)
    .map(box => [box.scrollWidth, box.clientWidth,
                 box.innerText.split("\\n").reduce((a, b) => a.length >= b.length ? a : b, "")])"""

#: how many monospace characters the first box matching the selector shows without scrolling
COLUMNS = """selector => { const box = document.querySelector(selector);
    const probe = document.createElement("span"); probe.textContent = "x".repeat(200);
    box.appendChild(probe); const char = probe.getBoundingClientRect().width / 200; probe.remove();
    const style = getComputedStyle(box);
    const inner = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return Math.floor(inner / char); }"""


@pytest.fixture(scope="module")
def urls(built_site, site_url):
    return page_urls(built_site, site_url)


def scrolling_code_boxes(browser, urls) -> dict[str, dict[str, list[str]]]:
    return visit_each(browser, urls, DESKTOP, lambda page, url: {"codefit": [
        f"{url}: a code box is {wide}px wide in a {column}px column; its longest line ({len(line)} characters): "
        f"{line[:60]!r}..." for wide, column, line in page.evaluate(SCROLLING)]})


def test_no_code_box_scrolls_sideways_at_1280_px(browser, urls, built_site, site_url):
    results = check_changed_pages("desktop-codefit", scrolling_code_boxes, browser, urls, built_site, site_url)
    problems = [problem for kinds in results.values() for problem in kinds["codefit"]]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path, selector", [("learn/ddp/", "article .language-python pre > code"),
                                            ("practice/ddp/", "article pre.dpg-quiz-code > code")])
def test_the_line_limit_is_what_a_code_box_shows_at_1280_px(browser, site_url, path, selector):
    context = browser.new_context(**DESKTOP)
    page = watched_page(context)
    page.goto(site_url + path)
    columns = page.evaluate(COLUMNS, selector)
    context.close()
    print(f"{path}: a code box shows {columns} characters at 1280 px; the snippet line limit is {LINE_LIMIT}")
    assert LINE_LIMIT <= columns


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

#: the background of the first code box that scrolls sideways, or None when none does
SCROLL_CUE = f"""() => {{ const box = [...document.querySelectorAll({CODE_BOXES!r})]
    .find(b => b.scrollWidth > b.clientWidth + 1);
    if (!box) return null;
    const style = getComputedStyle(box);
    return [style.backgroundImage, style.backgroundAttachment]; }}"""


@pytest.mark.parametrize("path", ["learn/ddp/", "practice/ddp/"])
def test_on_a_phone_a_code_box_that_scrolls_shows_a_shadow_where_the_line_goes_on(browser, site_url, path):
    """Python code scrolls instead of wrapping (a wrapped line misstates its indentation); the cue is a
    shadow fixed to the box's edge (scroll) under a cover that moves with the text (local)."""
    context = browser.new_context(**PHONE)
    page = watched_page(context)
    page.goto(site_url + path)
    cue = page.evaluate(SCROLL_CUE)
    context.close()
    assert cue is not None, f"{path}: no code box scrolls at 390 px, so this test checks nothing"
    image, attachment = cue
    assert image.count("radial-gradient") == 2 and image.count("linear-gradient") == 2, image
    assert attachment.replace(" ", "").startswith("local,local,scroll,scroll"), attachment   # + the colour layer
