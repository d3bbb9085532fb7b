"""Which pages of a built site already passed a whole-site browser check, so an unchanged page is not checked again.

A browser check of a page (console, axe, overflow at phone width) sees only what the browser loads:
the page's HTML and the site's other files (CSS, JavaScript, fonts, the search index), in this
Chromium, driven by this check code. A page passes again if all of those are byte for byte the
same, so a test run reuses its pass; any change to any of them checks the page again. Only passes
are kept: a page with a problem is checked on every run. A fresh clone (CI) has none and checks
every page. Set DPGUIDE_RECHECK_PAGES=1 to check every page anyway.

The record is one JSON file per check under .cache/dpguide/browser-checks/, written atomically (two
test runs at once may each drop the other's newest passes, which only costs a re-check).
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

from dpguide.cache import atomic_write_text

RECORDS = Path(__file__).resolve().parents[1] / ".cache" / "dpguide" / "browser-checks"
#: check -> (pages reused, pages in all) in this test run, for the summary at its end (conftest.py)
REUSED: dict[str, tuple[int, int]] = {}


class PassedPages:
    def __init__(self, check: str, site: Path, site_url: str, check_code: list[Path], chromium: str):
        self.site, self.site_url = site, site_url
        self.check, self.file = check, RECORDS / f"{check}.json"
        shared = hashlib.sha256(check.encode())
        for path in check_code:
            shared.update(path.read_bytes())
        for package in ("playwright", "axe-playwright-python"):
            shared.update(f"{package}=={metadata.version(package)}".encode())
        chromium_file = Path(chromium).resolve()
        shared.update(f"{chromium_file}:{chromium_file.stat().st_size}:{chromium_file.stat().st_mtime_ns}".encode())
        for path in sorted(p for p in site.rglob("*") if p.is_file() and p.suffix != ".html"):
            shared.update(path.relative_to(site).as_posix().encode() + b"\0" + path.read_bytes())
        self.shared = shared.hexdigest()
        self._keys: dict[str, str] = {}        # url -> key, each page's HTML read once

    def key(self, url: str) -> str:
        if url not in self._keys:
            html = self.site / url[len(self.site_url):] / "index.html"
            self._keys[url] = hashlib.sha256(self.shared.encode() + html.read_bytes()).hexdigest()
        return self._keys[url]

    def _passed(self) -> dict[str, str]:
        if os.environ.get("DPGUIDE_RECHECK_PAGES") == "1":
            return {}
        try:
            return json.loads(self.file.read_text())
        except (FileNotFoundError, ValueError):
            return {}

    def to_check(self, urls: list[str]) -> list[str]:
        """The pages of ``urls`` that have not passed this check as they are now."""
        passed = self._passed()
        todo = [url for url in urls if passed.get(url[len(self.site_url):]) != self.key(url)]
        REUSED[self.check] = (len(urls) - len(todo), len(urls))
        return todo

    def record(self, urls: list[str]) -> None:
        """Note that ``urls`` (as they are now) passed."""
        passed = self._passed()
        passed.update({url[len(self.site_url):]: self.key(url) for url in urls})
        atomic_write_text(self.file, json.dumps(passed, indent=0, sort_keys=True))
