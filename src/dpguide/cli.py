"""Command line for contributors: run one block or page as the build does, run all, record GPU blocks.

    dpguide run docs/learn/ddp.md          every block of a page, fresh, per-rank output printed
    dpguide run docs/learn/ddp.md:19       the block whose fence opens on line 19
    dpguide run-all                        every block of the site (cache used), summary table
    dpguide run-all --shard 1/2 --cache-dir DIR   one machine's share of them, into its own cache
    dpguide cache merge DIR... [--into DEST]      merge the shards' caches (seals checked, conflicts refused)
    dpguide record [--only ID] [--check]   run GPU blocks on this machine and write their records
    dpguide anchors docs/learn/ddp.md      the anchor of every run on a page (for a card's proof:)
    dpguide record-release                 run every block twice on this torch, write records/releases/
    dpguide drift-report                   compare the release records, write records/releases/drift.md
    dpguide gpu-statements                 sentences naming GPUs that no citation or GPU block backs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .engine import Engine, check_outcome
from .errors import BlockFailed, GuideError
from .results import RunResult


def find_root(start: Path) -> Path:
    for folder in [start, *start.parents]:
        if (folder / "mkdocs.yml").is_file():
            return folder
    raise GuideError(f"no mkdocs.yml found in {start} or above: run this inside the project")


def print_result(result: RunResult, out=sys.stdout) -> None:
    print(f"$ {result.reader_command}", file=out)
    for source in result.sources():
        print(f"── {source} " + "─" * max(4, 60 - len(source)), file=out)
        print(result.text(source), file=out)
    if result.background_ended:
        print(f"── the program left {result.background_ended} process(es) running; they were ended", file=out)
    print(f"── {result.failure_summary() if not result.succeeded else 'exit status 0'} "
          f"({result.duration:.1f} s)", file=out)


def page_of(target: str, docs_dir: Path) -> str:
    """The page a target names: a path from here (docs/learn/x.md) or from the docs folder (learn/x.md)."""
    docs = docs_dir.resolve()
    for candidate in (Path(target).resolve(), docs / target):
        if candidate.is_relative_to(docs) and candidate.is_file():
            return candidate.relative_to(docs).as_posix()
    raise GuideError(f"{target}: no such page under {docs_dir} "
                     "(give docs/learn/ddp.md, or learn/ddp.md, optionally with :LINE)")


def cmd_run(args) -> int:
    root = find_root(Path.cwd())
    engine = Engine(root)
    target, _, line = args.target.partition(":")
    page = page_of(target, engine.docs_dir)
    blocks = [b for b in engine.collect() if b.page == page and (not line or b.line == int(line))]
    if not blocks:
        raise GuideError(f"{args.target}: no python block there")
    from .launch import run_job, Job
    from .engine import shared_forkserver

    status = 0
    for block in blocks:
        print(f"\n=== {block.label}")
        if not block.options.runs_on_cpu_build:
            print("not run on this machine: " + (block.options.skip or "needs a GPU (see dpguide record)"))
            continue
        job = Job(block.key, block.label, block.files, block.script, block.options)
        result = run_job(job, engine.scratch_root, engine.block_env, shared_forkserver(engine.block_env), engine.live)
        print_result(result)
        try:
            check_outcome(block, result)
            engine.cache.store(block.key, result)
        except BlockFailed as exc:
            print(f"\nFAILED: {exc}", file=sys.stderr)
            status = 1
    return status


def cmd_run_all(args) -> int:
    root = find_root(Path.cwd())
    engine = Engine(root, cache_dir=args.cache_dir, log=lambda msg: print(msg, file=sys.stderr))
    engine.progress_tty = None
    blocks = engine.collect()
    if args.shard:
        blocks = shard_blocks(root, blocks, args.shard, args.gpu_shards)
    try:
        engine.run(blocks)
        return_code = 0
    except BlockFailed as exc:
        print(exc, file=sys.stderr)
        return_code = 1
    print(engine.summary_table())
    return return_code


def shard_blocks(root: Path, blocks, shard_text: str, gpu_shards_text: str | None):
    """The blocks of shard K/N (see shards.py), with one line saying what the plan gave each shard."""
    import importlib.metadata

    from .engine import guessed_seconds
    from .gpu_records import content_key
    from .release_records import ReleaseRecords
    from .shards import parse_gpu_shards, parse_shard, plan_shards, recorded_seconds

    shard = parse_shard(shard_text)
    gpu_shards = parse_gpu_shards(gpu_shards_text, shard.count)
    # the build's own release record, found by torch's version alone (importing torch here would
    # put it into the warm servers this process forks); any flavour's durations balance the shards
    version = importlib.metadata.version("torch").partition("+")[0]
    records = ReleaseRecords(root / "records" / "releases").records
    own = next((r for r in records if r.torch.partition("+")[0] == version), None)
    plan = plan_shards(blocks, shard.count, recorded_seconds(own, content_key, guessed_seconds), gpu_shards)
    mine = set(plan.keys[shard.index - 1])
    print(f"[dpguide] shard {shard}: {len(mine)} of {sum(map(len, plan.keys))} blocks; recorded seconds per shard "
          + ", ".join(f"{i + 1}/{shard.count} {seconds:.0f} s" for i, seconds in enumerate(plan.seconds))
          + f" (durations from {'torch-' + own.torch + '.json' if own else 'guesses: no record of this torch'})",
          file=sys.stderr)
    return [block for block in blocks if block.key in mine]


def cmd_cache_merge(args) -> int:
    from .cache_merge import merge_caches

    root = find_root(Path.cwd())
    target = Path(args.into) if args.into else root / ".cache" / "dpguide"
    print(merge_caches(target, [Path(d) for d in args.caches]), file=sys.stderr)
    return 0


def cmd_anchors(args) -> int:
    from .render import page_anchors

    engine = Engine(find_root(Path.cwd()))
    page = page_of(args.target, engine.docs_dir)
    blocks = [b for b in engine.collect() if b.page == page and not b.role]
    for line, anchor in sorted(page_anchors(blocks).items()):
        block = next(b for b in blocks if b.line == line)
        where = "runs on the CPU build" if block.options.runs_on_cpu_build else "not run on the CPU build"
        print(f"{page}#{anchor}\tline {line}\t{where}")
    return 0


def cmd_gpu_statements(args) -> int:
    """Print every sentence the claims check counts as naming GPUs with nothing backing it (page:line)."""
    from .blocks import site_pages
    from .claims import prose_lines
    from .source_citations import uncited_gpu_sentences

    docs = Engine(find_root(Path.cwd()), log=lambda *_: None).docs_dir
    found = [s for page, text in site_pages(docs).items() for s in uncited_gpu_sentences(page, text, list(prose_lines(text)))]
    for sentence in found:
        print(f"docs/{sentence.page}:{sentence.line}: {sentence.text}")
    print(f"{len(found)} sentences name GPUs, CUDA or NCCL with neither a citation in their paragraph nor a GPU "
          "block in their section; a statement of fact among them needs one", file=sys.stderr)
    return 0


def cmd_record(args) -> int:
    from .recording import record_all

    return record_all(find_root(Path.cwd()), only=args.only, check=args.check)


def cmd_record_release(args) -> int:
    from .release_recording import record_release

    return record_release(find_root(Path.cwd()), runs=args.runs, refresh=args.refresh, reference=args.reference)


def cmd_drift_report(args) -> int:
    from .release_drift import report_drift

    return report_drift(find_root(Path.cwd()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dpguide", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the blocks of one page (or one block: PAGE:LINE) as the build does")
    run.add_argument("target")
    run.set_defaults(func=cmd_run)
    run_all = sub.add_parser("run-all", help="run every block (cached ones are not re-run) and print a table")
    run_all.add_argument("--shard", metavar="K/N", help="run only shard K of N (bin-packed by recorded durations)")
    run_all.add_argument("--gpu-shards", metavar="LIST", help="with --shard: the shards whose machines have GPUs "
                         "(e.g. 1,2); blocks needing a GPU go only there")
    run_all.add_argument("--cache-dir", type=Path, help="the run cache to use (default .cache/dpguide)")
    run_all.set_defaults(func=cmd_run_all)
    cache = sub.add_parser("cache", help="work on run caches").add_subparsers(dest="cache_command", required=True)
    merge = cache.add_parser("merge", help="merge run caches (one per shard) into one, every seal checked")
    merge.add_argument("caches", nargs="+", type=Path, help="the run caches to merge in (each holds runs/)")
    merge.add_argument("--into", type=Path, help="the cache to merge into (default .cache/dpguide)")
    merge.set_defaults(func=cmd_cache_merge)
    anchors = sub.add_parser("anchors", help="list the anchor of every run on a page (a card's proof: names one)")
    anchors.add_argument("target")
    anchors.set_defaults(func=cmd_anchors)
    record = sub.add_parser("record", help="run GPU blocks on this machine and write records/gpu/*.json")
    record.add_argument("--only", help="record only the block with this identity (as the page names it)")
    record.add_argument("--check", action="store_true",
                        help="fail if a record's output changed (drift) instead of silently rewriting it")
    record.set_defaults(func=cmd_record)
    release = sub.add_parser("record-release", help="run every CPU-build block on the torch installed here "
                             "and write its release record (records/releases/torch-VERSION.json)")
    release.add_argument("--runs", type=int, default=2, help="cold runs of every block (2: races show)")
    release.add_argument("--refresh", action="store_true",
                         help="record only the blocks whose code changed or that are new since, keep the rest")
    release.add_argument("--reference", type=Path, metavar="RECORD",
                         help="the build torch's record: a second run only for blocks whose first printed otherwise")
    release.set_defaults(func=cmd_record_release)
    sub.add_parser("gpu-statements", help="list the sentences naming GPUs, CUDA or NCCL that no citation or GPU "
                   "block backs (the claims check's count)").set_defaults(func=cmd_gpu_statements)
    sub.add_parser("drift-report", help="compare every release record with the installed torch's, write "
                   "records/releases/drift.md").set_defaults(func=cmd_drift_report)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GuideError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
