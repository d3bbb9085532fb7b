"""What a first visit to each page of the built site transfers, gzipped: HTML, CSS and JS.

    python tools/page_weight.py [SITE_DIR]        (default: site/, as `mkdocs build` writes it)

Counted per page: its HTML, every stylesheet and script it links, the search worker Material
starts on every page, and the vendored scripts dpguide.js loads where they are used (Mermaid on a
page with a diagram the build had no drawing for, the FSRS scheduler where flashcards are). Each file is gzipped at level 6, as a
static host serves it. The search index (JSON, fetched by the search worker at load) is the same
for every page and is printed on its own line, not counted. Prints one line per page, heaviest
first, then the heaviest page without a diagram against the goal.
"""

from __future__ import annotations

import gzip
import re
import sys
from functools import lru_cache
from pathlib import Path

GOAL_KIB = 150
_ASSET = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*rel="stylesheet"[^>]*\bhref)="([^"]+)"')
_WORKER = re.compile(r'"search":\s*"([^"]+)"')
#: what dpguide.js loads on demand, and the mark in a page's HTML that makes it load: Mermaid only for
#: a diagram left for the browser to draw (one the build drew from its record is plain SVG)
ON_DEMAND = {"javascripts/vendor/mermaid.min.js": '<pre class="mermaid">',
             "javascripts/vendor/ts-fsrs.umd.js": 'class="dpg-deck'}


@lru_cache(maxsize=None)
def gzipped(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6))


def has_diagram(html: str) -> bool:
    """Whether the page shows a diagram, drawn by the build or left for the browser."""
    return 'class="mermaid' in html


def page_files(site: Path, page: Path) -> list[Path]:
    """The files a first visit to ``page`` (an index.html under ``site``) fetches, itself first."""
    html = page.read_text(encoding="utf-8")
    files = [page]
    for ref in _ASSET.findall(html) + _WORKER.findall(html):
        if "://" not in ref:
            files.append((page.parent / ref.split("?")[0]).resolve())
    files += [site / name for name, mark in ON_DEMAND.items() if mark in html]
    return list(dict.fromkeys(files))


def weights(site: Path) -> dict[str, tuple[int, bool]]:
    """Page (site-relative folder) -> (gzipped bytes of a first visit, whether it draws a diagram)."""
    site = Path(site).resolve()
    found = {}
    for page in sorted(site.rglob("index.html")):
        if page.parent.name in ("assets", "search") or page.parent == site / "404":
            continue
        total = sum(gzipped(f) for f in page_files(site, page))
        found[str(page.parent.relative_to(site)) + "/"] = (total, has_diagram(page.read_text(encoding="utf-8")))
    return found


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "site")
    found = weights(site)
    for name, (size, diagram) in sorted(found.items(), key=lambda kv: -kv[1][0]):
        print(f"{size / 1024:8.1f} KiB  {'diagram' if diagram else '       '}  {name}")
    index = site / "search" / "search_index.json"
    if index.is_file():
        print(f"{gzipped(index) / 1024:8.1f} KiB  (the search index, fetched by the search worker on every "
              "first visit; not counted above)")
    plain = [(size, name) for name, (size, diagram) in found.items() if not diagram]
    size, name = max(plain)
    print(f"heaviest page without a diagram: {name} {size / 1024:.1f} KiB (goal: at most {GOAL_KIB} KiB)")
    return 0 if size <= GOAL_KIB * 1024 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
