"""Fetch the pinned browser libraries from the npm registry so the site works offline (part of the install).

Mermaid draws the diagrams (Material would load it from unpkg.com unless a ``mermaid`` global already
exists); ts-fsrs schedules flashcard reviews with FSRS, the algorithm Anki uses. Each file is taken
from the package's tarball after its sha512 matched the integrity the registry publishes for that
exact version, and written under docs/javascripts/vendor/ (ignored by git), which mkdocs.yml loads.
A file already there at the pinned version is kept, so re-running the install is instant.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "docs" / "javascripts" / "vendor"
#: package -> (pinned version, file inside the tarball, file written under docs/javascripts/vendor/)
PACKAGES = {
    "mermaid": ("11.12.0", "package/dist/mermaid.min.js", "mermaid.min.js"),
    "ts-fsrs": ("5.4.2", "package/dist/index.umd.js", "ts-fsrs.umd.js"),
}


def fetch(package: str, version: str, member: str, target: Path) -> str:
    stamp = target.with_suffix(".version")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == version:
        return f"{package} {version} already at {target}"
    with urllib.request.urlopen(f"https://registry.npmjs.org/{package}/{version}", timeout=60) as response:
        meta = json.load(response)
    algorithm, _, expected = meta["dist"]["integrity"].partition("-")
    with urllib.request.urlopen(meta["dist"]["tarball"], timeout=120) as response:
        data = response.read()
    if base64.b64encode(hashlib.new(algorithm, data).digest()).decode() != expected:
        raise RuntimeError(f"the {package} {version} tarball failed its {algorithm} check")
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        script = archive.extractfile(member).read()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(script)
    stamp.write_text(version + "\n")
    return f"{package} {version} ({len(script):,} bytes, {algorithm} checked) -> {target}"


def main() -> int:
    try:
        for package, (version, member, name) in PACKAGES.items():
            print(fetch(package, version, member, VENDOR / name))
    except (OSError, RuntimeError, KeyError) as exc:
        print(f"vendoring failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
