"""Diagrams drawn once: which fences are diagrams, how a record is found, and that a drawing whose
text or renderer changed is never put into a page (the browser draws the fence instead)."""

from __future__ import annotations

import pytest

from dpguide.diagrams import DiagramRecords, drawn_html, find_diagrams, normalize
from dpguide.fences import scan_fences
from dpguide.render import replace_blocks

pytestmark = pytest.mark.unit

PAGE = """# A page

```mermaid
flowchart LR
  A --> B
```

````markdown
```mermaid
flowchart LR
  shown --> only
```
````

```python
print("not a diagram")
```
"""
SVG = '<svg id="dpg-x" xmlns="http://www.w3.org/2000/svg"><style>#dpg-x{fill:red}</style>\n<g>A</g></svg>'


def test_only_top_level_mermaid_fences_are_diagrams_with_their_lines_and_text():
    diagrams = find_diagrams(PAGE)
    assert [(d.line, d.end_line, d.source) for d in diagrams] == [(3, 6, "flowchart LR\n  A --> B")]
    assert [f.lang for f in scan_fences(PAGE)] == ["mermaid", "markdown", "python"]


def test_an_unclosed_fence_is_no_diagram():
    assert find_diagrams("```mermaid\nflowchart LR\n") == []


def test_the_page_text_and_the_built_pre_text_give_one_key(tmp_path):
    records = DiagramRecords(tmp_path, "renderer-1")
    assert records.key("flowchart LR\n  A --> B") == records.key("\nflowchart LR  \n  A --> B\n\n")
    assert normalize("\n  x  \n") == "x"


def test_a_recorded_drawing_replaces_its_fence_in_one_html_line(tmp_path):
    records = DiagramRecords(tmp_path, "renderer-1")
    records.store(find_diagrams(PAGE)[0].source, SVG)
    replaced = records.replacements("p.md", PAGE)
    out = replace_blocks(PAGE, replaced)
    assert drawn_html(SVG) in out.splitlines() and "flowchart LR\n  A --> B" not in out
    assert "shown --> only" in out                      # the example inside ````markdown is left alone
    assert drawn_html(SVG).startswith('<div class="mermaid dpg-drawn"><template shadowrootmode="open"><svg')
    assert (records.drawn, records.left) == ({"p.md": 1}, {"p.md": 0})


def test_a_changed_diagram_or_renderer_finds_no_record_and_is_counted_as_left(tmp_path):
    DiagramRecords(tmp_path, "renderer-1").store("flowchart LR\n  A --> B", SVG)
    changed_text = DiagramRecords(tmp_path, "renderer-1")
    assert changed_text.replacements("p.md", PAGE.replace("A --> B", "A --> C")) == {}
    assert "1 left for the reader's browser" in changed_text.summary() and "p.md" in changed_text.summary()
    new_renderer = DiagramRecords(tmp_path, "renderer-2")
    assert new_renderer.replacements("p.md", PAGE) == {}
    assert DiagramRecords(tmp_path, None).drawing("flowchart LR\n  A --> B") is None


def test_a_record_that_is_not_an_svg_is_not_shown_and_cannot_be_stored(tmp_path):
    records = DiagramRecords(tmp_path, "renderer-1")
    records.path("graph").write_text("<html>oops</html>")
    assert records.drawing("graph") is None
    with pytest.raises(ValueError):
        records.store("graph", "<p>not svg</p>")


def test_prune_removes_only_records_no_diagram_uses(tmp_path):
    records = DiagramRecords(tmp_path, "renderer-1")
    kept, dropped = records.store("a", SVG), records.store("b", SVG)
    assert records.prune(["a"]) == [dropped] and kept.is_file() and not dropped.is_file()
