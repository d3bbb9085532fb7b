"""The flashcard study queue in real Chromium, on a clock the test controls: FSRS due dates, reload, export/import.

The page is a small harness, not the whole site: two decks rendered by the engine's own
``render_deck``, the site's dpguide.js and the vendored ts-fsrs, served over HTTP. Playwright's
clock fixes and moves "now", so due dates are checked exactly against ts-fsrs's own numbers.
"""

from __future__ import annotations

import datetime
import json
import shutil

import pytest

from conftest import ROOT
from dpguide.quiz import parse_page
from dpguide.quiz_render import render_deck
from sitecheck import serve

VENDORED = ROOT / "docs" / "javascripts" / "vendor" / "ts-fsrs.umd.js"
START = datetime.datetime(2026, 12, 4, 10, 0, tzinfo=datetime.timezone.utc)

DECKS = """
```flashcards
id: deck-a
title: Deck A
cards:
  - front: A one
    back: a1
    check: print(1)
  - front: A two
    back: a2
    check: print(2)
```

```flashcards
id: deck-b
title: Deck B
cards:
  - front: B one
    back: b1
    proof: learn/ddp.md#run-x
```
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    if not VENDORED.exists():
        pytest.fail("docs/javascripts/vendor/ts-fsrs.umd.js is missing: run the README install (make test does)")
    folder = tmp_path_factory.mktemp("study")
    shutil.copy(VENDORED, folder / "ts-fsrs.umd.js")
    shutil.copy(ROOT / "docs" / "javascripts" / "dpguide.js", folder / "dpguide.js")
    _, decks, _ = parse_page("cards.md", DECKS)
    proofs = [[{"output": "1", "command": "python check.py"}, {"output": "2", "command": "python check.py"}],
              [{"proof": "learn/ddp.md#run-x"}]]
    body = "\n".join(render_deck(deck, lambda page: page, proofs=p) for deck, p in zip(decks, proofs))
    for name, study in (("index.html", '<div class="dpg-study">'),          # the site's: 20 new cards a day
                        ("two-a-day.html", '<div class="dpg-study" data-new-per-day="2">')):
        (folder / name).write_text(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>study</title></head><body><article>'
            + study + '<p>Grading needs JavaScript.</p></div>' + body +
            '</article><script src="ts-fsrs.umd.js"></script><script src="dpguide.js"></script></body></html>')
    with serve(folder) as url:
        yield url


def open_study(page, url, at=START):
    # installed a minute early: an installed clock runs, and pause_at() refuses a time it has passed
    # (a loaded CI machine took longer than that between the two calls once)
    page.clock.install(time=at - datetime.timedelta(minutes=1))
    page.clock.pause_at(at)
    page.goto(url)
    page.wait_for_selector(".dpg-study .dpg-card")
    return page.locator(".dpg-study")


def counts(study) -> str:
    return study.locator(".dpg-study-counts").inner_text()


def stored(page) -> dict:
    return page.evaluate("JSON.parse(localStorage.getItem('dpguide:v1:reviews') || '{}')")


def fsrs_due(page, rating: str, at: datetime.datetime) -> str:
    """What ts-fsrs itself schedules for a new card graded ``rating`` at ``at``."""
    return page.evaluate("""([rating, at]) => {
        const f = FSRS.fsrs(FSRS.generatorParameters({enable_fuzz: false}));
        const t = new Date(at);
        return f.next(FSRS.createEmptyCard(t), t, FSRS.Rating[rating]).card.due.toISOString(); }""",
                         [rating, at.isoformat()])


def test_grading_schedules_each_card_as_fsrs_says_and_survives_reload(page, harness):
    study = open_study(page, harness)
    assert counts(study) == "Due now: 3 (0 to review, 3 new)"
    study.locator(".dpg-card").click()                             # flip: the grades appear
    assert study.locator(".dpg-grade").count() == 4
    study.locator(".dpg-grade-good").click()
    [(card_id, record)] = stored(page).items()
    assert card_id.startswith("deck-a:") and record["due"] == fsrs_due(page, "Good", START)
    assert counts(study) == "Due now: 2 (0 to review, 2 new)"
    study.locator(".dpg-card").click()
    study.locator(".dpg-grade-easy").click()
    easy = [r for k, r in stored(page).items() if k != card_id][0]
    assert easy["due"] == fsrs_due(page, "Easy", START)
    page.reload()
    page.wait_for_selector(".dpg-study .dpg-card")
    assert counts(page.locator(".dpg-study")) == "Due now: 1 (0 to review, 1 new)"
    assert page.problems == []


def test_a_card_comes_back_when_its_due_date_passes(page, harness):
    study = open_study(page, harness)
    study.locator(".dpg-card").click()
    study.locator(".dpg-grade-good").click()
    due = datetime.datetime.fromisoformat(next(iter(stored(page).values()))["due"].replace("Z", "+00:00"))
    page.clock.pause_at(due + datetime.timedelta(seconds=1))
    page.reload()
    page.wait_for_selector(".dpg-study .dpg-card")
    study = page.locator(".dpg-study")
    assert counts(study) == "Due now: 3 (1 to review, 2 new)"
    assert study.locator(".dpg-card-face").inner_text() == "A one"   # the due review comes before new cards
    assert page.problems == []


def test_the_queue_is_keyboard_operable_and_filters_by_deck(page, harness):
    study = open_study(page, harness)
    study.locator(".dpg-study-filter").select_option("deck-b")
    assert counts(study) == "Due now: 1 (0 to review, 1 new)"
    assert study.locator(".dpg-card-face").inner_text() == "B one"
    study.locator(".dpg-card").focus()
    page.keyboard.press("Space")
    assert study.locator(".dpg-card-side").inner_text() == "Back"
    assert study.locator(".dpg-card-proof").get_attribute("href") == "learn/ddp.md#run-x"
    page.keyboard.press("3")                                        # 3 = Good
    assert counts(study) == "Due now: 0 (0 to review, 0 new)"
    assert "Nothing is due. Next review:" in study.locator(".dpg-study-message").inner_text()
    assert list(stored(page)) and all(k.startswith("deck-b:") for k in stored(page))
    study.locator(".dpg-study-filter").select_option("")
    assert counts(study) == "Due now: 2 (0 to review, 2 new)"
    status = page.locator(".dpg-deck").nth(1).locator(".dpg-deck-status").inner_text()
    assert "next review in 10 min" in status                         # the deck's own view shows the schedule
    assert page.problems == []


def test_export_then_import_restores_every_review(page, harness, tmp_path):
    study = open_study(page, harness)
    for grade in ("good", "hard"):
        study.locator(".dpg-card").click()
        study.locator(f".dpg-grade-{grade}").click()
    before = stored(page)
    with page.expect_download() as download:
        study.locator(".dpg-study-export").click()
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    assert json.loads(path.read_text())["reviews"] == before
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector(".dpg-study .dpg-card")
    assert counts(page.locator(".dpg-study")) == "Due now: 3 (0 to review, 3 new)"
    page.locator(".dpg-study-file").set_input_files(str(path))
    page.wait_for_function("document.querySelector('.dpg-study-message').textContent.startsWith('Imported')")
    assert stored(page) == before
    assert counts(page.locator(".dpg-study")) == "Due now: 1 (0 to review, 1 new)"
    bad = tmp_path / "bad.json"
    bad.write_text('{"reviews": 1}')
    page.locator(".dpg-study-file").set_input_files(str(bad))
    page.wait_for_function("document.querySelector('.dpg-study-message').textContent.startsWith('Could not')")
    assert stored(page) == before
    assert page.problems == []


def grade_good(study) -> None:
    study.locator(".dpg-card").click()
    study.locator(".dpg-grade-good").click()


def test_new_cards_come_a_days_allowance_at_a_time(page, harness):
    """As in Anki: a new card's first grade counts against the day's allowance; the rest wait for
    tomorrow, or for "Study more new cards"; reviews are never held back."""
    study = open_study(page, harness + "two-a-day.html")
    more = study.locator(".dpg-study-more")
    assert counts(study) == "Due now: 2 (0 to review, 2 new); 1 more new after today's 2 new cards"
    grade_good(study)
    grade_good(study)
    assert counts(study) == "Due now: 0 (0 to review, 0 new); 1 more new after today's 2 new cards"
    assert "New cards wait for tomorrow, or study more now." in study.locator(".dpg-study-message").inner_text()
    page.reload()                                                     # the day's count is kept
    page.wait_for_selector(".dpg-study .dpg-study-counts")
    study = page.locator(".dpg-study")
    assert counts(study) == "Due now: 0 (0 to review, 0 new); 1 more new after today's 2 new cards"
    study.locator(".dpg-study-more").click()
    assert counts(study) == "Due now: 1 (0 to review, 1 new)" and study.locator(".dpg-study-more").is_hidden()
    assert study.locator(".dpg-card-face").inner_text() == "B one"
    page.clock.pause_at(START + datetime.timedelta(days=1))           # a new day: the two graded cards are due
    page.reload()
    page.wait_for_selector(".dpg-study .dpg-card")
    assert counts(page.locator(".dpg-study")) == "Due now: 3 (2 to review, 1 new)"
    assert more.count() == 1 and page.problems == []

