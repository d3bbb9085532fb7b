"""MkDocs hooks: run every code block of the site with the dpguide engine and render its real output.

Thin by design: each entry point calls the engine (``dpguide.site``), which is
tested without MkDocs, and ``dpguide.render_memo``, which lets a warm build reuse
MkDocs' own highlighting and search indexing. Set DPGUIDE_DISABLE=1 to build the
plain site (used by the build-speed benchmark as its floor).
"""

import logging
import os
import signal
import threading
from pathlib import Path

from mkdocs.exceptions import PluginError

from dpguide import render_memo
from dpguide.errors import GuideError
from dpguide.site import SiteBuild

DISABLED = os.environ.get("DPGUIDE_DISABLE") == "1"
_build: SiteBuild | None = None
_memo: render_memo.RenderMemo | None = None
_log = logging.getLogger("mkdocs.plugins.dpguide")


def on_config(config):
    global _build, _memo
    if DISABLED:
        return config
    root = Path(config["config_file_path"]).parent
    for script in config["extra_javascript"]:
        if "vendor/" in str(script) and not (Path(config["docs_dir"]) / str(script)).is_file():
            raise PluginError(f"mkdocs.yml: extra_javascript {script} is missing; fetch it with "
                              "`.venv/bin/python tools/vendor_js.py` (part of the README install)")
    _build = SiteBuild(root, docs_dir=Path(config["docs_dir"]))
    _memo = (render_memo.RenderMemo(_build.engine.cache.directory / "render-memo.json", report=_log.info)
             if render_memo.enabled() else None)
    render_memo.activate(_memo)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    return config


def on_files(files, config):
    if _build is None:
        return files
    pages = {f.src_uri: Path(f.abs_src_path).read_text(encoding="utf-8")
             for f in files.documentation_pages() if f.src_uri.endswith(".md")}
    notebooks = {f.src_uri: Path(f.abs_src_path) for f in files if f.src_uri.endswith(".ipynb")}
    try:
        _build.execute(pages, notebooks)
        for src_uri, executed in _build.execute_notebooks(notebooks).items():
            files.get_file_from_path(src_uri).abs_src_path = str(executed)   # mkdocs-jupyter renders this copy
        snippets = {f.src_uri: Path(f.abs_src_path) for f in files
                    if f.src_uri.startswith("snippets/") and f.src_uri.endswith(".py")}
        for src_uri, download in _build.snippet_downloads(snippets).items():
            files.get_file_from_path(src_uri).abs_src_path = str(download)   # served without the header
    except GuideError as exc:
        raise PluginError(str(exc)) from None
    return files


def on_page_markdown(markdown, page, config, files):
    if _build is None or not page.file.src_uri.endswith(".md"):
        return markdown     # mkdocs-jupyter renders a notebook page from its (executed) file, not this text
    try:
        return _build.render_page(page.file.src_uri, markdown, link_for=_link_resolver(page, files))
    except GuideError as exc:
        raise PluginError(str(exc)) from None


def _link_resolver(page, files):
    """Turn a docs-relative page path (``learn/ddp.md``) into a URL relative to ``page``; fail if missing."""
    from mkdocs.utils import get_relative_url

    def link_for(target: str) -> str:
        path, _, anchor = target.partition("#")
        file = files.get_file_from_path(path)
        if file is None:
            raise GuideError(f"{page.file.src_uri}: a card links to {target!r}, which is not a page of the site")
        return get_relative_url(file.url, page.url) + (f"#{anchor}" if anchor else "")

    return link_for


def on_post_build(config):
    if _build is not None:
        _build.report_links()
    if _memo is not None:
        _memo.save()
        _log.info(_memo.summary())


def on_build_error(error):
    render_memo.activate(None)      # the stored memo stays as it was
    if _build is not None:
        _build.engine.abort()


def _terminate(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")
