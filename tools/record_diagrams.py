"""Record the drawing of every diagram of the site, so readers' browsers need not load Mermaid.

    .venv/bin/python tools/record_diagrams.py            # build the site to a scratch folder, record
    .venv/bin/python tools/record_diagrams.py SITE       # record from a site built already
    make diagrams                                        # the same as the first line

For each built page that still holds a ``pre.mermaid`` (a diagram with no record), Chromium opens
the page as a reader would; once Material has drawn its diagrams with the vendored Mermaid (so
Mermaid has Material's settings), each diagram's text is drawn once more by that same Mermaid and
the SVG is stored under ``records/diagrams/`` (``dpguide.diagrams``). Records no diagram of
``docs/`` uses any more are removed. The next build puts each drawing in place of its fence.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))
from dpguide.diagrams import UNDRAWN, DiagramRecords, find_diagrams, normalize  # noqa: E402
from sitecheck import launch_chromium, serve  # noqa: E402

_PRE = re.compile(re.escape(UNDRAWN) + r"(.*?)</code></pre>", re.S)
DRAWN_BY_MATERIAL = "() => document.querySelectorAll('pre.mermaid').length === 0"
DRAW = "async ([id, text]) => (await window.mermaid.render(id, text)).svg"


def records_for(root: Path) -> DiagramRecords:
    return DiagramRecords.of_site(root / "records", root / "docs")


def undrawn(site: Path) -> dict[str, list[str]]:
    """Built page (site-relative URL) -> the texts of its diagrams left for the browser to draw."""
    found = {}
    for page in sorted(site.rglob("*.html")):
        sources = [normalize(html.unescape(m)) for m in _PRE.findall(page.read_text(encoding="utf-8"))]
        if sources:
            found[page.relative_to(site).as_posix()] = sources
    return found


def record(site: Path, records: DiagramRecords, browser=None) -> int:
    """Draw and store every diagram ``site`` leaves to the browser, in ``browser`` (a Chromium of its
    own when None); how many were drawn."""
    if browser is None:
        with launch_chromium() as own:
            return record(site, records, own)
    pending = undrawn(site)
    with serve(site) as url, contextlib.closing(browser.new_page()) as page:
        for path, sources in pending.items():
            page.goto(url + path)
            try:
                page.wait_for_function(DRAWN_BY_MATERIAL, timeout=60000)
                drawn = [page.evaluate(DRAW, ["dpg-" + records.key(source), source]) for source in sources]
            except Exception as exc:         # Playwright's timeout, or Mermaid's own parse error
                raise SystemExit(f"{path}: Mermaid did not draw a diagram of this page "
                                 f"({str(exc).splitlines()[0]}); check its mermaid fences") from None
            for source, svg in zip(sources, drawn):
                print(f"{path}: {records.store(source, svg)}")
    return sum(len(s) for s in pending.values())


def build(site: Path) -> None:
    command = [str(ROOT / ".venv" / "bin" / "mkdocs"), "build", "--strict", "-d", str(site)]
    subprocess.run(command, cwd=ROOT, check=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, help="a built site (default: build one now)")
    args = parser.parse_args()
    records = records_for(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        site = args.site or Path(scratch) / "site"
        if args.site is None:
            build(site)
        drawn = record(site, records)
    used = [d.source for page in sorted((ROOT / "docs").rglob("*.md"))
            for d in find_diagrams(page.read_text(encoding="utf-8"))]
    gone = records.prune(used)
    print(f"{drawn} diagram(s) recorded, {len(gone)} record(s) no diagram uses removed, "
          f"{len(used)} diagram(s) in docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
