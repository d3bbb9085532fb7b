"""Build-speed benchmark: prints a table of build times measured side by side in one run.

    .venv/bin/python benchmarks/build_speed.py [--repeat 3] [--markdown out.md]

Measures, on a copy of this site in a temporary directory (so the real cache is untouched):
  1. floor        plain `mkdocs build` with the execution hooks disabled (DPGUIDE_DISABLE=1)
  2. cold         a build with the engine and an empty cache
  3. warm         a rebuild with nothing changed
  4. one snippet  a rebuild after one single-process snippet changed
  5. prose only   a rebuild after a prose-only edit to one page (must re-run no block)
  6. per block    the engine's time for each single-process block against a bare `python FILE`
  7. markdown-exec the same single-process blocks executed by markdown-exec (in the MkDocs process,
                   no isolation, no cache) against this engine (a forked process per block), cold
                   and warm; needs `pip install -e '.[bench]'`
Each figure is the median of --repeat runs and is also given as a ratio to the floor.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return elapsed


def copy_site(target: Path) -> None:
    for name in ("docs", "hooks", "overrides", "records", "mkdocs.yml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name)
        elif source.exists():
            shutil.copy(source, target / name)


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
    """Code of the site's single-process blocks that succeed and stand alone (no local imports, no __file__)."""
    from dpguide.engine import Engine

    engine = Engine(ROOT, log=lambda m: None)
    codes = []
    for block in engine.collect():
        o = block.options
        if o.launch != "python" or not o.runs_on_cpu_build or o.expect_fail or block.deps or block.role:
            continue
        code = block.code.decode()
        if "__file__" not in code and "dpguide" not in code:
            codes.append(code)
    return codes


def compare_markdown_exec(repeat: int, env: dict) -> list[tuple[str, float]]:
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
        rows.append((f"{label}: markdown-exec (no cache)", median(theirs)))
        rows.append((f"{label}: this engine, cold", median(ours, lambda: shutil.rmtree(ours / ".cache", ignore_errors=True))))
        rows.append((f"{label}: this engine, warm", median(ours)))
    for label, value in rows:
        print(f"  {label:<60} {value:7.2f} s", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold-repeat", type=int, default=1,
                        help="cold builds to take the median of (each runs every block: minutes)")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--rebuilds-only", action="store_true",
                        help="only rows 1, 3, 4 and 5, starting from a copy of this checkout's cache")
    args = parser.parse_args()
    from dpguide.engine import Engine

    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site-out"]
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="dpguide-bench-") as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        copy_site(site)
        cache = site / ".cache"

        def median_of(label: str, prepare=None, run_env=env, repeat=None) -> float:
            times = []
            for _ in range(repeat or args.repeat):
                if prepare:
                    prepare()
                times.append(timed(build, site, run_env))
            value = statistics.median(times)
            rows.append((label, value))
            print(f"  {label:<40} {value:7.2f} s", flush=True)
            return value

        print("measuring (each figure a median of", args.repeat, "runs)", flush=True)
        floor = median_of("1 floor: hooks disabled", run_env={**env, "DPGUIDE_DISABLE": "1"})
        if args.rebuilds_only:
            shutil.copytree(ROOT / ".cache", cache, dirs_exist_ok=True)
            timed(build, site, env)          # settle the copied cache (paths of this copy)
        else:
            median_of("2 cold: empty cache", prepare=lambda: shutil.rmtree(cache, ignore_errors=True),
                      repeat=args.cold_repeat)
        from dpguide.cache import RunCache

        cold_cache = RunCache(cache / "dpguide")
        cold_blocks = [b for b in Engine(site, log=lambda m: None).collect() if b.options.runs_on_cpu_build]
        cold_seconds = {b.key: r.duration for b in cold_blocks if (r := cold_cache.load(b.key)) is not None}
        median_of("3 warm: nothing changed")
        engine = Engine(site, log=lambda m: None)
        blocks = engine.collect()
        single = [b for b in blocks if b.snippet and b.options.launch == "python" and b.options.runs_on_cpu_build]
        counter = [0]
        if single:
            target = single[0].snippet.path

            def touch_snippet():
                counter[0] += 1
                with open(target, "a") as handle:
                    handle.write(f"# benchmark edit {counter[0]}\n")

            median_of(f"4 one snippet changed ({single[0].snippet.relpath})", prepare=touch_snippet)
        page = site / "docs" / "learn" / "ddp.md"

        def touch_prose():
            counter[0] += 1
            page.write_text(page.read_text() + f"\nA prose edit, number {counter[0]}.\n")

        median_of("5 prose-only edit (learn/ddp.md)", prepare=touch_prose)
        if args.rebuilds_only:
            return report(rows, floor, args)

        print("\nper-block overhead, single-process blocks (engine from a warm server vs bare python):")
        engine = Engine(site, cache_dir=Path(tmp) / "fresh-cache", log=lambda m: None)
        blocks = [b for b in engine.collect() if b.options.launch == "python" and b.options.runs_on_cpu_build]
        from dpguide.engine import shared_forkserver
        from dpguide.launch import Job, prepare_scratch, run_job

        server = shared_forkserver(engine.block_env)
        server._ensure_started()
        engine_total = bare_total = 0.0
        for block in blocks:
            job = Job(block.key, block.label, block.files, block.script, block.options)
            start = time.perf_counter()
            run_job(job, engine.scratch_root, engine.block_env, server, engine.live)
            ours = time.perf_counter() - start
            workdir = prepare_scratch(job, Path(tmp) / "bare")
            start = time.perf_counter()
            subprocess.run([sys.executable, Path(block.script).name], cwd=(workdir / block.script).parent,
                           env=engine.block_env, capture_output=True)
            bare = time.perf_counter() - start
            engine_total += ours
            bare_total += bare
            print(f"  {block.label:<70} engine {ours:6.3f} s   bare python {bare:6.3f} s")
        server.close()
        rows.append((f"6 {len(blocks)} single-process blocks, engine (sum)", engine_total))
        rows.append((f"6 the same blocks, bare python loop (sum)", bare_total))

        print("\nper-block overhead, torchrun blocks (engine time in the cold build vs bare torchrun):")
        engine_total = bare_total = 0.0
        # a multi-node block is one command per node: the engine's own launch is the only one to time
        torchrun_blocks = [b for b in cold_blocks if b.options.launch == "torchrun" and b.key in cold_seconds
                           and b.options.nnodes == 1]
        for block in torchrun_blocks:
            job = Job(block.key, block.label, block.files, block.script, block.options)
            workdir = prepare_scratch(job, Path(tmp) / "bare")
            command = [sys.executable, "-m", "torch.distributed.run", *block.reader_command.split()[1:]]
            start = time.perf_counter()
            subprocess.run(command, cwd=(workdir / block.script).parent, env=engine.block_env, capture_output=True)
            bare = time.perf_counter() - start
            engine_total += cold_seconds[block.key]
            bare_total += bare
            print(f"  {block.label:<70} engine {cold_seconds[block.key]:6.2f} s   bare torchrun {bare:6.2f} s")
        rows.append((f"6 {len(torchrun_blocks)} torchrun blocks, engine in the cold build (sum)", engine_total))
        rows.append((f"6 the same blocks, bare torchrun loop (sum)", bare_total))

    rows += compare_markdown_exec(args.repeat, env)
    return report(rows, floor, args)


def report(rows, floor, args) -> int:
    when = datetime.date.today().isoformat()
    import importlib.metadata

    machine = (f"{when}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"torch {importlib.metadata.version('torch')}")
    lines = [f"Measured {machine}; median of {args.repeat} runs ({args.cold_repeat} for the cold build) "
             "by `benchmarks/build_speed.py`.", "",
             "| measurement | seconds | ratio to floor |", "|---|---:|---:|"]
    lines += [f"| {label} | {value:.2f} | {value / floor:.2f}x |" for label, value in rows]
    table = "\n".join(lines)
    print("\n" + table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
