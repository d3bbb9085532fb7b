"""Helper for the Contribute page: build a throwaway one-page site and print the engine's verdict."""

import tempfile
import textwrap
from pathlib import Path

from dpguide.engine import Engine
from dpguide.errors import GuideError


def include(name: str) -> str:
    """An include line for a throwaway page (built here so this file holds no include line itself)."""
    return "--8" + '<-- "' + name + '"'


def show(page: str, snippets: dict[str, str] | None = None) -> None:
    """Write ``page`` (and snippets) into a temporary docs tree, run it, print what the build says."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, code in (snippets or {}).items():
            path = root / "docs" / "snippets" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(code).lstrip())
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / "lesson.md").write_text(textwrap.dedent(page).lstrip())
        engine = Engine(root, cache_dir=root / "cache", log=lambda message: None)
        try:
            engine.run(engine.collect())
            print("the build accepts it")
        except GuideError as error:
            print(str(error).replace(tmp, "<tmp>"))
