"""Diagrams drawn once instead of on every visit: the SVG Mermaid drew for each ``mermaid`` fence,
kept as a record, and the page transform that puts a recorded drawing where its fence was.

Material draws a diagram in the reader's browser: it loads Mermaid (2.7 MB, about 770 KiB gzipped),
renders the fence's text and puts the SVG into a closed shadow root of a ``div.mermaid``. A
record is that same SVG, drawn by the same Mermaid with Material's settings in Chromium
(``tools/record_diagrams.py`` over a built site). The build writes it into the page inside a
declarative shadow root, so the reader's browser shows it as Material would, styled by the same
palette variables (light and dark), without loading Mermaid at all.

A record is found by a key over the diagram's text and the renderer (the vendored Mermaid file and
Material's version), so a diagram whose text changed, or a new Mermaid, finds no record: the page
then keeps its fence and the browser draws it, as before. A stale drawing is never shown.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .cache import atomic_write_text
from .fences import scan_fences

LANG = "mermaid"
SUFFIX = ".svg"
#: how a built page holds a diagram the build had no drawing for (Material draws it in the browser)
UNDRAWN = '<pre class="mermaid"><code>'
#: where the site's vendored Mermaid sits under docs/ (tools/vendor_js.py)
MERMAID = Path("javascripts") / "vendor" / "mermaid.min.js"
_SVG = re.compile(r"^<svg\b.*</svg>$", re.S)


@dataclass(frozen=True)
class Diagram:
    """A ``mermaid`` fence of a page: its lines (1-based) and the text Mermaid is given."""

    line: int
    end_line: int
    indent: str
    source: str


def find_diagrams(text: str) -> list[Diagram]:
    """The closed top-level ``mermaid`` fences of ``text``; the text as the browser reads it from the
    rendered ``pre`` (outer blank lines and trailing spaces dropped)."""
    return [Diagram(f.line, f.end_line, f.indent, normalize(f.body))
            for f in scan_fences(text) if f.lang == LANG and f.end_line is not None]


def normalize(source: str) -> str:
    """A diagram's text as keys compare it: the page's fence body and the built page's ``pre``
    text (``textContent``) give the same string."""
    return "\n".join(line.rstrip() for line in source.strip("\n").splitlines()).strip()


def renderer_fingerprint(mermaid_file: Path) -> str:
    """What draws a diagram: the vendored Mermaid's bytes and the Material whose settings it uses."""
    digest = hashlib.sha256(mermaid_file.read_bytes()).hexdigest()
    return f"mermaid-sha256:{digest} mkdocs-material:{metadata.version('mkdocs-material')}"


def drawn_html(svg: str) -> str:
    """A recorded drawing as page HTML: one line (Markdown passes a raw block through whole), in a
    declarative shadow root, so the page's own styles cannot reach inside it, as with Material's."""
    return ('<div class="mermaid dpg-drawn"><template shadowrootmode="open">'
            + " ".join(svg.split("\n")) + "</template></div>")


class DiagramRecords:
    """The drawings of a site's diagrams, one SVG file per diagram text and renderer."""

    def __init__(self, directory: Path, fingerprint: str | None):
        self.directory = Path(directory)
        self.fingerprint = fingerprint         # None: no renderer known, so no record applies
        self.drawn: dict[str, int] = {}        # page -> diagrams put in from records
        self.left: dict[str, int] = {}         # page -> diagrams left for the browser to draw

    @classmethod
    def of_site(cls, records_root: Path, docs_dir: Path) -> "DiagramRecords":
        """The records under ``records_root/diagrams``, for the Mermaid vendored under ``docs_dir``
        (none applies where it is missing)."""
        mermaid = Path(docs_dir) / MERMAID
        return cls(Path(records_root) / "diagrams", renderer_fingerprint(mermaid) if mermaid.is_file() else None)

    def key(self, source: str) -> str:
        text = f"{self.fingerprint}\n{normalize(source)}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def path(self, source: str) -> Path:
        return self.directory / (self.key(source) + SUFFIX)

    def drawing(self, source: str) -> str | None:
        """The recorded SVG of ``source``, or None (no renderer, no record, or not an SVG)."""
        if self.fingerprint is None:
            return None
        path = self.path(source)
        try:
            svg = path.read_text(encoding="utf-8").strip()
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        return svg if _SVG.match(svg) else None

    def store(self, source: str, svg: str) -> Path:
        svg = svg.strip()
        if not _SVG.match(svg):
            raise ValueError(f"not an SVG drawing: {svg[:80]!r}")
        path = self.path(source)
        atomic_write_text(path, svg + "\n")
        return path

    def prune(self, sources: list[str]) -> list[Path]:
        """Remove the records no diagram of ``sources`` uses; the paths removed."""
        keep = {self.path(source).name for source in sources}
        gone = [p for p in sorted(self.directory.glob("*" + SUFFIX)) if p.name not in keep]
        for path in gone:
            path.unlink()
        return gone

    def replacements(self, page: str, markdown: str) -> dict[int, tuple[int, list[str]]]:
        """For each diagram of ``markdown`` with a record: its first line -> (last line, the lines
        that replace the fence), as ``render.replace_blocks`` takes them. Counted per page."""
        found = {}
        diagrams = find_diagrams(markdown)
        for diagram in diagrams:
            svg = self.drawing(diagram.source)
            if svg is not None:
                found[diagram.line] = (diagram.end_line, ["", diagram.indent + drawn_html(svg), ""])
        self.drawn[page] = len(found)
        self.left[page] = len(diagrams) - len(found)
        return found

    def summary(self) -> str:
        drawn, left = sum(self.drawn.values()), sum(self.left.values())
        line = f"diagrams: {drawn} drawn from {self.directory.name}/ records"
        if left:
            pages = ", ".join(sorted(page for page, n in self.left.items() if n))
            line += (f", {left} left for the reader's browser to draw with Mermaid ({pages}); "
                     "record them with `make diagrams`")
        return line
