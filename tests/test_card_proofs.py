"""Flashcards are proven: each card carries a check the build runs (its output on the back) or names the
run on a Learn page that proves it; a card with neither, or a proof that names no run, stops the build."""

from __future__ import annotations

import json
import re

import pytest

from dpguide.errors import GuideError
from dpguide.site import SiteBuild

pytestmark = pytest.mark.usefixtures("clean_process_table")

LESSON = """\
# Lesson

```python
--8<-- "topic/sizes.py"
```

```python anchor="second-look"
print("inline", 2 + 2)
```
"""


def deck(cards: str) -> str:
    return "# Cards\n\n```flashcards\nid: d-one\ntitle: One\ncards:\n" + cards + "```\n"


def build(project):
    sb = SiteBuild(project.root, docs_dir=project.docs, cache_dir=project.root / "cache", info=lambda m: None)
    sb.execute()
    return sb, sb.render_page("cards.md", (project.docs / "cards.md").read_text())


def setup(project, cards: str):
    project.snippet("topic/sizes.py", "print('world size', 2)\n")
    project.page("lesson.md", LESSON)
    project.page("cards.md", deck(cards))


def test_a_card_with_neither_check_nor_proof_stops_the_build_at_its_line(project):
    setup(project, "  - front: F\n    back: B\n")
    with pytest.raises(GuideError, match=r"cards.md:7: this card is not proven"):
        build(project)


def test_a_check_runs_and_its_real_output_is_on_the_back(project):
    setup(project, "  - front: What is 6 x 7?\n    back: 42\n    check: |\n      print(6 * 7)\n")
    sb, text = build(project)
    data = json.loads(re.search(r'<script type="application/json" class="dpg-deck-data">(.*?)</script>', text)[1])
    assert data["cards"][0]["check"] == "42" and data["cards"][0]["command"] == "python block.py"
    assert '<pre class="dpg-card-output"><code>42</code></pre>' in text
    assert sb.card_counts == {"check": 1, "proof": 0}


def test_a_failing_check_fails_the_build(project):
    setup(project, "  - front: F\n    back: B\n    check: |\n      raise SystemExit(3)\n")
    with pytest.raises(GuideError, match=r"cards.md:7 \(deck d-one, card-0\)"):
        build(project)


def test_a_proof_links_to_the_named_run_and_its_box_carries_that_anchor(project):
    setup(project, "  - front: F\n    back: B\n    proof: lesson.md#run-topic-sizes\n"
                   "  - front: G\n    back: C\n    proof: lesson.md#run-second-look\n")
    sb, text = build(project)
    assert 'href="lesson.md#run-topic-sizes">See the run that proves it</a>' in text
    assert 'href="lesson.md#run-second-look">' in text
    lesson = sb.render_page("lesson.md", (project.docs / "lesson.md").read_text())
    assert '<div class="dpg-run" id="run-topic-sizes" markdown>' in lesson
    assert '<div class="dpg-run" id="run-second-look" markdown>' in lesson
    assert sb.card_counts == {"check": 0, "proof": 2}


def test_a_proof_that_names_no_run_lists_the_runs_there(project):
    setup(project, "  - front: F\n    back: B\n    proof: lesson.md#run-nothing-here\n")
    with pytest.raises(GuideError, match=r"cards.md:7: card proof 'lesson.md#run-nothing-here' names no run"
                                         r"(.|\n)*runs on lesson.md: run-second-look, run-topic-sizes"):
        build(project)
