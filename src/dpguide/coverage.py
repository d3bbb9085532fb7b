"""Practice and recall coverage: the questions of each Learn page's practice set and its flashcards.

A Learn page ``learn/NAME.md`` is practised by ``practice/NAME.md`` (and by sets named
``practice/NAME-*.md``, such as ``ddp-basics`` for ``ddp``) and recalled by every card whose
``page:`` is that Learn page. The build prints one line per Learn page and stops when a page has
fewer than ``MIN_QUESTIONS`` questions or no card, so no lesson is left without practice.

A lesson still being written is marked as a draft in its front matter (``draft: true`` between
``---`` lines at the top). A draft's shortfall is a warning instead: ``mkdocs serve`` and a plain
build show the page, and every draft is itself a warning, so the strict build (and CI) refuse it.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

import yaml

from .errors import AuthoringError, GuideError

#: the fewest practice questions a Learn page may have
MIN_QUESTIONS = 5
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<meta>.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)


@dataclass(frozen=True)
class PageCoverage:
    learn: str            # docs-relative, e.g. learn/ddp.md
    sets: tuple           # the practice pages that count for it
    questions: int
    cards: int


def _stem(page: str) -> str:
    return posixpath.splitext(posixpath.basename(page))[0]


def learn_pages(pages) -> list[str]:
    """The lessons: Markdown pages directly under learn/, the section's index excepted."""
    return sorted(p for p in pages if posixpath.dirname(p) == "learn" and p.endswith(".md")
                  and _stem(p) != "index")


def is_draft(text: str) -> bool:
    """Whether a page's front matter marks it ``draft: true``."""
    meta = _FRONT_MATTER.match(text)
    if not meta:
        return False
    try:
        fields = yaml.safe_load(meta["meta"])
    except yaml.YAMLError:
        return False            # MkDocs reports front matter it cannot read; it marks no draft
    return isinstance(fields, dict) and fields.get("draft") is True


def drafts(pages: dict[str, str]) -> list[str]:
    """The lessons (Learn pages) of ``pages`` that are marked as drafts."""
    return [page for page in learn_pages(pages) if is_draft(pages[page])]


def draft_warnings(problems: list[AuthoringError], draft_pages) -> tuple[list[AuthoringError], list[str]]:
    """``problems`` split into those that stop the build and warnings: a draft's shortfalls, and one
    line per draft (which the strict build turns into its refusal)."""
    draft_pages = set(draft_pages)
    stopping = [p for p in problems if p.path not in draft_pages]
    warnings = [f"{page}:1: this lesson is a draft (draft: true in its front matter): it builds and serves, "
                "but a strict build and CI refuse it; remove the mark when its practice set and cards are in"
                for page in sorted(draft_pages)]
    warnings += [f"{p} (a draft: a warning now, an error once the mark is gone)"
                 for p in problems if p.path in draft_pages]
    return stopping, warnings


def coverage(lessons, questions, decks) -> list[PageCoverage]:
    """For each lesson, the practice sets that count for it, their questions, and its cards."""
    per_set: dict[str, int] = {}
    for q in questions:
        per_set[q.page] = per_set.get(q.page, 0) + 1
    per_lesson: dict[str, int] = {}
    for deck in decks:
        for card in deck.cards:
            per_lesson[card.page] = per_lesson.get(card.page, 0) + 1
    rows = []
    for lesson in lessons:
        name = _stem(lesson)
        sets = tuple(sorted(s for s in per_set if posixpath.dirname(s) == "practice"
                            and (_stem(s) == name or _stem(s).startswith(name + "-"))))
        rows.append(PageCoverage(lesson, sets, sum(per_set[s] for s in sets), per_lesson.get(lesson, 0)))
    return rows


def shortfalls(rows) -> list[AuthoringError]:
    """A lesson with too few questions or no card, with the file a contributor must add to.

    A site with no practice question and no card at all (a page cut to its title, a one-page test
    site) has no practice section to judge: nothing is refused.
    """
    if not any(row.questions or row.cards for row in rows):
        return []
    found = []
    for row in rows:
        name = _stem(row.learn)
        if row.questions < MIN_QUESTIONS:
            found.append(AuthoringError(
                row.learn, 1, f"this lesson has {row.questions} practice question(s); "
                f"every Learn page needs {MIN_QUESTIONS} or more",
                f"add questions to docs/practice/{name}.md (start from docs/_templates/practice.md)"))
        if row.cards == 0:
            found.append(AuthoringError(
                row.learn, 1, "no flashcard names this lesson",
                f"add cards with page: {row.learn} to a deck on docs/flashcards/index.md"))
    return found


def report(rows) -> str:
    """One line for the build log: questions and cards of every lesson."""
    return "coverage: " + "; ".join(
        f"{row.learn} {row.questions} questions ({', '.join(row.sets) or 'no set'}), {row.cards} cards"
        for row in rows)


def check_coverage(pages: dict[str, str], questions, decks, log, warn) -> None:
    """Log the questions and cards of every lesson; stop when one has too few, warn for a draft."""
    rows = coverage(learn_pages(pages), questions, decks)
    log(report(rows))
    problems, warnings = draft_warnings(shortfalls(rows), drafts(pages))
    for warning in warnings:
        warn(warning)
    if problems:
        raise GuideError("\n".join(str(p) for p in problems))
