"""Files the build serves in place of the ones in docs/: snippet downloads and linked notebooks.

Each is written under the cache by a rename, and only when its content differs, so two builds at once
never see half a file and an unchanged file keeps its time stamp.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from .cache import atomic_write_text
from .claims import PageClaimRenderer, cell_text
from .snippet_files import read_snippet


def write_if_changed(path: Path, text: str) -> Path:
    """Make ``path`` hold ``text``: written only when it differs, by a rename (never half a file)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return path


def snippet_downloads(folder: Path, snippets: dict[str, Path]) -> dict[str, Path]:
    """What the site serves for each snippet file with engine header lines: the file without them,
    under ``folder``, so the download is exactly the code a page shows."""
    served = {}
    for uri, path in sorted(snippets.items()):
        # checked as any snippet is (header, sections, line length), from the file the front end found
        snippet = read_snippet(path.parent, path.name, display=f"docs/{uri}")
        if snippet.header_lines:
            served[uri] = write_if_changed(folder / uri, snippet.body)
    return served


def linked_notebook(executed: Path, renderer_for: Callable[[list[dict]], PageClaimRenderer],
                    copy: Path) -> tuple[Path, int]:
    """``executed`` with the torch names of its Markdown cells linked by the renderer made for its cells,
    and how many were linked: the executed notebook itself when there is nothing to link, else ``copy``."""
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    renderer = renderer_for(notebook["cells"])
    for cell in notebook["cells"]:
        if cell.get("cell_type") == "markdown":
            cell["source"] = renderer.prose(cell_text(cell))
    if not renderer.linked:
        return executed, 0
    return write_if_changed(copy, json.dumps(notebook, ensure_ascii=False, indent=1) + "\n"), renderer.linked
