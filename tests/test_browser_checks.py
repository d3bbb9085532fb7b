"""The browser checks themselves: a broken link, an unlabelled button, unreadable text, a script
error and a missing file are caught, each reported with the page and the element; a request that
the test's next navigation aborts is no fault unless the file is really missing; pages shared
across browsers are each checked once, and a failure in any browser fails the check."""

from __future__ import annotations

import pytest

from sitecheck import axe_problems, link_report, serve, split_across_browsers, watched_page

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1>{body}</main></body></html>"""


def write(site, name, title, body):
    path = site / name / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAGE.format(title=title, body=body))


def test_a_broken_link_and_a_missing_anchor_are_named(tmp_path):
    write(tmp_path, "good", "Good", '<p id="here">x</p>')
    write(tmp_path, "bad", "Bad", '<a href="../nowhere/">gone</a> <a href="../good/#not-there">anchor</a>'
                                  ' <a href="https://example.org/">outside</a>')
    problems, external = link_report(tmp_path)
    assert any(p.startswith("bad/index.html: broken link <a href=\"../nowhere/\">") for p in problems)
    assert any("bad/index.html: link <a href=\"../good/#not-there\">" in p and "#not-there" in p for p in problems)
    assert external == ["https://example.org/"]


def test_a_button_without_a_label_fails_axe_naming_the_element(tmp_path, browser):
    write(tmp_path, "x", "Buttons", '<button class="nameless"></button>')
    with serve(tmp_path) as url:
        page = browser.new_page()
        page.goto(url + "x/")
        problems = axe_problems(page)
        page.close()
    assert any("/x/: axe critical button-name" in p and "class=\"nameless\"" in p for p in problems), problems


def test_the_colour_pass_finds_unreadable_text_and_runs_only_the_colour_rules(tmp_path, browser):
    # what the dark-scheme pass of the site audit runs: colour findings are caught, others are not its job
    write(tmp_path, "c", "Colours", '<p class="faint" style="color:#777;background:#666">hard to read</p>'
                                    '<button class="nameless"></button>')
    with serve(tmp_path) as url:
        page = browser.new_page()
        page.goto(url + "c/")
        problems = axe_problems(page, rules=("color-contrast", "link-in-text-block"))
        page.close()
    assert any("/c/: axe serious color-contrast" in p and 'class="faint"' in p for p in problems), problems
    assert not any("button-name" in p for p in problems), problems


def test_a_script_error_and_an_outside_request_are_reported(tmp_path, browser):
    write(tmp_path, "js", "Script", '<script>undefinedFunction();</script>'
                                    '<img alt="remote" src="https://cdn.example.org/x.png">')
    with serve(tmp_path) as url:
        context = browser.new_context()
        page = watched_page(context)
        page.goto(url + "js/")
        page.wait_for_timeout(300)
        context.close()
    assert any("/js/: script error:" in p and "undefinedFunction" in p for p in page.problems), page.problems
    assert any("request to an outside address https://cdn.example.org/x.png" in p for p in page.problems)


def visit(browser, visit_pages) -> tuple[list[str], list[str]]:
    """(problems, failures seen) of a watched page that ``visit_pages(page)`` drives."""
    context = browser.new_context()
    page = watched_page(context)
    failures = []
    page.on("requestfailed", lambda request: failures.append(f"{request.url} {request.failure}"))
    visit_pages(page)
    context.close()
    return page.problems, failures


def leave_while_loading(url, held_file):
    """Open slow/ with its image's response held back, then go to next/: the navigation aborts it."""
    def visit_pages(page):
        held = []
        page.route(f"**/{held_file}", lambda route, request: held.append(route))   # never answered
        page.goto(url + "slow/", wait_until="domcontentloaded")
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(50)
        assert held, f"the browser never requested {held_file}"
        page.goto(url + "next/")
        page.wait_for_load_state("networkidle")
    return visit_pages


def write_slow_site(site, image: str):
    write(site, "slow", "Slow", f'<img alt="a picture" src="../{image}">')
    write(site, "next", "Next", "<p>the next page</p>")
    (site / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")


def test_a_missing_file_is_named_with_its_page(tmp_path, browser):
    write(tmp_path, "missing", "Missing", '<img alt="gone" src="../nowhere.png">')
    with serve(tmp_path) as url:
        def visit_pages(page):
            page.goto(url + "missing/")
            page.wait_for_load_state("networkidle")
        problems, _ = visit(browser, visit_pages)
    assert f"{url}missing/: HTTP 404 for {url}nowhere.png" in problems, problems


def test_a_request_the_next_navigation_aborts_is_no_fault_when_the_file_is_served(tmp_path, browser):
    write_slow_site(tmp_path, "picture.png")
    with serve(tmp_path) as url:
        problems, failures = visit(browser, leave_while_loading(url, "picture.png"))
    assert f"{url}picture.png net::ERR_ABORTED" in failures, failures   # the abort really happened
    assert problems == [], problems


def test_a_request_the_next_navigation_aborts_still_fails_when_the_file_is_missing(tmp_path, browser):
    write_slow_site(tmp_path, "gone.png")
    with serve(tmp_path) as url:
        problems, failures = visit(browser, leave_while_loading(url, "gone.png"))
    assert f"{url}gone.png net::ERR_ABORTED" in failures, failures
    assert problems == [f"{url}slow/: request failed: {url}gone.png (net::ERR_ABORTED); fetched again: HTTP 404"], \
        problems


def test_pages_shared_across_browsers_are_each_visited_once_and_a_failure_anywhere_is_raised(tmp_path, browser):
    for name in "abcde":
        write(tmp_path, name, f"Page {name}", "<p>x</p>")
    with serve(tmp_path) as url:
        urls = [f"{url}{name}/" for name in "abcde"]

        def titles(a_browser, share):
            page = a_browser.new_page()
            seen = []
            for address in share:
                page.goto(address)
                seen.append((a_browser is browser, page.title()))
            page.close()
            return seen

        shares = split_across_browsers(browser, urls, titles)
        assert sorted(title for share in shares for _, title in share) == [f"Page {n}" for n in "abcde"]
        assert [here for here, _ in shares[0]] == [True] * 3 and [here for here, _ in shares[1]] == [False] * 2

        def fails_in_the_second_browser(a_browser, share):
            if a_browser is not browser:
                raise AssertionError(f"found a problem on {share[0]}")
            return []

        with pytest.raises(AssertionError, match="found a problem on .*/b/"):
            split_across_browsers(browser, urls, fails_in_the_second_browser)
