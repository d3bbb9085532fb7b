"""Coverage of the curriculum: which practice sets and cards count for a lesson, and what is refused."""

from __future__ import annotations

from types import SimpleNamespace as Item

import pytest

from dpguide.coverage import MIN_QUESTIONS, coverage, learn_pages, report, shortfalls

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)


def questions(page: str, n: int) -> list:
    return [Item(page=page) for _ in range(n)]


def deck(*pages: str) -> Item:
    return Item(cards=[Item(page=p) for p in pages])


def test_the_lessons_are_the_pages_directly_under_learn_but_its_index():
    pages = ["index.md", "learn/index.md", "learn/ddp.md", "learn/a/deep.md", "learn/notebooks.ipynb",
             "practice/ddp.md", "learn/torchrun.md"]
    assert learn_pages(pages) == ["learn/ddp.md", "learn/torchrun.md"]


def test_a_lesson_counts_its_own_set_and_sets_named_after_it_and_its_cards():
    qs = questions("practice/ddp.md", 4) + questions("practice/ddp-basics.md", 2) + \
        questions("practice/dp-vs-ddp.md", 7) + questions("practice/torchrun.md", 5) + questions("learn/ddp.md", 3)
    decks = [deck("learn/ddp.md", "learn/torchrun.md", "learn/ddp.md"), deck("learn/ddp.md", None)]
    rows = coverage(["learn/ddp.md", "learn/dp-vs-ddp.md", "learn/torchrun.md"], qs, decks)
    assert [(r.learn, r.sets, r.questions, r.cards) for r in rows] == [
        ("learn/ddp.md", ("practice/ddp-basics.md", "practice/ddp.md"), 6, 3),
        ("learn/dp-vs-ddp.md", ("practice/dp-vs-ddp.md",), 7, 0),
        ("learn/torchrun.md", ("practice/torchrun.md",), 5, 1),
    ]
    assert report(rows) == ("coverage: learn/ddp.md 6 questions (practice/ddp-basics.md, practice/ddp.md), 3 cards; "
                            "learn/dp-vs-ddp.md 7 questions (practice/dp-vs-ddp.md), 0 cards; "
                            "learn/torchrun.md 5 questions (practice/torchrun.md), 1 cards")


def test_a_lesson_short_of_questions_or_cards_is_refused_at_its_first_line_with_the_fix():
    rows = coverage(["learn/new.md", "learn/full.md"],
                    questions("practice/new.md", MIN_QUESTIONS - 1) + questions("practice/full.md", MIN_QUESTIONS),
                    [deck("learn/full.md")])
    assert report(rows).startswith("coverage: learn/new.md 4 questions (practice/new.md), 0 cards;")
    assert [str(e) for e in shortfalls(rows)] == [
        "learn/new.md:1: this lesson has 4 practice question(s); every Learn page needs 5 or more\n"
        "  fix: add questions to docs/practice/new.md (start from docs/_templates/practice.md)",
        "learn/new.md:1: no flashcard names this lesson\n"
        "  fix: add cards with page: learn/new.md to a deck on docs/flashcards/index.md",
    ]
    assert report(coverage(["learn/none.md"], [], [])) == "coverage: learn/none.md 0 questions (no set), 0 cards"


def test_a_site_without_any_practice_or_card_is_not_judged_but_one_question_makes_it_judged():
    assert shortfalls(coverage(["learn/a.md", "learn/b.md"], [], [])) == []
    rows = coverage(["learn/a.md", "learn/b.md"], questions("practice/a.md", 1), [])
    assert [(e.path, e.problem.split(";")[0]) for e in shortfalls(rows)] == [
        ("learn/a.md", "this lesson has 1 practice question(s)"), ("learn/a.md", "no flashcard names this lesson"),
        ("learn/b.md", "this lesson has 0 practice question(s)"), ("learn/b.md", "no flashcard names this lesson")]
    assert shortfalls(coverage(["learn/a.md"], [], [deck("learn/a.md")]))[0].path == "learn/a.md"


def test_a_draft_is_marked_in_front_matter_only():
    from dpguide.coverage import is_draft
    assert is_draft("---\ntitle: DDP\ndraft: true\n---\n# DDP\n")
    assert is_draft("---\ndraft: yes\n...\n# DDP\n")
    assert not is_draft("---\ndraft: false\n---\n# DDP\n")
    assert is_draft("---\ndraft: true   # remove when the cards are in\n---\n")   # the template's line
    assert not is_draft("---\ndraft: [true\n---\n# DDP\n")                    # unreadable YAML
    assert not is_draft("# DDP\n\ndraft: true\n")                 # prose, not front matter
    assert not is_draft("# DDP\n---\ndraft: true\n---\n")          # not at the top


def test_a_drafts_shortfall_is_a_warning_and_every_draft_is_one_but_others_still_stop():
    from dpguide.coverage import draft_warnings, drafts
    pages = {"learn/new.md": "---\ndraft: true\n---\n# New\n", "learn/ddp.md": "# DDP\n", "practice/new.md": "# P\n"}
    assert drafts(pages) == ["learn/new.md"]
    rows = coverage(learn_pages(pages), questions("practice/ddp.md", 2), [deck("learn/ddp.md")])
    stopping, warnings = draft_warnings(shortfalls(rows), drafts(pages))
    assert [(p.path, "2 practice question(s)" in p.problem) for p in stopping] == [("learn/ddp.md", True)]
    assert warnings[0].startswith("learn/new.md:1: this lesson is a draft") and "strict build" in warnings[0]
    assert len(warnings) == 3       # the mark, no questions, no card
    assert all("learn/new.md:1:" in w for w in warnings)


def test_the_coverage_check_logs_the_table_warns_for_a_draft_and_stops_on_a_short_lesson():
    from dpguide.coverage import check_coverage
    from dpguide.errors import GuideError

    pages = {"learn/ddp.md": "# DDP\n", "learn/new.md": "---\ndraft: true\n---\n# New\n"}
    qs = questions("practice/ddp.md", MIN_QUESTIONS)
    logged, warned = [], []
    with pytest.raises(GuideError) as stopped:
        check_coverage(pages, qs, [], logged.append, warned.append)
    assert logged == [report(coverage(learn_pages(pages), qs, []))]
    assert "learn/ddp.md" in str(stopped.value) and "learn/new.md" not in str(stopped.value)   # no cards yet
    assert warned[0].startswith("learn/new.md:1: this lesson is a draft") and len(warned) > 1
    logged, warned = [], []
    check_coverage({"learn/new.md": pages["learn/new.md"]}, [], [], logged.append, warned.append)
    assert len(logged) == 1 and warned[0].startswith("learn/new.md:1: this lesson is a draft")
