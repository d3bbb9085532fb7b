"""Fetch a pinned Mermaid build from the npm registry so diagrams render offline (part of the install).

Material for MkDocs loads Mermaid from unpkg.com unless a ``mermaid`` global
already exists; the site must work offline, so the install step puts a
checked copy at docs/javascripts/vendor/mermaid.min.js (ignored by git) and
mkdocs.yml loads it first. The tarball's sha512 is checked against the
integrity the registry publishes for that version.
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

VERSION = "11.12.0"
TARGET = Path(__file__).resolve().parents[1] / "docs" / "javascripts" / "vendor" / "mermaid.min.js"


def main() -> int:
    if TARGET.exists() and TARGET.with_suffix(".version").exists() and \
            TARGET.with_suffix(".version").read_text().strip() == VERSION:
        print(f"mermaid {VERSION} already at {TARGET}")
        return 0
    with urllib.request.urlopen(f"https://registry.npmjs.org/mermaid/{VERSION}", timeout=60) as response:
        meta = json.load(response)
    integrity = meta["dist"]["integrity"]
    algorithm, _, expected = integrity.partition("-")
    with urllib.request.urlopen(meta["dist"]["tarball"], timeout=120) as response:
        data = response.read()
    digest = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if digest != expected:
        print(f"mermaid tarball failed its {algorithm} check", file=sys.stderr)
        return 1
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        script = archive.extractfile("package/dist/mermaid.min.js").read()
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_bytes(script)
    TARGET.with_suffix(".version").write_text(VERSION + "\n")
    print(f"mermaid {VERSION} ({len(script):,} bytes, {algorithm} checked) -> {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
