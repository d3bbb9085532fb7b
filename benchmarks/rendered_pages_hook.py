"""MkDocs hook used only by the build-speed benchmark: keep the pages as the dpguide hook left them.

Listed after ``hooks/execute.py`` (in a config that inherits the site's), it writes each page's
Markdown, outputs and widgets included, and each executed notebook into the folder named by
``DPGUIDE_RENDERED_PAGES``, at the page's path. A copy of the site with these pages, built with
the hooks disabled, is the "content floor": what MkDocs alone costs to show the same outputs.
"""

import os
import shutil
from pathlib import Path

import yaml

from mkdocs.plugins import event_priority

_TARGET = Path(os.environ["DPGUIDE_RENDERED_PAGES"])


@event_priority(-100)           # after the dpguide hook has pointed each notebook at its executed copy
def on_files(files, config):
    for file in files:
        if file.src_uri.endswith(".ipynb"):
            _write(file.src_uri, lambda target: shutil.copyfile(file.abs_src_path, target))
    return files


@event_priority(-100)           # after the dpguide hook has put the outputs in
def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.endswith(".md"):     # a notebook page is rendered from its file (on_files)
        front = f"---\n{yaml.safe_dump(page.meta)}---\n\n" if page.meta else ""
        _write(page.file.src_uri, lambda target: target.write_text(front + markdown, encoding="utf-8"))
    return markdown


def _write(src_uri: str, write) -> None:
    target = _TARGET / src_uri
    target.parent.mkdir(parents=True, exist_ok=True)
    write(target)
