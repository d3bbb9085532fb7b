"""The facts a page may quote with `{site} NAME`, computed by the build, never typed.

How many questions and cards this build proved and how (from ``SiteProofs``), how many statements
cite the torch source, and each Learn page's reading time from the words of its prose.
"""

from __future__ import annotations

import re
from pathlib import Path

from .claims import prose_lines

WORDS_PER_MINUTE = 200  # a common reading speed for technical prose; code read slower is not counted


def build_facts(proof_counts: dict[str, int], card_counts: dict[str, int], claim_counts: dict[str, int],
                reading: dict[str, int]) -> dict[str, int]:
    """Every site fact by name, from the counts of one build and its reading times."""
    counts, cards = proof_counts, card_counts
    proven = sum(counts.get(k, 0) for k in ("output-compared", "wrong-options-fail", "fill-unique"))
    return {"questions": sum(counts.values()), "questions_proven": proven,
            "questions_run": proven + counts.get("code-runs", 0) + counts.get("fill-answer-runs", 0),
            "questions_explained": counts.get("explained", 0) + counts.get("gpu-unrecorded", 0),
            **{f"questions_{k.replace('-', '_')}": v for k, v in counts.items()},
            "cards": cards.get("check", 0) + cards.get("proof", 0),
            "cards_checked": cards.get("check", 0), "cards_linked": cards.get("proof", 0),
            "statements_cited": claim_counts.get("sources", 0),
            **reading}


def reading_minutes(docs_dir: Path) -> dict[str, int]:
    """`minutes_learn_ddp`: a Learn page's reading time, from the words of its prose at 200 a minute
    (never under one minute), and `reading_words_per_minute` itself."""
    found = {"reading_words_per_minute": WORDS_PER_MINUTE}
    for path in sorted((docs_dir / "learn").glob("*.md")):
        words = sum(len(line.split()) for _, line in prose_lines(path.read_text(encoding="utf-8")))
        found["minutes_learn_" + re.sub(r"\W", "_", path.stem)] = max(1, round(words / WORDS_PER_MINUTE))
    return found
