"""Helper for the Contribute page: build a throwaway one-page site and print the engine's verdict.
"""

import tempfile
import textwrap
from pathlib import Path

from dpguide.engine import Engine
from dpguide.errors import GuideError


def include(name: str) -> str:
    """An include line for a throwaway page (built here so this file holds no include line itself).
    """
    return "--8" + '<-- "' + name + '"'


def _write_site(root: Path, page: str, snippets: dict[str, str] | None) -> None:
    for name, code in (snippets or {}).items():
        path = root / "docs" / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip())
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "lesson.md").write_text(textwrap.dedent(page).lstrip())


def show(page: str, snippets: dict[str, str] | None = None) -> None:
    """Write ``page`` (and snippets) into a temporary docs tree, run it, print what the build says.
    """
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_site(root, page, snippets)
        engine = Engine(root, cache_dir=root / "cache", log=lambda message: None)
        try:
            engine.run(engine.collect())
            print("the build accepts it")
        except GuideError as error:
            print(str(error).replace(tmp, "<tmp>"))


def show_output(page: str, snippets: dict[str, str] | None = None) -> None:
    """Like ``show`` for a block that passes: print the build log and the page's output section."""
    from dpguide.render import output_tabs

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_site(root, page, snippets)
        engine = Engine(root, cache_dir=root / "cache",
                        log=lambda message: print(message.replace(tmp, "<tmp>")))
        blocks = engine.collect()
        engine.run(blocks)
        print("--- what the page shows under the block:")
        print("\n".join(output_tabs(engine.result_for(blocks[0]))))
