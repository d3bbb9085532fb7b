"""A minimal MkDocs site in a temporary directory that uses the project's hook (for build tests)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import ROOT

CONFIG = """
site_name: test site
strict: true
theme:
  name: material
  font: false
hooks:
  - {hook}
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          class: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
  - pymdownx.tabbed:
      alternate_style: true
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
  - pymdownx.snippets:
      base_path: [docs/snippets]
      check_paths: true
"""


def make_site(root: Path, pages: dict[str, str], snippets: dict[str, str] = {}) -> Path:
    (root / "docs" / "snippets").mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text(CONFIG.format(hook=ROOT / "hooks" / "execute.py"))
    for name, text in pages.items():
        (root / "docs" / name).write_text(textwrap.dedent(text).lstrip("\n"))
    for name, text in snippets.items():
        path = root / "docs" / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def mkdocs_command(root: Path) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
            "-d", str(root / "site")]


def build(root: Path, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    return subprocess.run(mkdocs_command(root), capture_output=True, text=True, timeout=timeout, env=env, cwd=root)


@contextlib.contextmanager
def served_site_with_scripts(root: Path, pages: dict[str, str]):
    """Build a mini site that also loads the project's dpguide.js, serve it, yield its URL."""
    from sitecheck import serve

    root = make_site(root, pages)
    (root / "docs" / "javascripts").mkdir()
    shutil.copy(ROOT / "docs" / "javascripts" / "dpguide.js", root / "docs" / "javascripts")
    # dpguide.js fetches the vendored scheduler and Mermaid from beside itself when a page needs them
    shutil.copytree(ROOT / "docs" / "javascripts" / "vendor", root / "docs" / "javascripts" / "vendor")
    with open(root / "mkdocs.yml", "a") as config:
        config.write("extra_javascript:\n  - javascripts/dpguide.js\n")
    done = build(root)
    assert done.returncode == 0, done.stdout + done.stderr
    with serve(root / "site") as url:
        yield url
