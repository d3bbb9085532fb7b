"""The browser checks themselves: a broken link, an unlabelled button and a script error are caught,
each reported with the page and the element."""

from __future__ import annotations

from sitecheck import axe_problems, link_report, serve, watched_page

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
