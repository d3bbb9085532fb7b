"""Claims in prose held to the standard of outputs: torch names resolved and linked, stated values computed.

Two things in a page's prose (and in quiz and flashcard text) are checked at build:

* **API names.** An inline code span that starts with a dotted name whose head
  is ``torch`` or an alias (``dist``, ``nn``, ``F``, ``mp``, ``DDP``, ``FSDP``, or
  any ``import torch... as X`` / ``from torch... import X`` in the page's code
  and the snippets it includes) must resolve in the installed torch. It becomes
  a link to its entry in the PyTorch reference. A name the page presents as
  non-existent on purpose is marked ``{ .no-such-api }`` and a run on the same
  page must show its real ``AttributeError`` or ``ImportError``.
* **Inline values.** `` `{python} EXPR` `` is replaced by ``str(EXPR)``,
  evaluated at build in a fresh interpreter of the block environment (with
  ``torch``, ``dist``, ``nn``, ``F``, ``mp``, ``os``, ``sys``, ``datetime``
  imported), cached per environment like a block's run.

Resolution and evaluation happen in one subprocess (``torch_probe.py``) per
build, and only for what the cache does not hold.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .api_links import api_url
from .cache import atomic_write_json
from .errors import AuthoringError, GuideError
from .quiz import quiz_texts
from .source_citations import (SOURCE_SPAN, GpuSentence, SourceCitation, citation_html, citation_url, citations_in,
                               uncited_gpu_sentences)

DEFAULT_ALIASES = {
    "torch": "torch", "dist": "torch.distributed", "nn": "torch.nn", "F": "torch.nn.functional",
    "mp": "torch.multiprocessing", "DDP": "torch.nn.parallel.DistributedDataParallel",
    "FSDP": "torch.distributed.fsdp.FullyShardedDataParallel",
}
NOT_API = ".no-such-api"
SITE_SPAN = re.compile(r"(?<!`)`\{site\}[ \t]+(?P<name>\w+)[ \t]*`(?!`)")
VALUE_SPAN = re.compile(r"(?<!`)`\{python\}[ \t]+(?P<expr>[^`\n]+?)[ \t]*`(?!`)")
CODE_SPAN = re.compile(r"(?<![`\\])`(?!`)(?P<code>[^`\n]+?)`(?!`)(?P<attrs>\{[^}\n]*\})?")
NAME = re.compile(r"^(?:#!py(?:thon)?\s+)?(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?=$|[\s(\[=,:;)])")
_IMPORT_AS = re.compile(r"^[ \t]*import[ \t]+(torch(?:\.\w+)*)[ \t]+as[ \t]+(\w+)", re.M)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(torch(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.M)
_INCLUDE = re.compile(r"""-{1,}8<-{1,}\s+["']([^"':]+\.py)""")
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_PROBE = Path(__file__).with_name("torch_probe.py")
_LONG_SPAN = re.compile(r"(`{2,})(?!`).+?(?<!`)\1(?!`)")


def masked(line: str) -> str:
    """The line with code spans of two or more backticks blanked out (same length): they show syntax."""
    return _LONG_SPAN.sub(lambda m: " " * len(m[0]), line)


def sub_outside_long_spans(pattern: re.Pattern, line: str, replace) -> str:
    """``pattern.sub(replace, line)``, skipping matches inside double-backtick code spans."""
    out, last = [], 0
    for match in pattern.finditer(masked(line)):
        out += [line[last:match.start()], replace(pattern.match(line, match.start()))]
        last = match.end()
    return "".join(out) + line[last:]


@dataclass(frozen=True)
class Mention:
    """An inline code span that names something in torch."""

    page: str
    line: int
    written: str      # as the page wrote it: dist.all_reduce
    name: str         # with the alias expanded: torch.distributed.all_reduce
    not_api: bool     # marked { .no-such-api }
    context: str = ""  # "question q-id" for quiz text


@dataclass(frozen=True)
class InlineValue:
    page: str
    line: int
    expr: str


@dataclass
class PageClaims:
    aliases: dict[str, str]
    mentions: list[Mention] = field(default_factory=list)
    values: list[InlineValue] = field(default_factory=list)
    site_facts: list[tuple[int, str]] = field(default_factory=list)   # (line, name) of `{site} NAME`
    sources: list[SourceCitation] = field(default_factory=list)       # `{source} TARGET`: not run here
    #: sentences naming GPUs with no citation in their paragraph and no GPU block in their section
    gpu_uncited: list[GpuSentence] = field(default_factory=list)


# ---------------------------------------------------------------------- scanning
def page_aliases(text: str, snippets_dir: Path | None) -> dict[str, str]:
    """The torch aliases a page establishes in its code (and the snippets it includes), plus the defaults."""
    sources = [text]
    if snippets_dir is not None:
        for rel in sorted(set(_INCLUDE.findall(text))):
            path = snippets_dir / rel
            if path.is_file():
                sources.append(path.read_text(encoding="utf-8"))
    aliases = dict(DEFAULT_ALIASES)
    for source in sources:
        for module, alias in _IMPORT_AS.findall(source):
            aliases[alias] = module
        for module, names in _FROM_IMPORT.findall(source):
            for item in names.strip("()").replace("\n", " ").split(","):
                parts = item.split()
                if not parts or not re.fullmatch(r"\w+", parts[0]):
                    continue
                alias = parts[2] if len(parts) == 3 and parts[1] == "as" else parts[0]
                aliases[alias] = f"{module}.{parts[0]}"
    return aliases


def prose_lines(text: str):
    """(line number, line) for every line outside fenced code (of any language) and HTML comments."""
    fence = None
    in_comment = False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        opened = _FENCE_OPEN.match(line)
        if opened:
            fence = opened[1]
            continue
        if "<!--" in line and "-->" not in line.split("<!--", 1)[1]:
            in_comment = True   # the line that opens a comment is left alone whole
            continue
        yield number, line


def mentions_in(text: str, page: str, line: int, aliases: dict[str, str], context: str = "") -> list[Mention]:
    found = []
    for match in CODE_SPAN.finditer(masked(SOURCE_SPAN.sub("", SITE_SPAN.sub("", VALUE_SPAN.sub("", text))))):
        named = NAME.match(match["code"].strip())
        if not named:
            continue
        written = named["name"]
        head, _, rest = written.partition(".")
        if head not in aliases:
            continue
        name = aliases[head] + (f".{rest}" if rest else "")
        found.append(Mention(page, line, written, name, NOT_API in (match["attrs"] or ""), context))
    return found


def scan_page(page: str, text: str, snippets_dir: Path | None, questions=(), decks=()) -> PageClaims:
    """Every torch name and inline value in a page's prose and in its quiz and flashcard text."""
    claims = PageClaims(page_aliases(text, snippets_dir))
    prose = list(prose_lines(text))
    for number, line in prose:
        claims.mentions += mentions_in(line, page, number, claims.aliases)
        claims.values += [InlineValue(page, number, m["expr"]) for m in VALUE_SPAN.finditer(masked(line))]
        claims.site_facts += [(number, m["name"]) for m in SITE_SPAN.finditer(masked(line))]
        claims.sources += citations_in(masked(line), page, number)
    claims.gpu_uncited = uncited_gpu_sentences(page, text, prose)
    for question in questions:
        for text_field in quiz_texts(question):
            claims.mentions += mentions_in(text_field, page, question.line, claims.aliases, f"question {question.id}")
            claims.sources += citations_in(text_field, page, question.line)
            claims.values += [InlineValue(page, question.line, m["expr"]) for m in VALUE_SPAN.finditer(text_field)]
    for deck in decks:
        for card in deck.cards:
            for text_field in (card.front, card.back):
                claims.mentions += mentions_in(text_field, page, card.line, claims.aliases, f"deck {deck.id}")
                claims.sources += citations_in(text_field, page, card.line)
                claims.values += [InlineValue(page, card.line, m["expr"]) for m in VALUE_SPAN.finditer(text_field)]
    return claims


def scan_notebook(page: str, raw: str) -> PageClaims:
    """Every torch name in a notebook's Markdown cells (its prose), each at its line in the .ipynb
    file, with the aliases its code cells import. Inline values and site facts are Markdown-page
    features: mkdocs-jupyter would show them as written, so a notebook that uses one is refused."""
    try:
        cells = json.loads(raw)["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise AuthoringError(page, 1, f"not a notebook this build can read ({exc})", "save it with Jupyter again")
    claims = PageClaims(notebook_aliases(cells))
    file_lines = raw.split("\n")
    cursor = 0
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        pieces = source if isinstance(source, list) else source.splitlines(keepends=True)
        for index, line in prose_lines(cell_text(cell)):
            cursor = _file_line(file_lines, cursor, pieces[index - 1] if index <= len(pieces) else line)
            where = cursor + 1
            claims.mentions += mentions_in(line, page, where, claims.aliases)
            for pattern, what in ((VALUE_SPAN, "an inline value `{python} ...`"), (SITE_SPAN, "a site fact `{site} ...`"),
                                  (SOURCE_SPAN, "a source citation `{source} ...`")):
                if pattern.search(masked(line)):
                    raise AuthoringError(page, where, f"{what} in a notebook's Markdown cell is shown as written, "
                                         "not computed", "state it in a Markdown page, or print it from a code cell")
    return claims


def notebook_aliases(cells: list[dict]) -> dict[str, str]:
    """The torch aliases a notebook's code cells import, plus the defaults."""
    return page_aliases("\n".join(cell_text(cell) for cell in cells if cell.get("cell_type") == "code"), None)


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _file_line(file_lines: list[str], start: int, piece: str) -> int:
    """Index of the first line at or after ``start`` of the .ipynb file that holds ``piece`` (one
    source line, JSON-encoded as nbformat writes it); ``start`` if none does."""
    encoded = json.dumps(piece, ensure_ascii=False)
    return next((i for i in range(start, len(file_lines)) if encoded in file_lines[i]), start)


# ---------------------------------------------------------------------- resolving
class ClaimChecker:
    """Resolve every mention and evaluate every inline value of the site, through a per-environment cache."""

    def __init__(self, cache_dir: Path, environment: dict, env: dict[str, str], python: str = sys.executable):
        self.path = Path(cache_dir) / "claims.json"
        self.fingerprint = hashlib.sha256(json.dumps(environment, sort_keys=True).encode()).hexdigest()
        self.env, self.python = env, python
        self.names: dict[str, dict] = {}
        self.values: dict[str, dict] = {}
        self.sources: dict[str, dict] = {}
        self.probed = 0
        self._probe: _Probe | None = None
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:        # once per checker: start() and resolve() both ask
            return
        self._loaded = True
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return
        if isinstance(data, dict) and data.get("environment") == self.fingerprint:
            self.names = dict(data.get("names", {}))
            self.values = dict(data.get("values", {}))
            self.sources = dict(data.get("sources", {}))

    def _request(self, names: set[str], expressions: set[str], sources: set[str] = frozenset()) -> str | None:
        """The probe's input for what the cache lacks, or None when it holds everything."""
        self._load()
        wanted_names = sorted(n for n in names | {p for n in names for p in _parents(n)} if n not in self.names)
        wanted_values = sorted(e for e in expressions if e not in self.values)
        wanted_sources = sorted(s for s in sources if s not in self.sources)
        if not wanted_names and not wanted_values and not wanted_sources:
            return None
        return json.dumps({"names": wanted_names, "values": wanted_values, "sources": wanted_sources})

    def start(self, names: set[str], expressions: set[str], sources: set[str] = frozenset()) -> None:
        """Start probing, in the background, what the cache lacks; ``resolve`` with the same names
        collects it. A build starts it before its blocks run, so the probe's torch import overlaps
        them instead of following them (about 3 s of a cold build here)."""
        self.cancel()
        request = self._request(names, expressions, sources)
        if request is not None:
            self._probe = _Probe(self.python, request, self.env)

    def cancel(self) -> None:
        """End a probe still running (a build that stops before ``resolve``)."""
        if self._probe is not None:
            self._probe.kill()
            self._probe = None

    def resolve(self, names: set[str], expressions: set[str], sources: set[str] = frozenset()) -> None:
        request = self._request(names, expressions, sources)
        probe, self._probe = self._probe, None
        if probe is not None and probe.request != request:   # started for other names: not this answer
            probe.kill()
            probe = None
        if request is None:
            return
        answer = (probe or _Probe(self.python, request, self.env)).answer(timeout=300)
        self.names.update(answer["names"])
        self.values.update(answer["values"])
        self.sources.update(answer.get("sources", {}))
        self.probed = len(answer["names"]) + len(answer["values"]) + len(answer.get("sources", {}))
        atomic_write_json(self.path, {"environment": self.fingerprint, "names": self.names, "values": self.values,
                                      "sources": self.sources})

    def url(self, name: str) -> str | None:
        entry = self.names.get(name)
        if not entry or not entry.get("ok"):
            return None
        parent = self.names.get(name.rsplit(".", 1)[0]) if "." in name else None
        return api_url(name, entry["kind"], parent.get("kind") if parent else None)

    def value(self, expr: str) -> str | None:
        entry = self.values.get(expr)
        return entry["value"] if entry and entry.get("ok") else None


class _Probe:
    """``torch_probe.py`` running in a fresh interpreter of the block environment on one request."""

    def __init__(self, python: str, request: str, env: dict[str, str]):
        self.request = request
        self._proc = subprocess.Popen([python, str(_PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env)
        self._output: tuple[str, str] = ("", "")
        # communicate() in a thread: the request is written and both pipes drained while the build goes on
        self._thread = threading.Thread(target=self._communicate, name="dpguide-claims-probe", daemon=True)
        self._thread.start()

    def _communicate(self) -> None:
        try:
            self._output = self._proc.communicate(self.request)
        except (OSError, ValueError):   # killed while writing or reading: kill() says so
            pass

    def answer(self, timeout: float) -> dict:
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.kill()
            raise GuideError(f"checking torch names and inline values took over {timeout:g} s; "
                             "an inline value probably never returns")
        if self._proc.returncode != 0:
            raise GuideError("checking torch names and inline values failed:\n" + self._output[1][-4000:])
        return json.loads(self._output[0])

    def kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._thread.join(10)
        self._proc.wait()


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def probe_targets(claims: dict[str, PageClaims]) -> tuple[set[str], set[str], set[str]]:
    """The torch names, the inline expressions and the cited torch files that ``claims`` need the probe for."""
    return ({m.name for page in claims.values() for m in page.mentions},
            {v.expr for page in claims.values() for v in page.values},
            {s.target for page in claims.values() for s in page.sources if not s.is_docs and not s.syntax_error()})


def check_site(claims: dict[str, PageClaims], checker: ClaimChecker, run_texts: dict[str, str]) -> list[str]:
    """Every problem with the site's claims, each naming file:line; ``run_texts`` is what each page's runs printed."""
    mentions = [m for page in claims.values() for m in page.mentions]
    values = [v for page in claims.values() for v in page.values]
    checker.resolve(*probe_targets(claims))
    problems = []
    for m in mentions:
        where = f" ({m.context})" if m.context else ""
        entry = checker.names.get(m.name, {})
        if m.not_api:
            if entry.get("ok"):
                problems.append(str(AuthoringError(m.page, m.line, f"`{m.written}`{where} is marked {NOT_API} "
                                                   f"but it exists in torch ({m.name})",
                                                   f"remove {{ {NOT_API} }}: the name is real")))
            elif not _shown_failing(m, run_texts.get(m.page, "")):
                problems.append(str(AuthoringError(
                    m.page, m.line, f"`{m.written}`{where} is marked {NOT_API} but no run on this page shows "
                    "its error", f"add a block (or a quiz option's code) that uses it, so readers see the "
                    "real AttributeError / ImportError")))
        elif not entry.get("ok"):
            problems.append(str(AuthoringError(
                m.page, m.line, f"`{m.written}`{where} names {m.name}, which does not exist in the installed "
                f"torch ({entry.get('error', 'not resolved')})",
                f"fix the name; if the page names it on purpose as something that does not exist, write "
                f"`{m.written}`{{ {NOT_API} }} and show its error in a run on the page")))
    for s in (s for page in claims.values() for s in page.sources):
        error = s.syntax_error() or (None if s.is_docs else _source_error(s, checker.sources.get(s.target, {})))
        if error:
            problems.append(str(AuthoringError(s.page, s.line, f"source citation: {error}",
                                               "cite a file of the build's torch (path from site-packages, "
                                               "e.g. torch/distributed/distributed_c10d.py:barrier) and a name "
                                               "that occurs in it, or a https://docs.pytorch.org/ page")))
    for v in values:
        entry = checker.values.get(v.expr, {})
        if not entry.get("ok"):
            problems.append(str(AuthoringError(v.page, v.line, f"inline value `{{python}} {v.expr}` failed: "
                                               f"{entry.get('error', 'not evaluated')}",
                                               "fix the expression (torch, dist, nn, F, mp, os, sys and "
                                               "datetime are imported)")))
    return problems


def _source_error(citation: SourceCitation, checked: dict) -> str | None:
    """Why the probe's answer for a cited torch file does not back the citation, or None."""
    if checked.get("ok"):
        return None
    return checked.get("error", f"`{{source}} {citation.target}` was not checked")


def _shown_failing(mention: Mention, printed: str) -> bool:
    last = mention.name.rsplit(".", 1)[-1]
    return any(last in line and re.search(r"AttributeError|ImportError|ModuleNotFoundError|has no attribute", line)
               for line in printed.splitlines())


# ---------------------------------------------------------------------- rendering
class PageClaimRenderer:
    """What a page's text becomes: inline values replaced, resolved torch names linked."""

    def __init__(self, aliases: dict[str, str], checker: ClaimChecker, facts: dict[str, int] | None = None,
                 elsewhere=lambda expr, value: [], torch_version: str | None = None):
        """``elsewhere(expr, value)``: (torch version, value) of each other release where ``expr``
        evaluated to something else (from the release records); ``torch_version``: the build's torch,
        whose release tag source citations link to."""
        self.aliases, self.checker, self.facts = aliases, checker, facts or {}
        self.elsewhere, self.torch_version = elsewhere, torch_version
        self.linked = 0

    def url_for(self, code: str) -> str | None:
        """The reference URL of the torch object a code span names (or of the file or page it cites
        as `torch/PATH:NAME` or a docs URL, the form ``text`` gives a source citation), or None."""
        cited = SourceCitation("", 0, code)
        if (":" in code or cited.is_docs) and cited.syntax_error() is None:
            return citation_url(code, self.torch_version)
        named = NAME.match(code.strip())
        if not named:
            return None
        head, _, rest = named["name"].partition(".")
        if head not in self.aliases:
            return None
        return self.checker.url(self.aliases[head] + (f".{rest}" if rest else ""))

    def value_html(self, expr: str) -> str:
        value = self._value(expr)
        shown = (f'<span class="dpg-value" title="computed by the build: {html.escape(expr, quote=True)}">'
                 f"{html.escape(value)}</span>")
        others = self.elsewhere(expr, value)
        if others:
            said = "; ".join(f"{html.escape(other)} on torch {html.escape(torch)}" for torch, other in others)
            shown += f' <small class="dpg-value-releases">({said})</small>'
        return shown

    def text(self, text: str) -> str:
        """Authored quiz or card text with inline values as plain text, source citations as words and a
        code span, and no-such-api marks removed."""
        text = VALUE_SPAN.sub(lambda m: self._value(m["expr"]), text)
        # quiz and card text is escaped, so the mark is words and a code span that url_for links
        text = SOURCE_SPAN.sub(lambda m: f"(not run here; source: `{m['target']}`)", text)
        return CODE_SPAN.sub(lambda m: f"`{m['code']}`" if m["attrs"] and NOT_API in m["attrs"] else m[0], text)

    def _value(self, expr: str) -> str:
        value = self.checker.value(expr)
        if value is None:
            raise GuideError(f"inline value {expr!r} was not computed: build again")
        return value

    def fact_html(self, name: str) -> str:
        if name not in self.facts:
            raise GuideError(f"`{{site}} {name}` is not a fact of this build; known: {', '.join(sorted(self.facts))}")
        return f'<span class="dpg-value" title="counted by this build: {name}">{self.facts[name]}</span>'

    def source_html(self, target: str) -> str:
        return citation_html(target, self.torch_version)

    def prose(self, text: str) -> str:
        """The page's Markdown with values and links applied outside code; line numbers are unchanged."""
        lines = text.split("\n")
        for number, line in list(prose_lines(text)):
            line = sub_outside_long_spans(VALUE_SPAN, line, lambda m: self.value_html(m["expr"]))
            line = sub_outside_long_spans(SITE_SPAN, line, lambda m: self.fact_html(m["name"]))
            line = sub_outside_long_spans(SOURCE_SPAN, line, lambda m: self.source_html(m["target"]))
            lines[number - 1] = self._link_markdown(line)
        return "\n".join(lines)

    def _link_markdown(self, line: str) -> str:
        out, last = [], 0
        for match in CODE_SPAN.finditer(line):
            url = self.url_for(match["code"])
            already_linked = (match.start() > 0 and line[match.start() - 1] == "["
                              and line[match.end():].startswith("]("))
            if url is None or match["attrs"] or already_linked:
                continue
            out += [line[last:match.start()], f"[`{match['code']}`]({url})"]
            last = match.end()
            self.linked += 1
        out.append(line[last:])
        return "".join(out)
