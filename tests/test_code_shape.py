"""The engine's shape: no class over 200 lines and no function over 80 in src/dpguide, and no module
that imports, at its top, a module that imports it back (the house has no circles).

Lines are counted from a definition's first line to its last, decorators aside, as the AST gives
them. A function-level import is not counted as an edge: it is how a module reaches an optional
or heavy dependency only when asked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.unit

PACKAGE = ROOT / "src" / "dpguide"
MAX_CLASS_LINES = 200
MAX_FUNCTION_LINES = 80


def oversized(source: str, where: str) -> list[str]:
    """'where:line: class X is N lines (limit L)' for each class or function over its limit."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            kind, limit = "class", MAX_CLASS_LINES
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind, limit = "function", MAX_FUNCTION_LINES
        else:
            continue
        lines = node.end_lineno - node.lineno + 1
        if lines > limit:
            found.append(f"{where}:{node.lineno}: {kind} {node.name} is {lines} lines (limit {limit})")
    return found


def module_imports(path: Path) -> set[str]:
    """The package's modules that ``path`` imports at its top level (relative imports), by name."""
    package = ["dpguide"] + list(path.relative_to(PACKAGE).parent.parts)
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)]
            if node.module:
                found.add(".".join(base + [node.module]))
            else:       # from . import results: each name is a module
                found |= {".".join(base + [alias.name]) for alias in node.names}
    return found


def module_name(path: Path) -> str:
    parts = ["dpguide"] + list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import circle found by a depth-first walk, as the modules along it."""
    state: dict[str, str] = {}
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        name = path[-1]
        state[name] = "open"
        for target in sorted(graph.get(name, ())):
            if state.get(target) == "open":
                found.append(path[path.index(target):] + [target])
            elif target in graph and target not in state:
                walk(path + [target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            walk([name])
    return found


def test_no_class_over_200_lines_and_no_function_over_80():
    problems = [problem for path in sorted(PACKAGE.rglob("*.py"))
                for problem in oversized(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert problems == [], "split these into smaller named pieces:\n" + "\n".join(problems)


def test_the_size_check_sees_a_long_function_and_a_long_class():
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    assert oversized(f"def short():\n{body[:-12]}\n", "a.py") == []
    assert oversized(f"def long():\n{body}\n", "a.py") == ["a.py:1: function long is 81 lines (limit 80)"]
    methods = "\n".join(f"    def m{i}(self):\n        return {i}\n" for i in range(67))
    assert oversized(f"class Big:\n{methods}", "b.py") == ["b.py:1: class Big is 201 lines (limit 200)"]


def test_no_module_of_the_engine_imports_one_that_imports_it_back():
    graph = {module_name(path): module_imports(path) for path in sorted(PACKAGE.rglob("*.py"))}
    assert len(graph) > 40 and "dpguide.results" in graph["dpguide.site"]     # the walk sees the real edges
    assert cycles(graph) == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles(graph))


def test_the_circle_check_sees_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
