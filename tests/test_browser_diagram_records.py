"""tools/record_diagrams.py on a mini site: it records the drawing Material's Mermaid makes, the next
build puts that drawing in place of the fence, and a changed diagram goes back to the browser."""

from __future__ import annotations

import shutil
import sys

from conftest import ROOT
from minisite import build, make_site

sys.path.insert(0, str(ROOT / "tools"))
import record_diagrams  # noqa: E402

PAGE = "# A\n\n```mermaid\nflowchart LR\n  A --> B\n```\n"


def site_with_scripts(root):
    make_site(root, {"index.md": PAGE})
    (root / "docs" / "javascripts").mkdir()
    shutil.copy(ROOT / "docs" / "javascripts" / "dpguide.js", root / "docs" / "javascripts")
    shutil.copytree(ROOT / "docs" / "javascripts" / "vendor", root / "docs" / "javascripts" / "vendor")
    with open(root / "mkdocs.yml", "a") as config:
        config.write("extra_javascript:\n  - javascripts/dpguide.js\n")
    return root


def test_a_recorded_drawing_is_built_into_the_page_and_a_changed_diagram_is_not(tmp_path, browser):
    root = site_with_scripts(tmp_path)
    assert build(root).returncode == 0
    assert '<pre class="mermaid">' in (root / "site" / "index.html").read_text()
    records = record_diagrams.records_for(root)
    assert record_diagrams.record(root / "site", records, browser) == 1
    [svg_file] = list((root / "records" / "diagrams").glob("*.svg"))
    assert svg_file.read_text().startswith("<svg")

    done = build(root)
    html = (root / "site" / "index.html").read_text()
    assert done.returncode == 0 and '<pre class="mermaid">' not in html
    assert '<div class="mermaid dpg-drawn"><template shadowrootmode="open"><svg' in html
    assert "diagrams: 1 drawn" in done.stderr

    (root / "docs" / "index.md").write_text(PAGE.replace("A --> B", "A --> C"))
    done = build(root)
    assert '<pre class="mermaid">' in (root / "site" / "index.html").read_text()
    assert "1 left for the reader's browser to draw" in done.stderr
