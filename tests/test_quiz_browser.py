"""Hostile authored text in a real build, driven in real Chromium: shown as text, no handler ever runs.

A small site (the project's hook and dpguide.js) is built once with a deck and two questions whose
every text field holds markup; the test hovers, clicks, answers and flips everything.
"""

from __future__ import annotations


import pytest
import yaml

from minisite import served_site_with_scripts

PWN = '<img src=x onerror="window.__pwned=1" onmouseover="window.__pwned=2">'
BREAK = "\"><b onmouseover=\"window.__pwned=3\">x</b></script><script>window.__pwned=4</script>"


def hostile(field: str) -> str:
    return f"{field} {PWN} {BREAK}"


def fence(lang: str, data: dict) -> str:
    return f"```{lang}\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000) + "```\n"


CHOICE = {
    "id": "hostile-choice", "type": "choice", "difficulty": "easy", "prompt": hostile("prompt"),
    "code": hostile("code") + "\n", "hint": hostile("hint"), "mistakes": [hostile("mistake")],
    "options": [{"text": hostile("right"), "correct": True}, {"text": hostile("wrong"), "why": hostile("why")}],
    "solution": {"steps": [hostile("step")], "answer": hostile("answer"), "check": hostile("check")},
}
FILL = {
    "id": "hostile-fill", "type": "fill-blank", "difficulty": "hard", "prompt": hostile("fprompt"),
    "code": "x = [[1]]\n", "answers": {1: hostile("chip")}, "bank": [hostile("chip"), hostile("other")],
    "hint": hostile("fhint"), "explanation": hostile("explanation"),
}
DECK = {
    "id": "hostile-deck", "title": hostile("title"),
    "cards": [{"front": hostile("front"), "back": hostile("back"), "page": "lesson.md",
               "check": f"print({hostile('check output')!r})"},
              {"front": hostile("front2"), "back": hostile("back2"), "proof": "lesson.md#run-line-5"}],
}
PAGES = {
    "index.md": "# Hostile\n\n" + "\n".join([fence("quiz", CHOICE), fence("quiz", FILL), fence("flashcards", DECK)]),
    "lesson.md": "# Lesson\n\nThe lesson.\n\n```python\nprint('the run that proves card 2')\n```\n",
}


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory):
    with served_site_with_scripts(tmp_path_factory.mktemp("hostile"), PAGES) as url:
        yield url


def pwned(page):
    return page.evaluate("window.__pwned")


def hover_everything(page):
    """Send mouseover/mouseenter to every element of the article: any injected handler would run."""
    page.evaluate("""() => document.querySelectorAll("article, article *").forEach(node => {
        for (const kind of ["mouseover", "mouseenter", "focus"]) node.dispatchEvent(new Event(kind, {bubbles: true}));
    })""")


def test_hostile_text_is_visible_as_text_and_never_runs(page, hostile_url):
    page.goto(hostile_url)
    page.wait_for_selector(".dpg-card")
    page.locator(".dpg-quiz-prompt").first.hover()
    hover_everything(page)
    assert pwned(page) is None

    choice = page.locator("#q-hostile-choice")
    choice.locator(".dpg-choice").nth(1).click()
    choice.locator(".dpg-check").click()
    feedback = choice.locator(".dpg-feedback").inner_text()
    assert hostile("why") in feedback and hostile("hint") in feedback
    choice.locator(".dpg-choice").nth(0).click()
    choice.locator(".dpg-check").click()
    choice.locator(".dpg-quiz-hint summary").click()
    choice.locator(".dpg-quiz-solution summary").click()
    for field in ("prompt", "code", "right", "wrong", "hint", "step", "answer", "check", "mistake"):
        assert hostile(field) in choice.inner_text(), field

    fill = page.locator("#q-hostile-fill")
    fill.locator(".dpg-bank").get_by_role("button", name=hostile("chip"), exact=True).click()
    fill.locator(".dpg-slot").nth(0).click()
    assert fill.locator(".dpg-slot").nth(0).inner_text() == hostile("chip")
    fill.locator(".dpg-check").click()
    fill.locator(".dpg-quiz-solution summary").click()
    assert hostile("explanation") in fill.inner_text() and hostile("fprompt") in fill.inner_text()

    deck = page.locator("#deck-hostile-deck")
    card = deck.locator(".dpg-card")
    assert card.locator(".dpg-card-face").inner_text() == hostile("front")
    card.click()                                            # flip
    assert card.locator(".dpg-card-face").inner_text() == hostile("back")
    link = deck.locator(".dpg-card-link")
    assert link.get_attribute("href").endswith("lesson/")
    card.hover()
    deck.locator(".dpg-next").click()
    card.click()
    assert card.locator(".dpg-card-face").inner_text() == hostile("back2")

    hover_everything(page)                                  # again, now that the widgets are drawn
    assert pwned(page) is None
    assert page.locator("article img, article b").count() == 0
    assert page.locator("script:not([src]):not([type='application/json'])").evaluate_all(
        "nodes => nodes.filter(n => n.textContent.includes('__pwned')).length") == 0
    assert page.problems == []
