"""The torch names and inline values in the site's prose, scanned and checked for one build.

Every page's and notebook's torch names must resolve in the build's torch, every inline value is
computed by a run, every citation of the torch source must hold, and every `{site} NAME` must be a
fact of the build. ``SiteBuild`` scans before the blocks run (so the probe imports torch beside
them) and checks after; the counts go to the build log and to the site facts.
"""

from __future__ import annotations

from pathlib import Path

from .blocks import Block
from .claims import ClaimChecker, InlineValue, PageClaims, check_site, scan_notebook, scan_page
from .engine import Engine
from .errors import AuthoringError, GuideError

#: what the provenance line under each output lists as the torch build's process-group backends
BACKENDS_EXPR = ('", ".join(b for b in ("gloo", "nccl", "mpi", "ucc", "xccl") '
                 'if getattr(dist, f"is_{b}_available", lambda: False)())')
#: the build's torch as a reader names it (local label included) and its CUDA version ('' without CUDA)
TORCH_EXPR = "torch.__version__"
CUDA_EXPR = "torch.version.cuda or ''"


class SiteClaims:
    """The claims of one build: the checker that answers them, and what was counted."""

    def __init__(self, engine: Engine, env: dict[str, str]):
        self.engine = engine
        self.checker = ClaimChecker(engine.cache.directory, engine.environment, env)
        self.counts: dict[str, int] = {}    # filled by check

    def scan(self, pages: dict[str, str], notebooks: dict[str, Path] | None = None) -> dict[str, PageClaims]:
        """The torch names and inline values of every page, the torch names of every notebook's
        Markdown cells (and the build's own values), after ``collect``."""
        snippets = self.engine.docs_dir / "snippets"
        claims = {page: scan_page(page, text, snippets,
                                  [q for q in self.engine.questions if q.page == page],
                                  [d for d in self.engine.decks if d.page == page])
                  for page, text in pages.items() if page.endswith(".md")}
        try:
            claims |= {page: scan_notebook(page, path.read_text(encoding="utf-8"))
                       for page, path in sorted((notebooks or {}).items())}
        except AuthoringError as exc:
            raise GuideError(str(exc)) from None
        claims["(build)"] = PageClaims({}, values=[InlineValue("(build)", 0, expr)
                                                   for expr in (BACKENDS_EXPR, TORCH_EXPR, CUDA_EXPR)])
        return claims

    def check(self, claims: dict[str, PageClaims], blocks: list[Block], facts: dict[str, int]) -> None:
        """Resolve every torch name and compute every inline value of the site; stop on any that fails."""
        printed: dict[str, list[str]] = {}
        for block in blocks:
            result = self.engine.result_for(block)
            if result is not None:
                printed.setdefault(block.page, []).append(result.text())
        problems = check_site(claims, self.checker, {p: "\n".join(t) for p, t in printed.items()})
        problems += [str(AuthoringError(page, line, f"`{{site}} {name}` is not a fact of the build",
                                        "known: " + ", ".join(sorted(facts))))
                     for page, c in claims.items() for line, name in c.site_facts if name not in facts]
        if problems:
            raise GuideError("\n".join(problems))
        mentions = [m for c in claims.values() for m in c.mentions]
        values = [v for p, c in claims.items() if p != "(build)" for v in c.values]
        self.counts = {"mentions": sum(not m.not_api for m in mentions),
                             "names": len({m.name for m in mentions if not m.not_api}),
                             "not_api": sum(m.not_api for m in mentions), "values": len(values),
                             "probed": self.checker.probed}
        sources = [s for c in claims.values() for s in c.sources]
        self.counts |= {"sources": len(sources), "sources_docs": sum(s.is_docs for s in sources),
                              "gpu_uncited": sum(len(c.gpu_uncited) for c in claims.values())}
        c = self.counts
        self.engine.log(f"claims: {c['mentions']} mentions of {c['names']} torch names resolved, "
                        f"{c['not_api']} marked as not existing and shown failing, {c['values']} inline values "
                        f"computed ({c['probed']} names/values/sources probed now, the rest from the cache)")
        self.engine.log(f"claims: {c['sources']} statements not run here (GPU, NCCL) cite their source: "
                        f"{c['sources'] - c['sources_docs']} a file of the build's torch (checked), "
                        f"{c['sources_docs']} a PyTorch docs page; {c['gpu_uncited']} sentences name GPUs, CUDA or "
                        "NCCL with neither a citation in their paragraph nor a GPU block in their section (a "
                        "statement of fact among them needs one: `dpguide gpu-statements` lists them)")
