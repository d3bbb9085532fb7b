"""A memo of two pure steps that MkDocs repeats in full on every build, so a warm build skips them.

The steps are Pygments highlighting of one code block (``pymdownx.highlight.Highlight.highlight``)
and Material's search indexing of one page (``SearchIndex.add_entry_from_context``). Each entry is
keyed by a sha256 of everything the step reads: for a code block its source, language, every
argument and every setting of the highlighter; for a page its HTML, URL, title, metadata, table of
contents and the index's settings. Every key also holds the installed versions of the packages that
do the work and the Pygments plugins they can load, so a hit returns what the step would return
now, byte for byte (the build-speed benchmark fails unless the pages and the search index are the
same as a build without the memo). Not memoised, because their result depends on more than the
key: an inline code span, a block whose title is HTML, and search indexing with jieba installed.
A package installed in editable mode can change without changing its version: after editing one
of those packages, build with the memo off.

The memo is one JSON file in the build cache: a first line with the sha256 of the rest, then the
entries. It is written by a rename, and only the entries this build used are kept. A file that
does not check out is reported and ignored (the build recomputes and writes a good one). Set
``DPGUIDE_RENDER_MEMO=0`` to build without it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
from importlib import metadata
from pathlib import Path

from .cache import atomic_write_text

SCHEMA = 1
ENABLED_VARIABLE = "DPGUIDE_RENDER_MEMO"
_PACKAGES = ("markdown", "pymdown-extensions", "pygments", "mkdocs", "mkdocs-material")
_PLUGIN_GROUPS = ("pygments.lexers", "pygments.styles", "pygments.formatters", "pygments.filters")


def enabled(environ=os.environ) -> bool:
    return environ.get(ENABLED_VARIABLE, "1") != "0"


def software_fingerprint() -> str:
    """The Python version, the versions of the packages behind both steps, and every Pygments plugin."""
    versions = {name: metadata.version(name) for name in _PACKAGES}
    points = metadata.entry_points()
    plugins = {group: sorted((p.name, p.value, p.dist.version if p.dist else "") for p in points.select(group=group))
               for group in _PLUGIN_GROUPS}
    return json.dumps([sys.version, versions, plugins], sort_keys=True)


class RenderMemo:
    """Results of the two steps by key; ``stats`` counts hits and misses per step."""

    def __init__(self, path: Path, report=print, fingerprint: str | None = None):
        self.path = Path(path)
        self.report = report
        self.fingerprint = software_fingerprint() if fingerprint is None else fingerprint
        self.stored = self._read()
        self.used: dict[str, object] = {}
        self.stats = {"highlight": [0, 0], "search": [0, 0]}    # step -> [hits, misses]

    def key(self, step: str, inputs) -> str:
        text = repr((SCHEMA, self.fingerprint, step, inputs))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def recall(self, step: str, inputs, compute):
        """The stored result for ``inputs``, or ``compute()``'s (stored); either way kept for the save."""
        key = self.key(step, inputs)
        if key in self.used:
            result = self.used[key]
            self.stats[step][0] += 1
        elif key in self.stored:
            result = self.used[key] = self.stored[key]
            self.stats[step][0] += 1
        else:
            result = self.used[key] = compute()
            self.stats[step][1] += 1
        return result

    def save(self) -> None:
        """Write the entries this build used, unless the file already holds exactly those (key order
        inside an entry is kept: the search index is written in the order the plugin made it)."""
        if self.used == self.stored:
            return
        body = json.dumps(self.used, ensure_ascii=False, separators=(",", ":"), default=str)
        atomic_write_text(self.path, f"{_digest(body)}\n{body}")

    def summary(self) -> str:
        (hl_hits, hl_misses), (search_hits, search_misses) = self.stats["highlight"], self.stats["search"]
        return (f"render memo: {hl_hits} of {hl_hits + hl_misses} code blocks highlighted and "
                f"{search_hits} of {search_hits + search_misses} pages indexed from {self.path.name}")

    def _read(self) -> dict[str, object]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        digest, _, body = raw.partition("\n")
        try:
            if digest != _digest(body):
                raise ValueError("its checksum does not match its content")
            entries = json.loads(body)
            if not isinstance(entries, dict):
                raise ValueError("it does not hold a mapping")
        except ValueError as exc:
            self.report(f"{self.path}: ignored ({exc}); this build computes every entry again and rewrites it")
            return {}
        return entries


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------- the two steps, wrapped once
_active: RenderMemo | None = None
_originals: dict[str, object] = {}


def activate(memo: RenderMemo | None) -> None:
    """Route both steps through ``memo`` from now on (None: call them plainly)."""
    global _active
    _wrap_steps()
    _active = memo


def _wrap_steps() -> None:
    if _originals:
        return
    from material.plugins.search.plugin import SearchIndex
    from pymdownx.highlight import Highlight

    _originals["highlight"] = highlight = Highlight.highlight
    _originals["search"] = index_page = SearchIndex.add_entry_from_context

    def memo_highlight(self, src, language, *args, **kwargs):
        inline = kwargs.get("inline", args[5] if len(args) > 5 else False)
        # an inline result is an element, and an HTML title (set for the block, or by an auto-title
        # map entry) goes into the converter's stash: not pure
        html_titles = self.title_mode == "html" or (
            self.auto_title and any(isinstance(entry, dict) for entry in self.auto_title_map.values()))
        if _active is None or inline or html_titles:
            return highlight(self, src, language, *args, **kwargs)
        settings = sorted((name, repr(value)) for name, value in vars(self).items() if name != "md")
        return _active.recall("highlight", (src, language, args, sorted(kwargs.items()), settings),
                              lambda: highlight(self, src, language, *args, **kwargs))

    def memo_index_page(self, page):
        # with jieba installed, its version and dictionaries shape the text: not keyed, so not memoised
        if _active is None or sys.modules["material.plugins.search.plugin"].jieba is not None:
            return index_page(self, page)
        inputs = (page.content, page.url, page.title, repr(page.meta), _toc(page.toc),
                  sorted((name, repr(value)) for name, value in self.config.items()))

        computed = []

        def index():
            before = len(self.entries)
            index_page(self, page)
            computed.append(True)
            return self.entries[before:]

        entries = _active.recall("search", inputs, index)
        if not computed:                  # a hit: the entries a fresh indexing would have added
            self.entries.extend(copy.deepcopy(entries))

    Highlight.highlight = memo_highlight
    SearchIndex.add_entry_from_context = memo_index_page


def _toc(items) -> list:
    return [(item.id, item.url, item.title, item.level, _toc(item.children)) for item in items]
