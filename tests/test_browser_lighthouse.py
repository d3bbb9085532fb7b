"""Lighthouse (benchmarks/lighthouse.py: pinned npm release, the suite's Chromium, mobile profile,
the site served gzipped) on the home page, a Learn page with rank tabs, a practice set and the
flashcards. Accessibility and best practices must be 100. Performance is printed per page and held
to a floor: on this 2-core machine it moves by ten points and more between runs of the same page,
so a page gets a second run before it fails. Issue 41's goal is 95; the figures are in the note."""

from __future__ import annotations

import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import lighthouse  # noqa: E402

#: medians of three idle runs (benchmarks/results/lighthouse.txt): before diagrams were drawn from
#: records, 84, 81, 94 and 81 (home, learn/ddp, practice, flashcards; single runs went as low as 59);
#: after, 99, 96, 94 and 98
PERFORMANCE_FLOOR = 85
RUNS = 2

pytestmark = pytest.mark.skipif(shutil.which("npx") is None, reason="Lighthouse runs with npx (Node.js)")


def test_lighthouse_scores_of_four_pages(built_site, tmp_path, capsys):
    server, base = lighthouse.serve(built_site)
    lines, problems = [], []
    try:
        for page in lighthouse.PAGES:
            for run in range(RUNS):
                scores = lighthouse.audit(base + page, tmp_path / f"{run}.json")
                lines.append(f"/{page:<15} run {run + 1}: performance {scores['performance']:3d}, accessibility "
                             f"{scores['accessibility']}, best practices {scores['best-practices']}, "
                             f"TBT {scores['total-blocking-time']:.0f} ms, LCP {scores['largest-contentful-paint']:.0f} ms")
                if scores["performance"] >= PERFORMANCE_FLOOR:
                    break
            if scores["accessibility"] != 100 or scores["best-practices"] != 100:
                problems.append(f"/{page}: accessibility {scores['accessibility']}, "
                                f"best practices {scores['best-practices']} (must be 100)")
            if scores["performance"] < PERFORMANCE_FLOOR:
                problems.append(f"/{page}: performance {scores['performance']} in {RUNS} runs "
                                f"(floor {PERFORMANCE_FLOOR})")
    finally:
        server.shutdown()
    with capsys.disabled():
        print("\nLighthouse " + lighthouse.LIGHTHOUSE.split("@")[1] + ", mobile profile:\n" + "\n".join(lines))
    assert problems == [], "\n".join(problems)
