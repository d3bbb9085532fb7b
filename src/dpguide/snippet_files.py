"""Snippet files under docs/snippets/: their ``#|`` header, named sections and local imports.

A snippet starts with optional header lines such as::

    #| run: torchrun --standalone --nproc-per-node=2 ddp_shape.py
    #| timeout: 60

and may be cut into sections with ``# --8<-- [start:name]`` / ``# --8<-- [end:name]``
(the markers pymdownx.snippets understands), so a page can show one part while
the whole file runs.

The header is the engine's, not the reader's: the file runs without it, a page
shows the file from the first line after it, and the download leaves it out, so
the line numbers of a traceback match the code a reader sees. Every other line
fits a code box: at most ``LINE_LIMIT`` characters.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .options import raise_error, options_from_command

#: the longest line a snippet may have: what a code box shows on a desktop screen without wrapping
LINE_LIMIT = 100

_HEADER = re.compile(r"^#\|\s*([A-Za-z][\w-]*)\s*:\s*(.*?)\s*$")
_SECTION = re.compile(r"^\s*#\s*-{1,}8<-{1,}\s*\[(start|end):([\w.-]+)\]\s*$")


@dataclass(frozen=True)
class SnippetFile:
    relpath: str        # relative to the snippets directory, posix style
    path: Path
    text: str
    header: dict        # option attributes from the header
    sections: frozenset
    header_lines: int = 0   # how many '#|' lines open the file

    @property
    def body(self) -> str:
        """The file as it runs, is shown and is downloaded: without its header lines."""
        return "".join(self.text.splitlines(keepends=True)[self.header_lines:])

    @property
    def display_path(self) -> str:
        return f"docs/snippets/{self.relpath}"


def read_snippet(snippets_dir: Path, relpath: str, display: str | None = None) -> SnippetFile:
    path = snippets_dir / relpath
    text = path.read_text(encoding="utf-8")
    where_name = display or f"docs/snippets/{relpath}"
    header: dict[str, str] = {}
    in_header = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("#|"):
            in_header = False
            continue
        match = _HEADER.match(line)
        if not match:
            raise_error((where_name, number), f"malformed snippet header line {line!r}",
                        "write header lines as '#| key: value', e.g. '#| run: python example.py'")
        if not in_header:
            raise_error((where_name, number), "snippet header lines ('#| ...') must come first in the file",
                        "move this line to the top, above the docstring and the code")
        key, value = match[1], match[2]
        if key == "run":
            attrs = options_from_command(value, (where_name, number))
            name = next((word for word in value.split()[1:] if word.endswith(".py")), "")
            if name != path.name:
                raise_error((where_name, number), f"the run command names {name!r} but the file is {path.name!r}",
                            f"name {path.name} in the command (its arguments, if any, follow it)")
            header.update(attrs)
        else:
            header[key] = value
        header.setdefault("__line__", str(number))
    header_lines = sum(1 for _ in _leading_header(text))
    for number, line in enumerate(text.splitlines(), start=1):
        if number > header_lines and len(line) > LINE_LIMIT:
            raise_error((where_name, number), f"this line is {len(line)} characters long; the limit is {LINE_LIMIT}, "
                        "what a code box shows without wrapping",
                        "break the statement inside its brackets, or move a trailing comment to a line of its own")
    sections = set()
    open_sections: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SECTION.match(line)
        if match:
            kind, name = match[1], match[2]
            if kind == "start":
                open_sections[name] = number
                sections.add(name)
            elif name not in open_sections:
                raise_error((where_name, number), f"section end {name!r} has no start",
                            f"add '# --8<-- [start:{name}]' above it")
            else:
                open_sections.pop(name)
    if open_sections:
        name, number = next(iter(open_sections.items()))
        raise_error((where_name, number), f"section {name!r} is never ended", f"add '# --8<-- [end:{name}]'")
    return SnippetFile(relpath, path, text, header, frozenset(sections), header_lines)


def _leading_header(text: str):
    for line in text.splitlines():
        if not line.startswith("#|"):
            return
        yield line


ENGINE_PACKAGE = "dpguide"
#: the dependency a snippet that imports the engine gets in its cache key (not a file of the snippets)
ENGINE_DEP = "<dpguide engine sources>"


@functools.lru_cache(maxsize=1)
def engine_source_digest() -> str:
    """sha256 over the engine's own source files: what a snippet that imports it (the Contribute
    page's examples of the build's messages) prints changes when any of them changes."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def local_imports(snippets_dir: Path, relpath: str) -> dict[str, str]:
    """Snippet files a snippet imports (directly or not), with their sha256, for the cache key.

    Memoised on the stamps of every .py file that an import can reach (the snippet's folder and
    the folders below it): a build asks twice per block (run, then render).
    """
    folder = (snippets_dir / relpath).parent
    stamps = _folder_stamps(folder)
    if not _import_words((snippets_dir / relpath).read_text(encoding="utf-8")) & _importable_names(folder, stamps):
        return {}   # most snippets: no name that could import a snippet file, so no parse on every build
    return dict(_local_imports_cached(str(snippets_dir), relpath, stamps))


def _folder_stamps(folder: Path) -> tuple:
    """(path, mtime, size) of every .py file in ``folder`` and below: what an import can reach."""
    return tuple(sorted((p.as_posix(), st.st_mtime_ns, st.st_size) for p in folder.rglob("*.py") for st in [p.stat()]))


def _importable_names(folder: Path, stamps: tuple) -> set[str]:
    """The first part of every module name an import in ``folder`` could resolve to a snippet file
    (``helper`` for helper.py, ``pkg`` for pkg/x.py), and the engine's package."""
    names = {ENGINE_PACKAGE}
    for path, _, _ in stamps:
        first = Path(path).relative_to(folder).parts[0]
        names.add(first[:-3] if first.endswith(".py") else first)
    return names


@functools.lru_cache(maxsize=1024)
def _local_imports_cached(snippets_dir: str, relpath: str, stamps: tuple) -> tuple:
    return tuple(sorted(_local_imports(Path(snippets_dir), relpath, set()).items()))


def _import_words(text: str) -> set[str]:
    """Every word on a line that holds ``import`` (or continues one with a backslash): a superset of
    the module names the code imports, read without parsing it."""
    words: set[str] = set()
    continued = False
    for line in text.splitlines():
        if continued or "import" in line:
            words.update(re.findall(r"[A-Za-z_]\w*", line))
        continued = line.rstrip().endswith("\\")
    return words


def _local_imports(snippets_dir: Path, relpath: str, seen: set[str]) -> dict[str, str]:
    seen.add(relpath)
    path = snippets_dir / relpath
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return {}
    found: dict[str, str] = {}
    folder = path.parent
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from pkg import inner` may import the submodule pkg/inner.py
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
        for name in names:
            parts = name.split(".")
            if parts[0] == ENGINE_PACKAGE:  # a snippet that runs the engine: its output follows the engine's code
                found[ENGINE_DEP] = engine_source_digest()
                continue
            for candidate in _module_files(folder, parts):
                if candidate.is_file():
                    dep = candidate.relative_to(snippets_dir).as_posix()
                    if dep not in seen:
                        found[dep] = hashlib.sha256(candidate.read_bytes()).hexdigest()
                        found.update(_local_imports(snippets_dir, dep, seen))
    return found


def _module_files(folder: Path, parts: list[str]) -> list[Path]:
    """The files importing the dotted name ``parts`` from ``folder`` may run: the ``__init__.py`` of
    each package on the way (``import pkg.inner`` runs pkg/__init__.py first), then the module."""
    packages = [folder.joinpath(*parts[:depth], "__init__.py") for depth in range(1, len(parts))]
    return packages + [folder.joinpath(*parts).with_suffix(".py"), folder.joinpath(*parts, "__init__.py")]
