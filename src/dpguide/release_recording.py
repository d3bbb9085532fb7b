"""The record-release command: run every block twice on the torch installed here, write its release record
(and what every inline value of the pages evaluates to there).

    dpguide record-release              records/releases/torch-<torch.__version__>.json
    dpguide record-release --refresh    only the blocks changed or new since, merged into that file
    dpguide record-release --reference records/releases/torch-2.15.0+cu132.json
                                        the second run only where the first printed otherwise than there

Each run uses a cache of its own (so every block really runs, twice) and keeps
every block's result, also of blocks that do not do what their page says: on
another release that is the finding. ``tools/record_release.py`` makes the
virtual environment of a release and calls this in it.

The second run tells a race from a difference, so on another release it matters only where the
first run printed otherwise than the build's torch did (in either of the build record's two runs)
and the block still does what its page says: everywhere else the build shows "same" or "fails"
whatever a second run would print (``ReleaseRecords.compare``). With ``--reference`` (the build's
own record) only those blocks run a second time, which saves most of a release's second pass.
"""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .engine import Engine
from .environment import device_kind
from .errors import BlockFailed, GuideError
from .gpu_records import content_key
from .blocks import Block
from .output_drift import same_output
from .release_records import (ReleaseRecord, block_runs, compared_across_releases, build_flavour, load_record, page_says,
                              release_file_name, write_record)
from .results import RunResult

_PROBE = ("import json, torch; print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda, "
          "'hip': getattr(torch.version, 'hip', None)}))")


def probe_release() -> dict:
    """The provenance of this environment's torch (a fresh interpreter asks it)."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise GuideError(f"cannot import torch in {sys.executable}: {out.stderr.strip()[-500:]}")
    info = json.loads(out.stdout.strip().splitlines()[-1])
    return {"torch": info["torch"], "build": build_flavour(info["cuda"], info["hip"]),
            "python": platform.python_version(), "machine": platform.machine(), "device": device_kind(),
            "date": datetime.date.today().isoformat()}


def site_blocks(root: Path) -> list[Block]:
    """Every block of the site, as it is now, whose output is compared across releases."""
    return [b for b in Engine(root, log=lambda *_: None).collect() if compared_across_releases(b)]


def site_values(root: Path) -> dict[str, str | None]:
    """Every inline value expression of the site's pages, evaluated by the torch installed here in a
    fresh interpreter (the build's claims probe): expression -> its value, None where it raises."""
    from .blocks import site_pages
    from .claims import _Probe, scan_page

    engine = Engine(root, log=lambda *_: None)
    engine.collect()
    snippets = engine.docs_dir / "snippets"
    expressions = sorted({v.expr for page, text in site_pages(engine.docs_dir).items() for v in scan_page(
        page, text, snippets, [q for q in engine.questions if q.page == page],
        [d for d in engine.decks if d.page == page]).values})
    answer = _Probe(sys.executable, json.dumps({"names": [], "values": expressions}), engine.block_env).answer(300)
    return {expr: entry["value"] if entry.get("ok") else None for expr, entry in answer["values"].items()}


def one_run(root: Path, cache_dir: Path, log, only: set[str] | None = None) -> dict[str, RunResult]:
    """Every block compared across releases (or those whose content key is in ``only``) run once with a cold cache:
    content key -> its result, passing or not."""
    engine = Engine(root, cache_dir=cache_dir, log=log)
    blocks = [b for b in engine.collect() if compared_across_releases(b)
              and (only is None or content_key(b) in only)]
    try:
        engine.run(blocks)
    except BlockFailed as exc:
        log(f"[record-release] {exc.where}: on this release (recorded, not an error here)")
    found = {}
    for block in blocks:
        result = engine.result_for(block) or engine.failed_results.get(block.key)
        if result is not None:
            found.setdefault(content_key(block), result)
    return found


def second_run_keys(first: dict[str, RunResult], blocks: list[Block], reference: ReleaseRecord) -> set[str]:
    """The content keys whose second run can change what the build shows: the block does what its page
    says on this release, and its first run printed otherwise than both of the reference's runs (or the
    reference has no run of it)."""
    wanted = set()
    for block in blocks:
        key = content_key(block)
        result = first.get(key)
        if result is None or page_says(block, result):
            continue
        ref = reference.runs.get(key)
        if ref is None or not (same_output(result, ref.first)
                               or (ref.second is not None and same_output(result, ref.second))):
            wanted.add(key)
    return wanted


def record_release(root: Path, runs: int = 2, refresh: bool = False, out=print, reference: Path | None = None) -> int:
    """Record this environment's torch: every block ``runs`` times, or with ``refresh`` only the
    blocks its record lacks (changed or new since), merged into it. With ``reference`` (the build
    torch's record, two runs) a second run is made only where it can matter (``second_run_keys``)."""
    provenance = {**probe_release(), "runs": runs}
    ref = load_record(Path(reference)) if reference is not None else None
    if ref is not None and (ref.torch == provenance["torch"] or runs != 2):
        ref = None                              # the build's own record, or more runs: every block runs each time
    if ref is not None:
        provenance["second_run"] = f"where the first printed otherwise than on torch {ref.torch}"
    path = Path(root) / "records" / "releases" / release_file_name(provenance["torch"])
    blocks = site_blocks(root)
    identities: dict[str, list[str]] = {}
    for block in blocks:
        identities.setdefault(block.identity, []).append(content_key(block))
    every = {key for keys in identities.values() for key in keys}
    kept: dict = {}
    if refresh and path.is_file():
        old = load_record(path)
        if old.provenance["runs"] != runs:
            raise GuideError(f"{path} holds {old.provenance['runs']} runs of every block; refresh with --runs "
                             f"{old.provenance['runs']} or record it again")
        kept = {key: r for key, r in old.runs.items() if key in every}
        if "second_run" in old.provenance:      # its kept blocks had a second run only where it mattered
            provenance.setdefault("second_run", old.provenance["second_run"])
    wanted = every - set(kept)
    out(f"recording {provenance['torch']} ({provenance['build']}): {len(wanted)} of {len(every)} "
        f"blocks, {runs} cold runs each{' (the second where it can matter)' if 'second_run' in provenance else ''}"
        f" -> {path}")
    values = site_values(root)
    if not wanted:
        if refresh and path.is_file() and load_record(path).values != values:
            write_record(path, provenance | {"date": old.provenance["date"]}, kept, identities, values)
            out(f"{path}: no block to record; its {len(values)} inline values written again")
            return 0
        out(f"{path} is up to date: nothing to record")
        return 0
    started = time.monotonic()
    progress = lambda msg: print(msg, file=sys.stderr)    # noqa: E731
    with tempfile.TemporaryDirectory(prefix="dpguide-release-") as scratch:
        results = [one_run(root, Path(scratch) / "run-0", progress, wanted)]
        again = second_run_keys(results[0], blocks, ref) & wanted if ref is not None else wanted
        for n in range(1, runs):
            out(f"run {n + 1}: {len(again)} of {len(wanted)} blocks")
            results.append(one_run(root, Path(scratch) / f"run-{n}", progress, again))
    first, rest = results[0], results[1:]
    recorded = {key: block_runs(result, rest[0].get(key) if rest else None) for key, result in first.items()}
    write_record(path, provenance, {**kept, **recorded}, identities, values)
    varies = sum(r.varies for r in recorded.values())
    out(f"wrote {path}: {len(recorded)} blocks recorded now ({varies} printed otherwise on their second run), "
        f"{len(kept)} kept from before, in {time.monotonic() - started:.0f} s")
    return 0
