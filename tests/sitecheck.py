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
import urllib.error
import urllib.request
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


def split_across_browsers(browser, urls: list[str], visit, browsers: int = 2) -> list:
    """``visit(a_browser, some_urls)`` for ``browsers`` interleaved shares of ``urls``, side by side.

    The first share runs here on ``browser``; each other share gets a Chromium of its own, started,
    used and closed inside its own thread (Playwright's sync API belongs to the thread that started
    it). A page's checks run on one core of its renderer, so on a machine with two cores two
    browsers take about two thirds of the time of one. Returns the visits' results in share order;
    an exception in any share is raised here once every share has ended.
    """
    browsers = max(1, min(browsers, len(urls)))   # no Chromium started for an empty share
    shares = [urls[i::browsers] for i in range(browsers)]
    results: list = [None] * browsers
    errors: list[BaseException] = []

    def visit_in_own_browser(index: int) -> None:
        try:
            with launch_chromium() as own:
                results[index] = visit(own, shares[index])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=visit_in_own_browser, args=(i,), name=f"browser-share-{i}")
               for i in range(1, browsers)]
    for thread in threads:
        thread.start()
    try:
        results[0] = visit(browser, shares[0])
    finally:
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return results


# how a browser reports a request it dropped itself (a navigation away, a stopped load), not a server's answer
ABORTED_ERRORS = ("net::ERR_ABORTED", "NS_BINDING_ABORTED")


def fetch_problem(url: str, timeout: float = 10) -> str | None:
    """Why fetching ``url`` directly fails (an error, or HTTP >= 400); None if it is served."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return None if response.status < 400 else f"HTTP {response.status}"
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"


def is_local(url: str) -> bool:
    return url.startswith(("data:", "blob:")) or urlparse(url).hostname in ("127.0.0.1", "localhost")


def watched_page(context):
    """A page that records console errors, page errors, failed and off-site requests in page.problems.

    A response with status >= 400 is always a problem. A local request the browser aborted itself
    (net::ERR_ABORTED: the test's next page.goto() cut it off, as it does a late favicon request) is
    fetched again directly and is a problem only if that fetch fails or answers >= 400; any other
    failed request is a problem at once.
    """
    page = context.new_page()
    page.problems = []
    aborted: set[str] = set()            # outside requests the route below refused (already reported)
    started_on: dict[object, str] = {}   # request -> the page it started on (page.url moves on at a navigation)

    def on_console(message):
        if message.type == "error":
            page.problems.append(f"{page.url}: console error: {message.text}")

    def route(route_, request):
        if is_local(request.url):
            return route_.continue_()
        page.problems.append(f"{page.url}: request to an outside address {request.url} (the site must work offline)")
        aborted.add(request.url)
        return route_.abort()

    def on_request_failed(request):
        where = started_on.pop(request, page.url)
        if request.url in aborted:
            return
        failure = request.failure or "unknown error"
        if failure in ABORTED_ERRORS and is_local(request.url):
            why = None if request.url.startswith(("data:", "blob:")) else fetch_problem(request.url)
            if why:
                page.problems.append(f"{where}: request failed: {request.url} ({failure}); fetched again: {why}")
            return
        page.problems.append(f"{where}: request failed: {request.url} ({failure})")

    def on_response(response):
        if response.status >= 400:
            page.problems.append(f"{started_on.get(response.request, page.url)}: HTTP {response.status} "
                                 f"for {response.url}")

    def on_request(request):
        started_on[request] = request.url if request.is_navigation_request() else page.url

    page.on("console", on_console)
    page.on("pageerror", lambda error: page.problems.append(f"{page.url}: script error: {error}"))
    page.on("request", on_request)
    page.on("requestfinished", lambda request: started_on.pop(request, None))
    page.on("requestfailed", on_request_failed)
    page.on("response", on_response)
    page.route("**/*", route)
    return page


def axe_problems(page, levels=("serious", "critical"), rules: tuple[str, ...] = ()) -> list[str]:
    """axe's findings of these impact levels on the page as it is now (only ``rules``, if given)."""
    from axe_playwright_python.sync_playwright import Axe

    # details of violations only: listing every passing node too doubles axe's time on a long page
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    results = Axe().run(page, options=options)
    problems = []
    for violation in results.response.get("violations", []):
        if violation.get("impact") in levels:
            for node in violation.get("nodes", []):
                problems.append(f"{page.url}: axe {violation['impact']} {violation['id']} "
                                f"({violation['help']}) at {' '.join(map(str, node.get('target', [])))}: "
                                f"{node.get('html', '')[:160]}")
    return problems


def overflow_problem(page) -> str | None:
    """The page scrolls sideways, or one of its tables does (Material wraps each table in a scrolling
    box: a reader on a phone does not see the end of a row, and nothing says there is more)."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if width[0] > width[1] + 1:
        return f"{page.url}: page body scrolls horizontally ({width[0]}px wide in a {width[1]}px viewport)"
    tables = page.evaluate("""() => [...document.querySelectorAll('.md-typeset__scrollwrap')]
        .filter(w => w.scrollWidth > w.clientWidth + 1)
        .map(w => [w.scrollWidth, w.clientWidth, (w.querySelector('th, td') || w).innerText.slice(0, 40)])""")
    if tables:
        wide, column, first = tables[0]
        return (f"{page.url}: {len(tables)} table(s) scroll sideways, the first ({first!r}...) "
                f"{wide}px wide in a {column}px column")
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


def visit_each(browser, urls, context_options: dict, look) -> dict:
    """``{url: look(page, url)}`` for every url, visited in turn in one watched page of a new context."""
    context = browser.new_context(**context_options)
    page = watched_page(context)
    found = {}
    for url in urls:
        page.goto(url)
        found[url] = look(page, url)
    context.close()
    return found
