"""Recording the other torch releases against one cold build of the site, measured in one run.

    .venv/bin/python benchmarks/record_speed.py            cold build, then every record, timed
    .venv/bin/python benchmarks/record_speed.py --keep     ... and copy the records it made into records/releases/

In a copy of the site (an empty run cache, so every block really runs): first a cold strict build on
the build's torch, then the build torch's own release record (two cold runs of every block), then
each release of the Makefile's RELEASES in its own venv (`.venvs/`, made by `make record-releases`
or `tools/record_release.py VERSION --install-only`): one cold run of every block and a second one
for the blocks whose first printed otherwise than the build's torch. Prints each step's seconds and
its ratio to the cold build, one after another on this machine: the releases are recorded one
after another, since side by side on the same cores they only share them (on separate runners,
`.github/workflows/release-records.yml`, they take about as long as the slowest of them).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_speed import copy_site, machine_description  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def releases() -> list[str]:
    line = next(line for line in (ROOT / "Makefile").read_text().splitlines() if line.startswith("RELEASES ?="))
    return line.split("=", 1)[1].split()


def venv_python(release: str) -> Path:
    public, _, label = release.partition("+")
    return ROOT / ".venvs" / (f"torch-{public}" + ("-cpu" if label == "cpu" else "")) / "bin" / "python"


def timed(command: list[str], cwd: Path, log: Path) -> tuple[float, str]:
    """Seconds ``command`` took (it must succeed) and what it printed on stdout."""
    started = time.monotonic()
    with open(log, "ab") as err:
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=err,
                              env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    seconds = time.monotonic() - started
    if done.returncode != 0:      # the log goes with the scratch folder: say what went wrong here
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
    return seconds, done.stdout.decode(errors="replace")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="copy the records made into records/releases/")
    args = parser.parse_args()
    missing = [r for r in releases() if not venv_python(r).exists()]
    if missing:
        sys.exit(f"no venv for {', '.join(missing)}: python3 tools/record_release.py {' '.join(missing)} --install-only")
    print(f"machine: {machine_description()}")
    with tempfile.TemporaryDirectory(prefix="dpguide-record-speed-") as scratch:
        site, log = Path(scratch) / "site", Path(scratch) / "log.txt"
        copy_site(site)
        rows = []
        cold, _ = timed([str(ROOT / ".venv/bin/mkdocs"), "build", "--strict", "-d", str(Path(scratch) / "out")],
                        site, log)
        rows.append(("cold strict build (torch of the build, every block once)", cold, ""))
        seconds, said = timed([str(ROOT / ".venv/bin/python"), "-m", "dpguide.cli", "record-release"], site, log)
        reference = Path(re.search(r"wrote (\S+\.json)", said)[1].rstrip(":"))
        rows.append((f"record {reference.stem} (two runs of every block)", seconds, ""))
        for release in releases():
            seconds, said = timed([str(venv_python(release)), "-m", "dpguide.cli", "record-release",
                                   "--reference", str(reference)], site, log)
            second = re.search(r"run 2: (\d+) of (\d+) blocks", said)
            rows.append((f"record torch {release}", seconds,
                         f"second run: {second[1]} of {second[2]} blocks" if second else ""))
        width = max(len(label) for label, _, _ in rows)
        print(f"{'step':<{width}}  {'seconds':>8}  {'x cold':>6}")
        for label, seconds, note in rows:
            print(f"{label:<{width}}  {seconds:8.0f}  {seconds / cold:6.2f}  {note}")
        others = sum(seconds for _, seconds, _ in rows[2:])
        every = sum(seconds for _, seconds, _ in rows[1:])
        print(f"the {len(rows) - 2} other releases: {others:.0f} s = {others / cold:.2f} x cold; with the build "
              f"torch's own record: {every:.0f} s = {every / cold:.2f} x cold")
        if args.keep:
            for record in (site / "records" / "releases").glob("*.json"):
                shutil.copy(record, ROOT / "records" / "releases" / record.name)
            print(f"records copied into {ROOT / 'records' / 'releases'}: run `.venv/bin/dpguide drift-report`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
