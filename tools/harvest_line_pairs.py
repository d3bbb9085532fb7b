"""Harvest real pairs of printed lines for the noise filter's tests (tests/data/real_line_pairs.json).

    .venv/bin/python tools/harvest_line_pairs.py

Builds nothing: it reads this build's results (the cache, after a build) and the committed release
records, lines up each block's lines per printer, and keeps pairs whose raw text differs: those the
filter makes equal ("noise") and those it keeps apart ("real"), a few of each kind of rule, with the
block and the two releases they come from. Review the "real" ones by eye before committing: each
must be a true difference of output, the "noise" ones a true non-difference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpguide.gpu_records import content_key  # noqa: E402
from dpguide.output_drift import NOISE, blur  # noqa: E402
from dpguide.release_records import ReleaseRecords  # noqa: E402
from dpguide.site import SiteBuild  # noqa: E402


def main() -> int:
    build = SiteBuild(ROOT, info=lambda *_: None)
    blocks = build.execute()
    own = build.build_torch()
    records = ReleaseRecords(ROOT / "records" / "releases")
    noise: dict[str, list] = {}
    real: list = []
    for block in blocks:
        result = build.engine.result_for(block)
        if result is None:
            continue
        for record in records.records:
            runs = record.runs.get(content_key(block))
            if runs is None:
                continue
            others = [(record.torch, runs.first)] + ([(record.torch + " (second run)", runs.second)] if runs.second else [])
            for where, other in others:
                if where == record.torch and record.torch == own:
                    continue
                for a, b in zip(result.lines, other.lines):
                    if a.source != b.source or a.text == b.text:
                        continue
                    item = {"block": block.label, "releases": [own, where], "a": a.text, "b": b.text}
                    if blur(a.text) == blur(b.text):
                        rule = next((w for w, p, _ in NOISE if p.search(a.text) and p.sub("", a.text) != a.text), "?")
                        noise.setdefault(rule, []).append(item)
                    elif len(real) < 200:
                        real.append(item)
    pairs = {"noise": [i for items in noise.values() for i in items[:3]], "real": real[:12]}
    path = ROOT / "tests" / "data" / "real_line_pairs.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(pairs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(pairs['noise'])} noise pairs ({', '.join(noise)}), {len(pairs['real'])} real differences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
