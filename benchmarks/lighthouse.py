"""Lighthouse scores of a built site, mobile profile, served compressed as a static host serves it.

    .venv/bin/mkdocs build --strict -d /tmp/site
    .venv/bin/python benchmarks/lighthouse.py /tmp/site            # the four pages below, one run each
    .venv/bin/python benchmarks/lighthouse.py /tmp/site --runs 3   # the median of three runs a page

Lighthouse (npm, pinned to LIGHTHOUSE below, fetched by npx on first use) drives the Chromium the
browser tests use. Pages are served by a small local server that gzips HTML, CSS, JS and JSON when
the browser asks for it, with a cache header, as a static host does. It prints, per page,
performance, accessibility and best practices (0-100) and the metrics behind performance. The
figures are a measurement, not a test: on a loaded 2-core machine performance moves by tens of
points from run to run, so compare runs made side by side.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

LIGHTHOUSE = "lighthouse@12.2.3"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: the home page, a Learn page with rank tabs, a practice set and the flashcards
PAGES = ("", "learn/ddp/", "practice/ddp/", "flashcards/")
CATEGORIES = ("performance", "accessibility", "best-practices")
METRICS = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
           "cumulative-layout-shift", "speed-index")
COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml"}


class CompressingHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped on the fly for text types when the client accepts gzip."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not path.is_file() or path.suffix not in COMPRESSED or not wants_gzip:
            return super().send_head()
        body = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(CompressingHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def audit(url: str, out: Path) -> dict:
    command = ["npx", "--yes", LIGHTHOUSE, url, "--quiet", "--output=json", f"--output-path={out}",
               "--only-categories=" + ",".join(CATEGORIES), "--form-factor=mobile",
               "--chrome-flags=--headless=new --no-sandbox"]
    done = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse failed on {url} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    report = json.loads(out.read_text())
    scores = {name: round(100 * report["categories"][name]["score"]) for name in CATEGORIES}
    scores.update({name: report["audits"][name]["numericValue"] for name in METRICS})
    scores["benchmark-index"] = report["environment"]["benchmarkIndex"]     # the host's speed, for the record
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a built site (mkdocs build -d DIR)")
    parser.add_argument("--runs", type=int, default=1, help="runs per page; the median is printed")
    args = parser.parse_args()
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site (no index.html)")
    server, base = serve(args.site)
    print(f"Lighthouse {LIGHTHOUSE.split('@')[1]}, mobile profile, Chromium {CHROMIUM}, "
          f"{args.runs} run(s) a page, gzip served locally")
    print(f"{'page':<16}" + "".join(f"{c:>16}" for c in CATEGORIES) + "   FCP ms   LCP ms   TBT ms    CLS")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for page in PAGES:
                runs = [audit(base + page, Path(tmp) / f"run{i}.json") for i in range(args.runs)]
                median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
                print(f"{'/' + page:<16}" + "".join(f"{median[c]:>16.0f}" for c in CATEGORIES)
                      + f" {median['first-contentful-paint']:>8.0f} {median['largest-contentful-paint']:>8.0f}"
                      + f" {median['total-blocking-time']:>8.0f} {median['cumulative-layout-shift']:>6.3f}",
                      flush=True)
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
