"""The render memo: a hit gives what MkDocs' own highlighting and search indexing give, byte for
byte; any change to what those steps read is computed again; a bad memo file is ignored, not trusted."""

from __future__ import annotations

import datetime
import json
from types import SimpleNamespace

import markdown
import pytest
from material.plugins.search.plugin import SearchIndex

from dpguide import render_memo
from dpguide.render_memo import RenderMemo
from minisite import build, make_site

CODE = "```python\nimport torch\nprint(torch.ones(2) * {n})\n```\n"
SEARCH_SETTINGS = {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": [], "fields": {}}


@pytest.fixture
def memo(tmp_path):
    """A memo in tmp_path, active for the test; the steps run plainly again afterwards."""
    made = RenderMemo(tmp_path / "render-memo.json", fingerprint="test software")
    render_memo.activate(made)
    yield made
    render_memo.activate(None)


def convert(text: str, **highlight) -> str:
    extensions = ["pymdownx.highlight", "pymdownx.superfences"]
    return markdown.Markdown(extensions=extensions,
                             extension_configs={"pymdownx.highlight": highlight}).convert(text)


def plain(function, *args, **kwargs):
    """``function``'s result with no memo active."""
    active = render_memo._active
    render_memo.activate(None)
    try:
        return function(*args, **kwargs)
    finally:
        render_memo.activate(active)


def page(content: str, url: str = "lesson/", title: str = "Lesson", meta=None):
    heading = SimpleNamespace(id="first", url="#first", title="First", level=2, children=[])
    return SimpleNamespace(content=content, url=url, title=title, meta=meta or {}, toc=[heading])


def index(pages) -> list[dict]:
    search = SearchIndex(**SEARCH_SETTINGS)
    for one in pages:
        search.add_entry_from_context(one)
    return search.entries


HTML = '<h1 id="lesson">Lesson</h1><p>Intro.</p><h2 id="first">First</h2><p>Uses <code>all_reduce</code>.</p>'


@pytest.mark.unit
def test_a_hit_gives_the_highlighters_own_html(memo):
    expected = plain(convert, CODE.format(n=2), anchor_linenums=True)
    assert convert(CODE.format(n=2), anchor_linenums=True) == expected      # computed and stored
    assert convert(CODE.format(n=2), anchor_linenums=True) == expected      # from the memo
    assert memo.stats["highlight"] == [1, 1]


@pytest.mark.unit
def test_changed_code_or_settings_are_highlighted_again(memo):
    convert(CODE.format(n=2), anchor_linenums=True)
    assert "3" in convert(CODE.format(n=3), anchor_linenums=True)            # same length, other code
    assert convert(CODE.format(n=2), anchor_linenums=False) == plain(convert, CODE.format(n=2), anchor_linenums=False)
    assert memo.stats["highlight"] == [0, 3]


@pytest.mark.unit
def test_a_second_block_on_the_page_keeps_its_own_line_anchors(memo):
    twice = CODE.format(n=2) + "\n" + CODE.format(n=2)
    html = convert(twice, anchor_linenums=True)
    assert html == plain(convert, twice, anchor_linenums=True)
    assert "__codelineno-0-1" in html and "__codelineno-1-1" in html


@pytest.mark.unit
def test_a_block_with_an_html_title_from_the_auto_title_map_is_not_memoised(memo):
    """Its title goes into the converter's stash, whose slot number is in the HTML: a stored copy
    would point at another build's slot (a hit once made the block contain itself)."""
    settings = {"auto_title": True, "auto_title_map": {"Python": {"title": "<b>Py</b>", "mode": "html"}}}
    expected = plain(convert, CODE.format(n=1), **settings)
    assert convert(CODE.format(n=1), **settings) == expected
    assert convert(CODE.format(n=1), **settings) == expected
    assert memo.stats["highlight"] == [0, 0]


@pytest.mark.unit
def test_search_entries_from_the_memo_equal_a_fresh_indexing(memo):
    expected = plain(index, [page(HTML)])
    assert index([page(HTML)]) == expected
    assert index([page(HTML)]) == expected
    assert memo.stats["search"] == [1, 1]
    # what a page's entries are read from: its HTML, URL, title, metadata and table of contents
    for changed in (page(HTML.replace("Intro", "Outro")), page(HTML, url="other/"),
                    page(HTML.replace('<h1 id="lesson">Lesson</h1>', ""), title="Other"),
                    page(HTML, meta={"search": {"boost": 2}})):
        assert index([changed]) == plain(index, [changed])
    assert memo.stats["search"] == [1, 5]


@pytest.mark.unit
def test_front_matter_of_any_shape_is_indexed_as_without_the_memo(memo, monkeypatch):
    odd = page(HTML, meta={1: "a number key", "title": "T", "when": datetime.date(2026, 12, 5)})
    assert index([odd]) == plain(index, [odd])
    import material.plugins.search.plugin as search_plugin

    monkeypatch.setattr(search_plugin, "jieba", object())     # jieba's dictionaries are not in the key
    monkeypatch.setattr(SearchIndex, "_segment_chinese", lambda self, text: text, raising=False)
    index([page(HTML)])
    assert memo.stats["search"] == [0, 1]


@pytest.mark.unit
def test_two_pages_with_one_memo_entry_each_keep_their_order(memo):
    pages = [page(HTML), page(HTML.replace("Intro", "Second"), url="second/")]
    expected = plain(index, pages)
    index(pages)
    assert index(pages) == expected
    assert [list(entry) for entry in index(pages)] == [list(entry) for entry in expected]   # key order too


@pytest.mark.unit
def test_the_saved_memo_serves_a_later_build_and_keeps_only_what_was_used(tmp_path, memo):
    convert(CODE.format(n=1))
    index([page(HTML)])
    memo.save()
    later = RenderMemo(memo.path, fingerprint="test software")
    render_memo.activate(later)
    reloaded, expected = index([page(HTML)]), plain(index, [page(HTML)])
    assert reloaded == expected
    assert [list(entry) for entry in reloaded] == [list(entry) for entry in expected]   # the index keeps key order
    assert later.stats["search"] == [1, 0]
    later.save()                                           # the highlighted block was not used
    assert len(RenderMemo(memo.path, fingerprint="test software").stored) == 1


@pytest.mark.unit
def test_other_software_versions_compute_everything_again(tmp_path, memo):
    convert(CODE.format(n=1))
    memo.save()
    upgraded = RenderMemo(memo.path, fingerprint="Pygments upgraded")
    render_memo.activate(upgraded)
    convert(CODE.format(n=1))
    assert upgraded.stats["highlight"] == [0, 1]


@pytest.mark.unit
def test_an_unchanged_memo_is_not_rewritten(tmp_path, memo):
    convert(CODE.format(n=1))
    memo.save()
    before = memo.path.stat().st_mtime_ns
    again = RenderMemo(memo.path, fingerprint="test software")
    render_memo.activate(again)
    convert(CODE.format(n=1))
    again.save()
    assert memo.path.stat().st_mtime_ns == before
    assert [p.name for p in tmp_path.iterdir()] == ["render-memo.json"]       # no temporary file left


@pytest.mark.unit
@pytest.mark.parametrize("damage", ["edit", "truncate", "not a mapping"])
def test_a_damaged_memo_file_is_reported_and_ignored(tmp_path, damage):
    path = tmp_path / "render-memo.json"
    first = RenderMemo(path, fingerprint="test software")
    render_memo.activate(first)
    try:
        convert(CODE.format(n=1))
    finally:
        render_memo.activate(None)
    first.save()
    digest, body = path.read_text().split("\n", 1)
    if damage == "edit":            # still valid JSON: only the checksum shows it
        key = next(iter(json.loads(body)))
        path.write_text(digest + "\n" + json.dumps({key: "<pre>not what Pygments made</pre>"}))
    elif damage == "truncate":
        path.write_text(digest + "\n" + body[: len(body) // 2])
    else:
        path.write_text(render_memo._digest("[]") + "\n[]")
    reports = []
    reread = RenderMemo(path, report=reports.append, fingerprint="test software")
    assert reread.stored == {}
    assert len(reports) == 1 and "render-memo.json: ignored" in reports[0]


@pytest.mark.unit
def test_the_fingerprint_names_the_packages_that_do_the_work():
    fingerprint = json.loads(render_memo.software_fingerprint())
    assert set(fingerprint[1]) == {"markdown", "pymdown-extensions", "pygments", "mkdocs", "mkdocs-material"}
    lexers = fingerprint[2]["pygments.lexers"]
    assert any(name == "ipython3" for name, _, _ in lexers)       # a Pygments plugin installed here


@pytest.mark.unit
def test_off_when_the_variable_says_so():
    assert render_memo.enabled({}) and render_memo.enabled({"DPGUIDE_RENDER_MEMO": "1"})
    assert not render_memo.enabled({"DPGUIDE_RENDER_MEMO": "0"})


SITE_PAGE = """  # one code block, and one more for its output
# Lesson

## Code

```python
import torch
print(torch.arange(3).sum())
```
"""


def site_files(built) -> dict[str, bytes]:
    return {path.relative_to(built).as_posix(): path.read_bytes() for path in built.rglob("*")
            if path.is_file() and path.suffix in (".html", ".json")}


@pytest.mark.usefixtures("clean_process_table")
def test_a_build_from_the_memo_is_the_site_a_build_without_it_makes(tmp_path):
    site = make_site(tmp_path, {"index.md": SITE_PAGE})
    assert "render memo: 0 of 2 code blocks highlighted and 0 of 1 pages" in build(site).stderr
    warm = build(site)
    assert "render memo: 2 of 2 code blocks highlighted and 1 of 1 pages" in warm.stderr
    from_memo = site_files(site / "site")
    assert "search/search_index.json" in from_memo
    memo = site / ".cache" / "dpguide" / "render-memo.json"
    stored = memo.read_bytes()
    plain_build = build(site, env={"DPGUIDE_RENDER_MEMO": "0"})
    assert plain_build.returncode == 0 and "render memo" not in plain_build.stderr
    assert site_files(site / "site") == from_memo
    # a build that fails leaves the memo as the last good build wrote it
    (site / "docs" / "broken.md").write_text("# Broken\n\n```python\nraise SystemExit(3)\n```\n")
    assert build(site).returncode != 0
    assert memo.read_bytes() == stored
