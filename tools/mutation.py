"""Mutation testing of the engine's pure core, on demand: `make mutation`.

Runs mutmut (configured in pyproject.toml: which modules, which fast tests), then prints how many
mutants were generated, killed, survived, timed out or had no test, and the score. Every survivor
must be listed in tests/mutation_equivalent.txt with the reason it cannot change behaviour; a
survivor not listed there fails the run (exit 1), so a new gap in the tests is seen at once.

Why mutmut: it is maintained, needs no configuration beyond pyproject.toml, and forks one process
per mutant after importing the tests once, so the whole run takes minutes on two cores. A
survivor is matched by its function and its mutated line (not by mutmut's running number, which
shifts when code is edited).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "tests" / "mutation_equivalent.txt"
REPORT = ROOT / "benchmarks" / "results" / "mutation.txt"   # the last run's summary, quoted by the Contribute page
MUTMUT = [sys.executable, "-m", "mutmut"]


def run(*args: str) -> str:
    return subprocess.run([*MUTMUT, *args], cwd=ROOT, capture_output=True, text=True).stdout


def signature(name: str) -> str:
    """'dpguide.options.x_apply_options | if value not in ("PYTHON", "torchrun"):' for one mutant."""
    function = re.sub(r"__mutmut_\d+$", "", name)
    shown = run("show", name)
    added = [line[1:].strip() for line in shown.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return f"{function} | {' / '.join(added) if added else '?'}"


def configured_modules() -> list[str]:
    text = (ROOT / "pyproject.toml").read_text()           # no tomllib before Python 3.11
    line = next(line for line in text.splitlines() if line.startswith("only_mutate"))
    return [Path(path).name for path in re.findall(r'"([^"]+)"', line)]


def listed() -> dict[str, str]:
    """The survivors known to be equivalent: signature -> reason."""
    known = {}
    for line in EQUIVALENT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            mutant, _, reason = line.partition("  # ")
            known[mutant.strip()] = reason.strip()
    return known


def main() -> int:
    started = time.monotonic()
    subprocess.run(["rm", "-rf", str(ROOT / "mutants")], check=True)
    done = subprocess.run([*MUTMUT, "run"], cwd=ROOT, capture_output=True, text=True)
    if "failed to collect stats" in done.stdout + done.stderr:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        return 2
    run("export-cicd-stats")
    stats = json.loads((ROOT / "mutants" / "mutmut-cicd-stats.json").read_text())
    survivors = [line.split(":")[0].strip() for line in run("results").splitlines() if line.strip().endswith("survived")]
    known = listed()
    signatures = {name: signature(name) for name in survivors}
    new = sorted(s for s in signatures.values() if s not in known)
    equivalent = len(survivors) - len(new)
    considered = stats["total"] - equivalent
    detected = stats["killed"] + stats["timeout"]
    import datetime
    import os
    import platform

    summary = [
        f"mutants generated: {stats['total']} (modules: {', '.join(configured_modules())})",
        f"killed: {stats['killed']}, timed out (counted as detected): {stats['timeout']}, "
        f"survived: {stats['survived']} ({equivalent} listed as equivalent), no test: {stats['no_tests']}",
        f"score: {detected} of {considered} non-equivalent mutants detected = {100 * detected / max(considered, 1):.1f}%",
        f"wall time: {time.monotonic() - started:.0f} s on {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
    ]
    print("\n".join(summary))
    REPORT.write_text("\n".join(summary) + "\n")
    stale = sorted(set(known) - set(signatures.values()))
    if stale:
        print(f"{len(stale)} listed equivalent mutant(s) no longer survive (remove them from {EQUIVALENT.name}):")
        print("\n".join("  " + s for s in stale))
    if new:
        print(f"\nFAILED: {len(new)} survivor(s) not listed in {EQUIVALENT.relative_to(ROOT)}: kill each with a test, "
              "or list it there with the reason it cannot change behaviour:")
        print("\n".join("  " + s for s in new))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
