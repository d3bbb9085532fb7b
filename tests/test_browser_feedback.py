"""Feedback on answers in real Chromium: first-try and eventual scores, the last answer restored
after a reload, a wrong fill-in shows what the code really did with the learner's choice, and one
question can be tried again without resetting the set.

A small site (the project's hook and dpguide.js) is built with one choice and one fill-in question
whose runs are real; nothing the test expects is typed here except the learner's clicks.
"""

from __future__ import annotations


import pytest

from minisite import served_site_with_scripts

PAGE = '''# Feedback

```quiz
id: fb-choice
type: choice
difficulty: easy
prompt: What does the code print?
code: |
  print(len([1, 2, 3]))
run: python
prints: python
options:
  - text: "3"
    correct: true
  - text: "2"
    why: The list has three items.
hint: Count the items.
solution:
  steps:
    - "`len` counts the items."
```

```quiz
id: fb-fill
type: fill-blank
difficulty: easy
prompt: Make the code print the sum of the list.
code: |
  values = [1, 2, 3]
  print([[1]](values))
answers: {1: sum}
bank: [sum, max, len]
hint: One of them adds.
explanation: "`sum` adds the items."
run: python
```
'''


@pytest.fixture(scope="module")
def feedback_url(tmp_path_factory):
    with served_site_with_scripts(tmp_path_factory.mktemp("feedback"), {"index.md": PAGE}) as url:
        yield url


def open_fresh(page, url):
    page.goto(url)
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector(".dpg-quiz-widget > *")


def score(page) -> str:
    return page.locator(".dpg-set-score").inner_text()


def place(q, item, blank=0):
    q.locator(".dpg-bank").get_by_role("button", name=item, exact=True).click()
    q.locator(".dpg-slot").nth(blank).click()


def test_a_right_answer_on_the_second_try_counts_as_right_but_not_first_try(page, feedback_url):
    open_fresh(page, feedback_url)
    q = page.locator("#q-fb-choice")
    q.locator(".dpg-choice").nth(1).click()
    q.locator(".dpg-check").click()
    q.locator(".dpg-choice").nth(0).click()
    q.locator(".dpg-check").click()
    assert "on try 2" in q.locator(".dpg-feedback").inner_text()
    assert "1 of 2 answered, 1 right (0 on the first try)" in score(page)
    assert page.problems == []


def test_a_wrong_fill_in_shows_what_the_real_run_printed_and_survives_a_reload(page, feedback_url):
    open_fresh(page, feedback_url)
    q = page.locator("#q-fb-fill")
    place(q, "max")
    q.locator(".dpg-check").click()
    said = q.locator(".dpg-feedback").inner_text()
    assert "With max in [1], the code" in said.replace("`", "")
    page.reload()
    page.wait_for_selector("#q-fb-fill .dpg-slot")
    q = page.locator("#q-fb-fill")
    assert q.locator(".dpg-slot").nth(0).inner_text() == "max"
    assert "dpg-wrong" in q.locator(".dpg-slot").nth(0).get_attribute("class")
    assert q.locator(".dpg-feedback").inner_text() == said        # the same explanation, after the reload


def test_one_question_can_be_tried_again_without_resetting_the_set(page, feedback_url):
    open_fresh(page, feedback_url)
    choice = page.locator("#q-fb-choice")
    choice.locator(".dpg-choice").nth(0).click()
    choice.locator(".dpg-check").click()
    q = page.locator("#q-fb-fill")
    place(q, "sum")
    q.locator(".dpg-check").click()
    assert "Right, on the first try" in q.locator(".dpg-feedback").inner_text()
    assert "2 of 2 answered, 2 right (2 on the first try)" in score(page)
    q.locator(".dpg-retry").click()
    assert "1 of 2 answered" in score(page)
    assert q.locator(".dpg-slot").nth(0).inner_text() == "[1]"        # the blank is empty again
    assert q.locator(".dpg-check").is_enabled()
    assert "Right" in choice.locator(".dpg-feedback").inner_text()   # the other question keeps its answer
    place(q, "sum")
    q.locator(".dpg-check").click()
    assert "2 of 2 answered, 2 right" in score(page)
    assert page.problems == []
