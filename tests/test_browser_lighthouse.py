"""Lighthouse (benchmarks/lighthouse.py: pinned npm release, the suite's Chromium, mobile profile,
the site served gzipped) on the home page, a Learn page with rank tabs, a practice set and the
flashcards. Accessibility and best practices must be 100, and layout shift must stay under
Lighthouse's "good" line of 0.1: those depend on the page, not on how busy the machine is.

The performance score is printed, with the host's benchmark index, and not asserted. It is a timing:
four of its five metrics are the page's main-thread work or paint times scaled by the mobile profile's
CPU slowdown, so it moves with the load on the machine. On this 2-core machine, idle, one page scored
96 in one run and 80 in the next; in CI, learn/ddp scored 79 twice where its idle median is 96, and
that failed a suite whose pages had not changed. A benchmark prints figures and a test asserts what
holds every time, so the scores of record are medians of side-by-side runs of `lighthouse.py --runs 3`
(benchmarks/results/lighthouse.txt). What the score is made of and can be held every time is tested
elsewhere: the bytes of a first visit (test_page_weight), no Mermaid on a page without a drawing
(test_browser_scripts), the score bar written by the build (no shift, asserted here)."""

from __future__ import annotations

import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import lighthouse  # noqa: E402

#: Lighthouse's threshold between a "good" and a "needs improvement" cumulative layout shift
GOOD_LAYOUT_SHIFT = 0.1

pytestmark = pytest.mark.skipif(shutil.which("npx") is None, reason="Lighthouse runs with npx (Node.js)")


def test_lighthouse_scores_of_four_pages(built_site, tmp_path, capsys):
    server, base = lighthouse.serve(built_site)
    lines, problems = [], []
    try:
        for page in lighthouse.PAGES:
            scores = lighthouse.audit(base + page, tmp_path / "report.json")
            lines.append(f"/{page:<15} performance {scores['performance']:3d} (not asserted), accessibility "
                         f"{scores['accessibility']}, best practices {scores['best-practices']}, "
                         f"CLS {scores['cumulative-layout-shift']:.3f}, TBT {scores['total-blocking-time']:.0f} ms, "
                         f"LCP {scores['largest-contentful-paint']:.0f} ms, benchmark index "
                         f"{scores['benchmark-index']:.0f}")
            if scores["accessibility"] != 100 or scores["best-practices"] != 100:
                problems.append(f"/{page}: accessibility {scores['accessibility']}, "
                                f"best practices {scores['best-practices']} (must be 100)")
            if scores["cumulative-layout-shift"] >= GOOD_LAYOUT_SHIFT:
                problems.append(f"/{page}: cumulative layout shift {scores['cumulative-layout-shift']:.3f} "
                                f"(must stay under {GOOD_LAYOUT_SHIFT})")
    finally:
        server.shutdown()
    with capsys.disabled():
        print("\nLighthouse " + lighthouse.LIGHTHOUSE.split("@")[1] + ", mobile profile:\n" + "\n".join(lines))
    assert problems == [], "\n".join(problems)
