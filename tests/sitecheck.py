"""Browser-side checks of the built site: serving it, Chromium, console, axe, links, overflow.

Each check returns a list of problems, each naming the page and the element,
so a failing test says exactly what broke.
"""

from __future__ import annotations

import contextlib
import functools
import html.parser
import http.server
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextlib.contextmanager
def serve(directory: Path):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def launch_chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError("Chromium not found at /usr/bin/chromium: install it with `apt-get install -y chromium` "
                           "(the README's install step does)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def watched_page(context):
    """A page that records console errors, page errors, failed and off-site requests in page.problems."""
    page = context.new_page()
    page.problems = []
    aborted: set[str] = set()

    def on_console(message):
        if message.type == "error":
            page.problems.append(f"{page.url}: console error: {message.text}")

    def route(route_, request):
        host = urlparse(request.url).hostname
        if request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            return route_.continue_()
        page.problems.append(f"{page.url}: request to an outside address {request.url} (the site must work offline)")
        aborted.add(request.url)
        return route_.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda error: page.problems.append(f"{page.url}: script error: {error}"))
    page.on("requestfailed", lambda request: None if request.url in aborted else page.problems.append(
        f"{page.url}: request failed: {request.url}"))
    page.on("response", lambda response: page.problems.append(f"{page.url}: HTTP {response.status} for {response.url}")
            if response.status >= 400 else None)
    page.route("**/*", route)
    return page


def axe_problems(page, levels=("serious", "critical")) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    problems = []
    for violation in results.response.get("violations", []):
        if violation.get("impact") in levels:
            for node in violation.get("nodes", []):
                problems.append(f"{page.url}: axe {violation['impact']} {violation['id']} "
                                f"({violation['help']}) at {' '.join(map(str, node.get('target', [])))}: "
                                f"{node.get('html', '')[:160]}")
    return problems


def overflow_problem(page) -> str | None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if width[0] > width[1] + 1:
        return f"{page.url}: page body scrolls horizontally ({width[0]}px wide in a {width[1]}px viewport)"
    return None


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str]] = []   # (href, element description)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and tag in ("a", "link", "script", "img"):
                text = attrs.get("title") or attrs.get("aria-label") or ""
                self.links.append((attrs[key], f"<{tag} {key}=\"{attrs[key]}\"{' ' + text if text else ''}>"))


def link_report(site: Path) -> tuple[list[str], list[str]]:
    """(problems, external links) for every page of a built site, without fetching anything outside."""
    pages = {}
    for path in site.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path] = parser
    problems, external = [], set()
    for path, parser in sorted(pages.items()):
        base = "file://" + path.as_posix()
        for href, element in parser.links:
            if href.startswith(("mailto:", "javascript:", "data:")):
                continue
            parsed = urlparse(href)
            if parsed.scheme in ("http", "https"):
                if parsed.hostname not in ("127.0.0.1", "localhost"):
                    external.add(href)
                continue
            # root-relative links (the 404 page uses them) resolve against the site's root
            target = urlparse(urljoin("file://" + site.as_posix() + "/", href.lstrip("/")) if href.startswith("/")
                              else urljoin(base, href))
            file = Path(unquote(target.path))
            if file.is_dir() or href.endswith("/"):
                file = file / "index.html"
            page_name = path.relative_to(site).as_posix()
            if not file.exists():
                problems.append(f"{page_name}: broken link {element} -> {file.relative_to(site) if site in file.parents else file}")
                continue
            if target.fragment and file.suffix == ".html":
                ids = pages[file].ids if file in pages else set()
                if unquote(target.fragment) not in ids:
                    problems.append(f"{page_name}: link {element} points to a missing anchor #{target.fragment}")
    return problems, sorted(external)


def page_urls(site: Path, base_url: str) -> list[str]:
    urls = []
    for path in sorted(site.rglob("index.html")):
        relative = path.relative_to(site).parent.as_posix()
        if relative.startswith(("assets", "search", "snippets")):
            continue
        urls.append(base_url + ("" if relative == "." else relative + "/"))
    return urls
