"""Resolving a fenced block into a runnable block: its options, code, files and cache key."""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import ENGINE_VERSION
from .errors import AuthoringError
from .markdown_blocks import FencedBlock, find_blocks
from .options import BlockOptions, apply_options, raise_error
from .snippet_files import ENGINE_DEP, SnippetFile, local_imports, read_snippet

INLINE_SCRIPT = "block.py"


@dataclass
class Block:
    fenced: FencedBlock
    options: BlockOptions
    script: str                      # path of the script inside the scratch directory
    files: dict[str, bytes]
    snippet: SnippetFile | None
    deps: dict[str, str] = field(default_factory=dict)
    key: str = ""
    role: tuple = ()                 # (question id, "answer" | "option-N") for runs behind a quiz

    @property
    def page(self) -> str:
        return self.fenced.page

    @property
    def line(self) -> int:
        return self.fenced.line

    @property
    def label(self) -> str:
        where = f"{self.page}:{self.line}"
        if self.role:
            kind = "deck" if self.role[1].startswith("card-") else "question"
            return f"{where} ({kind} {self.role[0]}, {self.role[1]})"
        return f"{where} ({self.snippet.display_path})" if self.snippet else where

    @property
    def identity(self) -> str:
        """Stable name across edits of the code (used for GPU records and timings)."""
        if self.role:
            return f"quiz-{self.role[0]}-{self.role[1]}"
        if self.snippet:
            opts = self.options
            return f"{self.snippet.relpath}@{opts.launch}" + (f"-{opts.nproc}x{opts.nnodes}" if opts.nproc else "")
        return f"{self.page}:{self.line}"

    @property
    def reader_command(self) -> str:
        return self.options.reader_command(Path(self.script).name)

    @property
    def code(self) -> bytes:
        return self.files[self.script]


def compute_key(block: Block, environment: dict) -> str:
    payload = {
        "engine": ENGINE_VERSION,
        "script": block.script,
        "code": hashlib.sha256(block.code).hexdigest(),
        "deps": block.deps,
        "launch": block.options.launch_key(),
        "environment": environment,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def resolve(fenced: FencedBlock, snippets_dir: Path, environment: dict) -> Block:
    """Turn a fence into a Block, or raise AuthoringError naming the page line and the fix."""
    snippet = None
    base = BlockOptions()
    if fenced.include:
        target = snippets_dir / fenced.include
        if not target.is_file():
            raise_error((fenced.page, fenced.line + 1), f"included snippet {fenced.include!r} does not exist",
                        f"create docs/snippets/{fenced.include} or fix the path (it is relative to docs/snippets/)")
        snippet = read_snippet(snippets_dir, fenced.include)
        if fenced.section and fenced.section not in snippet.sections:
            raise_error((fenced.page, fenced.line + 1),
                        f"snippet {fenced.include!r} has no section {fenced.section!r}",
                        "sections there: " + (", ".join(sorted(snippet.sections)) or "none") +
                        f"; mark one with '# --8<-- [start:{fenced.section}]' ... '# --8<-- [end:{fenced.section}]'")
        header = {k: v for k, v in snippet.header.items() if k != "__line__"}
        header_where = (snippet.display_path, int(snippet.header.get("__line__", 1)))
        base = apply_options(base, header, header_where)
        files = {fenced.include: snippet.body.encode()}
        deps = local_imports(snippets_dir, fenced.include)
        for dep in deps:   # laid out as it is served: without an engine header
            if dep != ENGINE_DEP:
                files[dep] = read_snippet(snippets_dir, dep).body.encode()
        script = fenced.include
    else:
        files = {INLINE_SCRIPT: (fenced.body + "\n").encode()}
        deps = {}
        script = INLINE_SCRIPT
    options = apply_options(base, fenced.attrs, fenced.where)
    code = files[script].decode()

    def where(line: int) -> tuple[str, int]:     # a line of the code, as the author's file numbers it
        return ((snippet.display_path, snippet.header_lines + line) if snippet
                else (fenced.page, fenced.line_of(line)))

    if not options.fresh:
        line = setting_before_torch(code)
        if line:
            raise_error(where(line), "the block sets an environment variable before importing torch, but it "
                        "runs in a fork of a warm interpreter that has imported torch already, so the "
                        "setting could come too late", 'add fresh="true" to the fence')
    if options.runs_on_cpu_build:
        freed = ddp_model_freed_after_destroy(code)
        if freed:
            line, name = freed
            raise_error(where(line), f"this function destroys the process group while its DDP model "
                        f"{name!r} is still alive, so the model is freed only when the function returns, "
                        "after the group is gone; on this CPU build of torch (gloo) that can hang now and "
                        "then (learn/debugging.md#ending-a-script-cleanly)",
                        f"delete it first: `del {name}` before destroy_process_group(), with a comment "
                        "that links to that section")
    block = Block(fenced, options, script, files, snippet, deps)
    block.key = compute_key(block, environment)
    return block


def setting_before_torch(code: str) -> int | None:
    """The line of the first top-level ``os.environ[...] = ...`` (or ``setdefault``, ``update``,
    ``putenv``) when a top-level ``import torch`` follows it; None otherwise (or if the code does not
    parse: its run reports that)."""
    if "os.environ" not in code and "os.putenv" not in code:
        return None  # most blocks: no parse on every build
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None  # the run reports it, with the real traceback
    setting = None
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
            return setting
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            return setting
        text = ast.unparse(node)
        if setting is None and re.match(r"os\.(environ\[.*\]\s*=|environ\.(setdefault|update)\(|putenv\()", text):
            setting = node.lineno
    return None


#: the names a DDP model is built with in the examples
_DDP_CALLS = {"DDP", "DistributedDataParallel"}


def ddp_model_freed_after_destroy(code: str) -> tuple[int, str] | None:
    """(line of the ``destroy_process_group()`` call, the model's name) for the first function that
    builds a DDP model into a local name and destroys the group without ``del``-ing that name first;
    None otherwise (or if the code does not parse: its run reports that). A heuristic: a model the
    function returns or stores elsewhere is flagged too, and the fix (``del``) is harmless there."""
    if "destroy_process_group" not in code or not _INDENTED_DDP.search(code):
        return None     # most blocks: no parse on every build
    return _ddp_model_freed_after_destroy(code)


#: a DDP model built on an indented line: inside a function (or a block), the only case that matters
_INDENTED_DDP = re.compile(r"^[ \t]+\S.*\b(?:" + "|".join(sorted(_DDP_CALLS)) + r")\(", re.M)


@functools.lru_cache(maxsize=1024)
def _ddp_model_freed_after_destroy(code: str) -> tuple[int, str] | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None

    def called(node: ast.AST) -> str:
        func = node.func if isinstance(node, ast.Call) else None
        return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")

    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        built: dict[str, int] = {}
        deleted: dict[str, int] = {}
        destroyed: list[int] = []
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and called(node.value) in _DDP_CALLS:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        built.setdefault(target.id, node.lineno)
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        deleted.setdefault(target.id, node.lineno)
            elif called(node) == "destroy_process_group":
                destroyed.append(node.lineno)
        for line in sorted(destroyed):
            for name, at in built.items():
                if at < line and not deleted.get(name, line) < line:
                    return line, name
    return None


def site_pages(docs_dir: Path) -> dict[str, str]:
    """The text of every Markdown page of the site, by docs-relative path."""
    return {p.relative_to(docs_dir).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(docs_dir.rglob("*.md"))
            if not any(part == "snippets" or part.startswith("_") for part in p.relative_to(docs_dir).parts)}


def site_notebooks(docs_dir: Path) -> dict[str, Path]:
    """Every notebook page of the site, by docs-relative path (the folders site_pages skips are skipped)."""
    return {p.relative_to(docs_dir).as_posix(): p for p in sorted(docs_dir.rglob("*.ipynb"))
            if not any(part == "snippets" or part.startswith((".", "_")) for part in p.relative_to(docs_dir).parts)}


def collect_site(docs_dir: Path, environment: dict, pages: dict[str, str] | None = None):
    """Every block of every Markdown page, plus the questions and flashcard decks.

    Authoring errors are gathered, not stopped at the first. Returns
    (blocks, errors, questions, decks); blocks include the runs behind quiz answer keys.
    """
    from .quiz import card_fenced_blocks, parse_page, quiz_fenced_blocks

    snippets_dir = docs_dir / "snippets"
    if pages is None:
        pages = site_pages(docs_dir)
    blocks, errors, questions, decks = [], [], [], []
    seen_ids: dict[str, str] = {}
    for page, text in pages.items():
        try:
            fenced_blocks = find_blocks(page, text)
            page_questions, page_decks, _ = parse_page(page, text)
        except AuthoringError as exc:
            errors.append(exc)
            continue
        for fenced in fenced_blocks:
            try:
                blocks.append(resolve(fenced, snippets_dir, environment))
            except AuthoringError as exc:
                errors.append(exc)
        for item in [*page_questions, *page_decks]:
            where = f"{item.page}:{item.line}"
            if item.id in seen_ids:
                errors.append(AuthoringError(item.page, item.line, f"id {item.id!r} is already used at {seen_ids[item.id]}",
                                             "give every question and deck a unique id"))
            seen_ids.setdefault(item.id, where)
        runs = [(q.id, role, fenced) for q in page_questions for role, fenced in quiz_fenced_blocks(q)]
        runs += [(d.id, role, fenced) for d in page_decks for role, fenced in card_fenced_blocks(d)]
        for owner, role, fenced in runs:
            try:
                block = resolve(fenced, snippets_dir, environment)
            except AuthoringError as exc:
                errors.append(exc)
                continue
            block.role = (owner, role)
            if role.startswith("bank-"):   # a wrong bank item: it may fail or print something else
                block.options = replace(block.options, outcome_any=True)
                block.key = compute_key(block, environment)
            blocks.append(block)
        questions += page_questions
        decks += page_decks
    return blocks, errors, questions, decks
