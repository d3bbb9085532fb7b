"""Statements the CPU build cannot run, each carrying its source: `` `{source} TARGET` `` in prose.

A sentence about GPUs or NCCL that no recorded run backs ends with a citation the reader can see
and follow, marked as not run here. TARGET is one of

* ``torch/PATH[:NAME]``: a file of the installed torch package (a ``.py`` module or a header under
  ``torch/include/``), path relative to site-packages, and optionally a name that must occur in it
  (a function, class, constant or environment variable). The build checks both in the build's
  torch (through the claims probe) and links the file on GitHub at the build's release tag.
* ``https://docs.pytorch.org/...`` (or ``https://pytorch.org/...``): an official documentation page,
  for a fact no installed file carries. It is linked as written; nothing offline can check it.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass

SOURCE_SPAN = re.compile(r"(?<!`)`\{source\}[ \t]+(?P<target>[^`\n]+?)[ \t]*`(?!`)")
DOCS_PREFIXES = ("https://docs.pytorch.org/", "https://pytorch.org/")
_PATH = re.compile(r"torch/[\w./-]+\.(?:py|pyi|h|hpp|cuh)")
_NAME = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*")
GITHUB = "https://github.com/pytorch/pytorch/blob"
#: words that make a sentence one about GPUs (what the CPU build cannot run)
GPU_TERMS = re.compile(r"\b(?:GPUs?|CUDA|cuda(?::\d+)?|NCCL\w*|nccl\w*|NVLink|InfiniBand|cuDNN)\b")
_GPU_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\w+\b[^\n]*\bdevice=\"(?:cuda|any)\"")
_LINK_TEXT = re.compile(r"\[[^\]]*\]\([^)]*\)")      # a link's words name a page, they state nothing
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(])")


@dataclass(frozen=True)
class SourceCitation:
    """One `` `{source} ...` `` span: where it is and what it cites."""

    page: str
    line: int
    target: str

    @property
    def is_docs(self) -> bool:
        return self.target.startswith(DOCS_PREFIXES)

    @property
    def path(self) -> str:
        return self.target.partition(":")[0]

    @property
    def name(self) -> str:
        return self.target.partition(":")[2]

    def syntax_error(self) -> str | None:
        """Why TARGET is not a citation this build understands, or None."""
        if self.is_docs:
            return None if re.fullmatch(r"\S+", self.target) else "a docs URL has no spaces"
        if not _PATH.fullmatch(self.path):
            return (f"`{{source}} {self.target}` cites neither a torch file (torch/....py or a header under "
                    f"torch/include/, relative to site-packages) nor a docs.pytorch.org page")
        if ":" in self.target and not _NAME.fullmatch(self.name):
            return f"`{{source}} {self.target}`: after ':' comes one name (a function, class, constant)"
        return None


def citations_in(text: str, page: str, line: int) -> list[SourceCitation]:
    return [SourceCitation(page, line, m["target"]) for m in SOURCE_SPAN.finditer(text)]


def github_path(path: str) -> str:
    """Where an installed torch file lives in the pytorch repository (headers are copied into torch/include)."""
    return path[len("torch/include/"):] if path.startswith("torch/include/") else path


def citation_url(target: str, torch_version: str | None) -> str:
    if target.startswith(DOCS_PREFIXES):
        return target
    tag = f"v{torch_version.split('+')[0]}" if torch_version else "main"
    return f"{GITHUB}/{tag}/{github_path(target.partition(':')[0])}"


def _literal(text: str) -> str:
    """``text`` escaped for HTML that Markdown still reads: its underscores as entities, or
    ``__init__.py`` would come out as a bold "init"."""
    return html.escape(text).replace("_", "&#95;")


def citation_html(target: str, torch_version: str | None) -> str:
    """The badge a reader sees for `` `{source} TARGET` ``: not run here, and the source as a link."""
    url = html.escape(citation_url(target, torch_version), quote=True)
    path, _, name = target.partition(":")
    is_docs = target.startswith(DOCS_PREFIXES)
    if is_docs:
        shown = "PyTorch docs"
    else:
        shown = f"<code>{_literal(path.rsplit('/', 1)[-1])}</code>"
        if name:
            shown += f" <code>{_literal(name)}</code>"
    where = f"torch {torch_version}" if torch_version and not is_docs else "the official documentation"
    title = html.escape(f"not run by this build (it has no GPU); the statement comes from {where}: {target}", quote=True)
    return (f'<span class="dpg-source" title="{title}">not run here · source: '
            f'<a href="{url}">{shown}</a></span>')


@dataclass(frozen=True)
class GpuSentence:
    """A prose sentence that names GPUs, CUDA or NCCL with nothing on the page backing it: no citation
    in its paragraph and no GPU block in its section. Generic ones ("this needs a GPU machine") need
    none; a statement of fact among them needs a citation or a GPU block."""

    page: str
    line: int
    text: str


def uncited_gpu_sentences(page: str, text: str, lines: list[tuple[int, str]]) -> list[GpuSentence]:
    """Every such sentence of a page; ``lines`` are the page's (line number, line) outside code."""
    headings = [n for n, line in lines if line.startswith("#")]
    gpu_sections = {bisect.bisect(headings, n) for n, line in enumerate(text.split("\n"), 1)
                    if _GPU_FENCE.match(line)}
    found = []
    for paragraph in _paragraphs(lines):
        joined = " ".join(line.strip() for _, line in paragraph)
        start = paragraph[0][0]
        if SOURCE_SPAN.search(joined) or bisect.bisect(headings, start) in gpu_sections:
            continue
        found += [GpuSentence(page, start, sentence) for sentence in _SENTENCE_END.split(joined)
                  if GPU_TERMS.search(_LINK_TEXT.sub("", sentence))]
    return found


def _paragraphs(lines: list[tuple[int, str]]):
    """Runs of consecutive non-blank prose lines; a heading is a paragraph of its own."""
    current: list[tuple[int, str]] = []
    last = None
    for number, line in lines:
        breaks = not line.strip() or line.startswith("#") or (last is not None and number != last + 1)
        if breaks and current:
            yield current
            current = []
        if line.strip() and not line.startswith("#"):
            current.append((number, line))
        last = number
    if current:
        yield current
