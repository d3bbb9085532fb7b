"""Build-speed benchmark: prints a table of build times measured side by side in one run.

    .venv/bin/python benchmarks/build_speed.py [--repeat 3] [--markdown out.md]
    .venv/bin/python benchmarks/build_speed.py --quick      # CI: seconds, publishes nothing

Measures, on a copy of this site in a temporary directory (so the real cache is untouched):
  1. floor        plain `mkdocs build` with the execution hooks disabled (DPGUIDE_DISABLE=1)
  2. cold         a build with the engine and an empty cache
  2b old cold     the same with torchrun's agent and ranks started as fresh interpreters
                  (DPGUIDE_FRESH_RANKS=1: the engine's path before it forked them) and one slot
                  per core (DPGUIDE_JOBS=<cores>: the default before two per core), measured first
  3. warm         a rebuild with nothing changed (must run no block)
  3b content floor plain `mkdocs build` (hooks disabled) of a copy whose pages are the Markdown the
                  warm build rendered, outputs and widgets in it (and whose notebooks are the executed
                  copies): what MkDocs alone costs to show these pages. Its HTML pages and search
                  index must equal those of a warm build that took every highlighted block and every
                  page's search entries from the render memo, or the run fails.
  3c warm, no memo the warm rebuild with the render memo off (DPGUIDE_RENDER_MEMO=0): the engine's
                  share over row 3b, and what the memo saves against row 3
  4. one snippet  a rebuild after one single-process snippet changed
  4b bound        the goal for row 4: floor + that block's bare `python FILE` + 1 s
  5. prose only   a rebuild after a prose-only edit to one page (must run no block)
  6. per block    the engine's time for each single-process block against a bare `python FILE`,
                  and each torchrun block's time in the cold build against the reader's bare torchrun
  7. markdown-exec the same single-process blocks executed by markdown-exec (in the MkDocs process,
                   no isolation, no cache) against this engine (a forked process per block), cold
                   and warm; needs `pip install -e '.[bench]'`
Each figure is the median of --repeat runs and is also given as a ratio to the floor.

--quick builds the whole copy once with the hooks disabled (every page and every include must
resolve), then cuts the copy down to QUICK_PAGES (every other page keeps only its title) and
measures rows 1-6 on it (row 2b, the old path's cold build, left out; row 6 for QUICK_BASELINES
single-process blocks and half as many torchrun blocks), once each. The last line printed, in both modes, is `summary: NAME=RATIO ...` with
warm/floor, warm/content-floor, content-floor/floor, warm-no-memo/floor, one-snippet/floor, one-snippet/bound,
prose/floor, cold/floor, torchrun-cold/bare, engine/bare and, in a full run, cold/old-cold and
single-cold/markdown-exec. Every command timed must succeed, or the run fails.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpguide.launch import FRESH_RANKS  # noqa: E402

# built in full by --quick: 9 single-process blocks and 2 torchrun blocks
QUICK_PAGES = ("index.md", "learn/why-parallel.md", "learn/data-loading.md")
QUICK_BASELINES = 2             # blocks timed against bare python by --quick (half as many against torchrun)
BUILD = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site-out"]
RENDERED_PAGES_HOOK = Path(__file__).resolve().parent / "rendered_pages_hook.py"


class BenchmarkFailed(Exception):
    """A command the benchmark times failed: its time would be a lie."""


@dataclass
class Row:
    label: str
    seconds: float
    key: str = ""   # named rows make the summary line


# ---------------------------------------------------------------------- running commands
def run_checked(command: list, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``command``; raise BenchmarkFailed, with its output, unless it exits 0."""
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchmarkFailed(f"`{shlex.join(map(str, command))}` (in {cwd}) exited with status "
                              f"{done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return done


def timed(command: list, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    run_checked(command, cwd, env)
    return time.perf_counter() - start


# ---------------------------------------------------------------------- the site copy
class _ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml, turning its `!!python/name:` tags into None."""


_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def site_parts(config: dict) -> list[str]:
    """Top-level paths a build of ``config`` reads: docs, theme overrides, hooks, snippet base paths."""
    parts = ["mkdocs.yml", "records", config.get("docs_dir", "docs")]
    custom_dir = (config.get("theme") or {}).get("custom_dir")
    parts += [custom_dir] if custom_dir else []
    parts += [hook for hook in config.get("hooks") or []]
    for extension in config.get("markdown_extensions") or []:
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            base = (extension["pymdownx.snippets"] or {}).get("base_path", ".")
            parts += [base] if isinstance(base, str) else list(base)
    tops = {Path(part).parts[0] for part in parts if part not in (".", "")}
    return sorted(tops)


def read_config(site: Path) -> dict:
    return yaml.load((site / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)


def copy_site(target: Path, origin: Path = ROOT) -> None:
    """Copy everything a build of the site in ``origin`` reads (its mkdocs.yml decides what) into ``target``."""
    for name in site_parts(read_config(origin)):
        source = origin / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy(source, target / name)


def shown_files(built: Path) -> dict[str, bytes]:
    """Every HTML page of a built site and its search index, by path in the site."""
    return {path.relative_to(built).as_posix(): path.read_bytes() for path in built.rglob("*")
            if path.suffix == ".html" or path.name == "search_index.json"}


def served_from_memo(log: str) -> bool:
    """Whether a build's log says every code block and every page came from the render memo."""
    match = re.search(r"render memo: (\d+) of (\d+) code blocks highlighted and (\d+) of (\d+) pages", log)
    return bool(match) and match[1] == match[2] and match[3] == match[4] != "0"


def cut_to_pages(site: Path, keep: tuple[str, ...]) -> None:
    """Keep the pages in ``keep`` whole; every other page keeps only its title, notebooks go (with their nav line)."""
    docs = site / "docs"
    for page in docs.rglob("*.md"):
        relative = page.relative_to(docs).as_posix()
        if relative in keep or relative.startswith(("snippets/", "_templates/")):
            continue
        title = next((line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("# ")),
                     "# " + relative)
        page.write_text(f"{title}\n\nLeft out of the quick benchmark build.\n", encoding="utf-8")
    config = site / "mkdocs.yml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    for notebook in docs.rglob("*.ipynb"):
        relative = notebook.relative_to(docs).as_posix()
        notebook.unlink()
        lines = [line for line in lines if not line.rstrip().endswith(relative)]
    config.write_text("".join(lines), encoding="utf-8")


# ---------------------------------------------------------------------- measuring builds
class Bench:
    """Times `mkdocs build` in one site copy; every figure is a median of ``repeat`` builds."""

    def __init__(self, site: Path, repeat: int):
        self.site, self.repeat = site, repeat
        self.env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        self.rows: list[Row] = []
        self.edits = 0

    @property
    def cache(self) -> Path:
        return self.site / ".cache"

    def add(self, label: str, seconds: float, key: str = "") -> float:
        self.rows.append(Row(label, seconds, key))
        print(f"  {label:<60} {seconds:7.2f} s", flush=True)
        return seconds

    @property
    def runs(self) -> Path:
        return self.cache / "dpguide" / "runs"

    def run_entries(self) -> dict[str, int]:
        """The engine's cache entries (one per block run) with their modification times."""
        return {path.name: path.stat().st_mtime_ns for path in self.runs.glob("*.json")}

    def measure(self, label: str, key: str = "", prepare=None, env=None, repeat=None, runs_nothing=False,
                site: Path | None = None) -> float:
        """Median seconds of ``repeat`` builds; with ``runs_nothing``, a build that ran a block fails the run."""
        times = []
        for _ in range(repeat or self.repeat):
            if prepare:
                prepare()
            before = self.run_entries()
            times.append(timed(BUILD, site or self.site, env or self.env))
            if runs_nothing:
                self.fail_if_ran(label, before)
        return self.add(label, statistics.median(times), key)

    def fail_if_ran(self, label: str, before: dict[str, int]) -> None:
        """Raise BenchmarkFailed if a cache entry was written (a block ran) since ``before``."""
        ran = sorted(set(self.run_entries().items()) - set(before.items()))
        if ran:
            raise BenchmarkFailed(f"{label}: the build ran {len(ran)} block(s) (cache entries written: "
                                  f"{', '.join(name for name, _ in ran[:5])}); it must run none")

    def floor(self, label: str = "1 floor: hooks disabled") -> float:
        return self.measure(label, "floor", env={**self.env, "DPGUIDE_DISABLE": "1"})

    def cold(self, label: str, repeat=None, key: str = "cold", env=None) -> float:
        return self.measure(label, key, prepare=lambda: shutil.rmtree(self.cache, ignore_errors=True),
                            repeat=repeat, env=env)

    def both_colds(self, label: str, repeat=None, old_path: bool = True) -> None:
        """Row 2b, the old path (torchrun's agent and ranks as fresh interpreters, one slot per core),
        unless ``old_path`` is false, then row 2, so the cache left behind holds the new path's run times."""
        cores = os.cpu_count() or 1
        if old_path:
                self.cold(f"2b {label}, old path: torchrun processes fresh ({FRESH_RANKS}=1), one slot per core "
                      f"(DPGUIDE_JOBS={cores})", repeat, "oldcold",
                      env={**self.env, FRESH_RANKS: "1", "DPGUIDE_JOBS": str(cores)})
        self.cold(f"2 {label}", repeat)

    def append_to(self, path: Path, line: str):
        """A `prepare` that appends a new numbered ``line`` to ``path`` (so every build sees a change)."""
        def edit():
            self.edits += 1
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line.format(self.edits))
        return edit

    def rebuilds(self, prose_page: str) -> None:
        """Rows 3-5: nothing changed (and the content floor of those pages), one snippet changed (and
        its bound), one page's prose changed."""
        from dpguide.engine import Engine

        self.measure("3 warm: nothing changed", "warm", runs_nothing=True)
        self.content_floor()
        self.measure("3c warm, render memo off (DPGUIDE_RENDER_MEMO=0)", "warmnomemo", runs_nothing=True,
                     env={**self.env, "DPGUIDE_RENDER_MEMO": "0"})
        engine = Engine(self.site, log=lambda m: None)
        single = [b for b in engine.collect() if b.snippet and b.options.launch == "python"
                  and b.options.runs_on_cpu_build and not b.options.expect_fail]
        if single:
            self.measure(f"4 one snippet changed ({single[0].snippet.relpath})", "snippet",
                         prepare=self.append_to(single[0].snippet.path, "# benchmark edit {}\n"))
            self.snippet_bound(single[0], engine.block_env)
        self.measure(f"5 prose-only edit ({prose_page})", "prose", runs_nothing=True,
                     prepare=self.append_to(self.site / "docs" / prose_page, "\nA prose edit, number {}.\n"))

    def content_floor(self) -> None:
        """Row 3b: a warm build that also writes its pages as rendered (RENDERED_PAGES_HOOK), then
        plain MkDocs on a copy made of them; the two sites' HTML pages and search indexes must be the same."""
        content = self.site.parent / "content-floor"
        shutil.rmtree(content, ignore_errors=True)
        content.mkdir()
        copy_site(content, self.site)
        config = self.site / "mkdocs-rendered-pages.yml"
        hooks = [*(read_config(self.site).get("hooks") or []), str(RENDERED_PAGES_HOOK)]
        config.write_text(yaml.safe_dump({"INHERIT": "mkdocs.yml", "hooks": hooks}), encoding="utf-8")
        before = self.run_entries()
        # not quiet, to read the memo's line; as with -q, warnings do not stop it (the quick copy has some)
        dump = run_checked([sys.executable, "-m", "mkdocs", "build", "--no-strict", "-d", "site-rendered",
                            "-f", config.name], self.site, {**self.env, "DPGUIDE_RENDERED_PAGES": str(content / "docs")})
        self.fail_if_ran("3b the warm build that writes the rendered pages", before)
        if not served_from_memo(dump.stderr):
            raise BenchmarkFailed("3b: the warm build that writes the rendered pages did not take every code "
                                  "block and page from the render memo, so the comparison would not check it")
        seconds = self.measure("3b content floor: hooks disabled, pages as the warm build rendered them",
                               "contentfloor", env={**self.env, "DPGUIDE_DISABLE": "1"}, site=content)
        ours, plain = shown_files(self.site / "site-rendered"), shown_files(content / "site-out")
        differ = sorted(name for name in ours.keys() | plain.keys() if ours.get(name) != plain.get(name))
        if differ:
            raise BenchmarkFailed(f"the content floor's HTML or search index differs from the warm build's in "
                                  f"{len(differ)} file(s) ({', '.join(differ[:5])}): its {seconds:.2f} s would "
                                  "not be a floor")

    def snippet_bound(self, block, env: dict[str, str]) -> None:
        """Row 4b: the goal for row 4, from this run's floor and the block's own bare run (median)."""
        scratch = self.site.parent / "bare-snippet"
        bare = [seconds for _ in range(self.repeat) if (seconds := time_bare(block, scratch, env)) is not None]
        if not bare:
            raise BenchmarkFailed(f"{block.label}: its bare command failed every time: row 4 has no bound")
        floor = next(row.seconds for row in self.rows if row.key == "floor")
        self.add(f"4b bound for row 4: floor + that block's bare python ({statistics.median(bare):.2f} s) + 1 s",
                 floor + statistics.median(bare) + 1.0, "snippetbound")


# ---------------------------------------------------------------------- per block
def baseline_blocks(blocks, launch: str) -> list:
    """Blocks of ``launch`` a CPU build runs and that must succeed (a bare run of the others fails),
    on the pages themselves: the runs behind quiz answers and cards are left out, so that the
    bare loops take minutes, not most of an hour."""
    return [b for b in blocks if b.options.launch == launch and b.options.runs_on_cpu_build
            and not b.options.expect_fail and not b.role]


def bare_command(block) -> list[str]:
    """The reader's command for ``block``, with this interpreter for `python` and `torchrun`."""
    words = shlex.split(block.reader_command)
    head = [sys.executable] if words[0] == "python" else [sys.executable, "-m", "torch.distributed.run"]
    return head + words[1:]


def time_bare(block, scratch: Path, env: dict[str, str]) -> float | None:
    """Seconds for the reader's own command, run in a fresh copy of the block's files; None (noted in
    the log) if it failed twice, and the caller leaves the block out of both sums."""
    from dpguide.launch import Job, prepare_scratch

    job = Job(block.key, block.label, block.files, block.script, block.options)
    # the reader's command goes through Python's whole exit, where a live gloo worker thread can abort
    # a rank now and then (Learn > Debugging > Ending a script cleanly); the engine's processes skip
    # that teardown. A failure is noted and the command run again; a second one leaves the block out.
    for outcome in ("once, run again", "twice, left out of both sums"):
        try:
            return timed(bare_command(block), (prepare_scratch(job, scratch) / block.script).parent, env)
        except BenchmarkFailed as failed:
            last = str(failed).strip().splitlines()[-1]
            print(f"  {block.label}: the bare command failed {outcome} ({last})", flush=True)
    return None


def python_overhead(engine, blocks, scratch: Path) -> tuple[float, float, int]:
    """(engine, bare python) seconds summed over the ``blocks`` whose bare command ran, and how
    many those were; each block printed."""
    from dpguide.engine import shared_forkserver
    from dpguide.launch import Job, run_job

    server = shared_forkserver(engine.block_env)
    server.ensure_started()
    engine_total = bare_total = 0.0
    counted = 0
    try:
        for block in blocks:
            job = Job(block.key, block.label, block.files, block.script, block.options)
            start = time.perf_counter()
            result = run_job(job, engine.scratch_root, engine.block_env, server, engine.live)
            ours = time.perf_counter() - start
            if not result.succeeded:
                raise BenchmarkFailed(f"{block.label}: the engine's run failed ({result.failure_summary()}):\n"
                                      f"{result.tail()}")
            bare = time_bare(block, scratch, engine.block_env)
            if bare is None:
                continue
            engine_total, bare_total, counted = engine_total + ours, bare_total + bare, counted + 1
            print(f"  {block.label:<70} engine {ours:6.3f} s   bare python {bare:6.3f} s", flush=True)
    finally:
        server.close()
    return engine_total, bare_total, counted


def torchrun_overhead(blocks, cold_seconds: dict, env: dict, scratch: Path) -> tuple[float, float, int]:
    """(engine in the cold build, bare torchrun) seconds summed over the ``blocks`` whose bare command
    ran, and how many those were; each block printed."""
    engine_total = bare_total = 0.0
    counted = 0
    for block in blocks:
        bare = time_bare(block, scratch, env)
        if bare is None:
            continue
        engine_total, bare_total, counted = engine_total + cold_seconds[block.key], bare_total + bare, counted + 1
        print(f"  {block.label:<70} engine {cold_seconds[block.key]:6.2f} s   bare torchrun {bare:6.2f} s",
              flush=True)
    return engine_total, bare_total, counted


# ---------------------------------------------------------------------- markdown-exec (row 7)
MINI_CONFIG = """site_name: bench
theme:
  name: material
  font: false
markdown_extensions:
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - admonition
  - attr_list
  - md_in_html
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
"""


def single_process_codes() -> list[str]:
    """Code of the site's single-process blocks that succeed and stand alone (no local imports, no __file__, no args)."""
    from dpguide.engine import Engine

    engine = Engine(ROOT, log=lambda m: None)
    codes = []
    for block in baseline_blocks(engine.collect(), "python"):
        if block.deps or block.role or block.options.args:
            continue
        code = block.code.decode()
        if "__file__" not in code and "dpguide" not in code:
            codes.append(code)
    return codes


def compare_markdown_exec(repeat: int, env: dict) -> list[Row]:
    try:
        import markdown_exec  # noqa: F401
    except ImportError:
        print("\n7 skipped: markdown-exec is not installed (pip install -e '.[bench]')")
        return []
    codes = single_process_codes()
    rows = []
    with tempfile.TemporaryDirectory(prefix="dpguide-bench-mx-") as tmp:
        ours, theirs = Path(tmp) / "ours", Path(tmp) / "theirs"
        for site, fence, extra in ((ours, "```python", f"hooks:\n  - {ROOT / 'hooks' / 'execute.py'}\n"),
                                   (theirs, '```python exec="on" result="text"', "plugins:\n  - markdown-exec\n")):
            (site / "docs").mkdir(parents=True)
            (site / "mkdocs.yml").write_text(MINI_CONFIG + extra)
            body = "\n\n".join(f"{fence}\n{code.rstrip()}\n```" for code in codes)
            (site / "docs" / "index.md").write_text("# Blocks\n\n" + body + "\n")
        build = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", "out"]

        def median(site, prepare=None):
            times = []
            for _ in range(repeat):
                if prepare:
                    prepare()
                times.append(timed(build, site, env))
            return statistics.median(times)

        label = f"7 {len(codes)} single-process blocks"
        rows.append(Row(f"{label}: markdown-exec (no cache)", median(theirs), "mx"))
        rows.append(Row(f"{label}: this engine, cold",
                        median(ours, lambda: shutil.rmtree(ours / ".cache", ignore_errors=True)), "singlecold"))
        rows.append(Row(f"{label}: this engine, warm", median(ours)))
    for row in rows:
        print(f"  {row.label:<60} {row.seconds:7.2f} s", flush=True)
    return rows


# ---------------------------------------------------------------------- the two modes
def run_quick(args) -> int:
    """Seconds, not minutes: the whole copy with hooks off, then rows 1-6 on QUICK_PAGES."""
    from dpguide.engine import Engine

    from dpguide.cache import RunCache

    with tempfile.TemporaryDirectory(prefix="dpguide-bench-quick-") as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        copy_site(site)
        bench = Bench(site, args.repeat)
        print(f"quick run (each figure a median of {args.repeat} run(s)); nothing is published", flush=True)
        bench.measure("0 whole site, hooks disabled (every include resolves)",
                      env={**bench.env, "DPGUIDE_DISABLE": "1"})
        cut_to_pages(site, QUICK_PAGES)
        blocks = [b for b in Engine(site, log=lambda m: None).collect() if b.options.runs_on_cpu_build]
        if not blocks:
            raise BenchmarkFailed(f"the quick pages {', '.join(QUICK_PAGES)} hold no block a CPU build runs")
        bench.floor(f"1 floor: {len(QUICK_PAGES)} pages, hooks disabled")
        # the old path is a comparison only the full run publishes: --quick skips its cold build
        bench.both_colds(f"cold: {len(QUICK_PAGES)} pages, {len(blocks)} blocks, empty cache", old_path=False)
        cold_cache = RunCache(bench.cache / "dpguide")
        cold_seconds = {b.key: r.duration for b in blocks if (r := cold_cache.load(b.key)) is not None}
        bench.rebuilds(QUICK_PAGES[-1])
        per_block(bench, Engine(site, cache_dir=Path(tmp) / "fresh-cache", log=lambda m: None),
                  Path(tmp), limit=QUICK_BASELINES)
        torchrun_rows(bench, blocks, cold_seconds, Engine(site, log=lambda m: None).block_env, Path(tmp),
                      limit=QUICK_BASELINES // 2)
    return report(bench.rows, args)


def per_block(bench: Bench, engine, tmp: Path, limit: int | None = None) -> None:
    """Row 6 for single-process blocks: the engine (warm fork server) against bare python."""
    blocks = baseline_blocks(engine.collect(), "python")[:limit]
    print(f"\nper-block overhead, {len(blocks)} single-process blocks (engine from a warm server vs bare python):")
    engine_total, bare_total, counted = python_overhead(engine, blocks, tmp / "bare")
    bench.add(f"6 {counted} single-process blocks, engine (sum)", engine_total, "engine")
    bench.add("6 the same blocks, bare python loop (sum)", bare_total, "bare")


def torchrun_rows(bench: Bench, blocks, cold_seconds: dict, env: dict, tmp: Path, limit: int | None = None) -> None:
    """Row 6 for torchrun blocks: their time in the cold build against the reader's bare torchrun
    (the first ``limit`` of them)."""
    print("\nper-block overhead, torchrun blocks (engine time in the cold build vs bare torchrun):")
    # a multi-node block is one command per node, and a fresh one runs the old way: time the rest
    torchrun_blocks = [b for b in baseline_blocks(blocks, "torchrun")
                       if b.key in cold_seconds and b.options.nnodes == 1 and not b.options.fresh][:limit]
    if not torchrun_blocks:
        raise BenchmarkFailed("no torchrun block to time against bare torchrun")
    engine_total, bare_total, counted = torchrun_overhead(torchrun_blocks, cold_seconds, env, tmp / "bare")
    if not counted:
        raise BenchmarkFailed("no torchrun block's bare command ran: nothing to compare")
    bench.add(f"6 {counted} torchrun blocks, engine in the cold build (sum)", engine_total,
              "trengine")
    bench.add("6 the same blocks, bare torchrun loop (sum)", bare_total, "trbare")


def run_full(args) -> int:
    from dpguide.cache import RunCache
    from dpguide.engine import Engine

    with tempfile.TemporaryDirectory(prefix="dpguide-bench-") as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        copy_site(site)
        bench = Bench(site, args.repeat)
        print("measuring (each figure a median of", args.repeat, "runs)", flush=True)
        bench.floor()
        if args.rebuilds_only:
            if not (ROOT / ".cache").is_dir():
                raise BenchmarkFailed(f"--rebuilds-only starts from this checkout's cache, and {ROOT / '.cache'} "
                                      "does not exist: build the site once first")
            shutil.copytree(ROOT / ".cache", bench.cache, dirs_exist_ok=True)
            timed(BUILD, site, bench.env)          # settle the copied cache (paths of this copy)
        else:
            bench.both_colds("cold: empty cache", repeat=args.cold_repeat)
        cold_cache = RunCache(bench.cache / "dpguide")
        cold_blocks = [b for b in Engine(site, log=lambda m: None).collect() if b.options.runs_on_cpu_build]
        cold_seconds = {b.key: r.duration for b in cold_blocks if (r := cold_cache.load(b.key)) is not None}
        bench.rebuilds("learn/ddp.md")
        if args.rebuilds_only:
            return report(bench.rows, args)

        per_block(bench, Engine(site, cache_dir=Path(tmp) / "fresh-cache", log=lambda m: None), Path(tmp))
        torchrun_rows(bench, cold_blocks, cold_seconds, Engine(site, log=lambda m: None).block_env, Path(tmp))

    bench.rows += compare_markdown_exec(args.repeat, bench.env)
    return report(bench.rows, args)


# ---------------------------------------------------------------------- the report
#: the summary's ratios: name -> (numerator row key, denominator row key)
SUMMARY = {"warm/floor": ("warm", "floor"), "warm/content-floor": ("warm", "contentfloor"),
           "content-floor/floor": ("contentfloor", "floor"), "warm-no-memo/floor": ("warmnomemo", "floor"),
           "one-snippet/floor": ("snippet", "floor"), "one-snippet/bound": ("snippet", "snippetbound"),
           "prose/floor": ("prose", "floor"), "cold/floor": ("cold", "floor"),
           "torchrun-cold/bare": ("trengine", "trbare"), "cold/old-cold": ("cold", "oldcold"),
           "single-cold/markdown-exec": ("singlecold", "mx"), "engine/bare": ("engine", "bare")}


def summary_line(rows: list[Row]) -> str:
    """`summary: warm/floor=... torchrun-cold/bare=... cold/old-cold=...`: ratios of the named rows
    (those the run measured)."""
    named = {row.key: row.seconds for row in rows if row.key}
    ratios = [f"{name}={named[top] / named[bottom]:.2f}" for name, (top, bottom) in SUMMARY.items()
              if named.get(top) is not None and named.get(bottom)]
    return "summary: " + " ".join(ratios)


def report(rows: list[Row], args) -> int:
    import importlib.metadata

    floor = next(row.seconds for row in rows if row.key == "floor")
    machine = (f"{datetime.date.today().isoformat()} on {machine_description()}, Python "
               f"{platform.python_version()}, torch {importlib.metadata.version('torch')}")
    how = ("a quick run (`--quick`: not a published figure)" if args.quick else
           f"median of {args.repeat} runs ({args.cold_repeat} for the cold build)")
    lines = [f"Measured {machine}; {how} by `benchmarks/build_speed.py`.", "",
             "| measurement | seconds | ratio to floor |", "|---|---:|---:|"]
    lines += [f"| {row.label} | {row.seconds:.2f} | {row.seconds / floor:.2f}x |" for row in rows]
    table = "\n".join(lines)
    print("\n" + table)
    summary = summary_line(rows)
    if args.markdown:
        Path(args.markdown).write_text(f"{table}\n\nThe script's last line:\n\n```text\n{summary}\n```\n")
    print(summary)
    return 0


def machine_description() -> str:
    """CPU model, cores, memory and OS of this machine, as far as it says."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB memory"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return f"{model}, {os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}, no GPU used"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="the smallest end-to-end run (CI): whole site with hooks off, then rows 1-6 on "
                             f"{', '.join(QUICK_PAGES)}, once each; writes nothing")
    parser.add_argument("--repeat", type=int, default=None, help="builds per figure (3; 1 with --quick)")
    parser.add_argument("--cold-repeat", type=int, default=1,
                        help="cold builds to take the median of (each runs every block: minutes)")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--rebuilds-only", action="store_true",
                        help="only rows 1, 3, 4 and 5, starting from a copy of this checkout's cache")
    args = parser.parse_args(argv)
    if args.quick and (args.markdown or args.rebuilds_only):
        parser.error("--quick publishes nothing: it takes neither --markdown nor --rebuilds-only")
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return run_quick(args) if args.quick else run_full(args)
    except BenchmarkFailed as exc:
        print(f"\nbenchmark FAILED: {exc}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
