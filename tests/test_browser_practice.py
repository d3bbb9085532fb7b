"""Practice widgets and flashcards driven in real Chromium: mouse, keyboard, attempts, progress."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

PRACTICE = "practice/ddp-basics/"
CARDS = "flashcards/"


def open_page(page, site_url, path):
    page.goto(site_url + path)
    page.wait_for_selector(".dpg-quiz-widget > *, .dpg-deck-widget > *")
    return page


def fill_question(page):
    return page.locator("#q-ddp-basics-sampler")


def chip(q, text):
    return q.locator(".dpg-bank").get_by_role("button", name=text, exact=True)


def test_fill_in_blank_by_mouse(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = fill_question(page)
    chip(q, "DistributedSampler").click()
    q.locator(".dpg-slot").nth(0).click()
    q.locator(".dpg-slot").nth(1).click()                        # blank first, then the option
    chip(q, "sampler").click()
    q.locator(".dpg-check").click()
    assert "Right" in q.locator(".dpg-feedback").inner_text()
    assert page.problems == []


def test_fill_in_blank_by_drag_and_drop(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = fill_question(page)
    chip(q, "DistributedSampler").drag_to(q.locator(".dpg-slot").nth(0))
    assert q.locator(".dpg-slot").nth(0).inner_text() == "DistributedSampler"


def test_fill_in_blank_by_keyboard_only(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = fill_question(page)
    # Tab from the top of the question until the first blank has focus
    q.locator(".dpg-quiz-prompt").click()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('dpg-slot')"):
            break
    assert page.evaluate("document.activeElement.dataset.blank") == "1"
    page.keyboard.press("Enter")                                   # select blank 1
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "DistributedSampler":
            break
    page.keyboard.press("Enter")                                   # place it
    assert q.locator(".dpg-slot").nth(0).inner_text() == "DistributedSampler"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"                                       # focus is visible


def test_a_wrong_blank_whose_choices_were_not_run_says_so(page, site_url):
    """conv-sampler runs under torchrun, so the build runs its answer but not its wrong choices: the
    feedback must not stay silent about why a choice is wrong, nor invent what it would print."""
    open_page(page, site_url, "practice/convert-a-script/")
    q = page.locator("#q-conv-sampler")
    data = q.locator("script.dpg-quiz-data").evaluate("el => JSON.parse(el.textContent)")
    assert not any(data["outcomes"].values())                     # nothing but the answer was run
    wrong = next(item for item in data["bank"] if item != data["answers"]["1"])
    for blank, item in sorted(data["answers"].items()):
        q.locator(f'.dpg-slot[data-blank="{blank}"]').click()
        chip(q, wrong if blank == "1" else item).click()
    q.locator(".dpg-check").click()
    feedback = q.locator(".dpg-feedback").inner_text()
    assert "Wrong blank: [1]." in feedback and "did not run this question's other choices" in feedback, feedback


def test_three_wrong_attempts_reveal_the_worked_answer(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = fill_question(page)
    for attempt in range(3):
        chip(q, "RandomSampler").click()
        q.locator(".dpg-slot").nth(0).click()
        chip(q, "dataset").click()
        q.locator(".dpg-slot").nth(1).click()
        q.locator(".dpg-check").click()
        feedback = q.locator(".dpg-feedback").inner_text()
        if attempt < 2:
            assert "Wrong blanks: [1], [2]." in feedback and "Hint:" in feedback
    assert "no attempts are left" in feedback
    assert q.locator(".dpg-slot").nth(0).inner_text() == "DistributedSampler"
    assert q.locator(".dpg-quiz-solution").get_attribute("open") is not None
    assert "Proof by running it" in q.locator(".dpg-quiz-solution").inner_text()


def test_multiple_choice_wrong_then_right_with_real_error_feedback(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = page.locator("#q-ddp-basics-wrapper")
    q.locator(".dpg-choice").nth(1).click()
    q.locator(".dpg-check").click()
    feedback = q.locator(".dpg-feedback").inner_text()
    assert "Not quite" in feedback and "AttributeError" in feedback
    q.locator(".dpg-choice").nth(0).click()
    q.locator(".dpg-check").click()
    assert "Right" in q.locator(".dpg-feedback").inner_text()


def answer_right(q) -> str:
    """Pick the quiz's right option (from its own data), check it, and return the feedback."""
    data = q.locator("script.dpg-quiz-data").evaluate("el => JSON.parse(el.textContent)")
    q.locator(".dpg-choice").nth(next(i for i, o in enumerate(data["options"]) if o["correct"])).click()
    q.locator(".dpg-check").click()
    return q.locator(".dpg-feedback").inner_text()


def test_the_right_answer_promises_a_run_only_where_the_solution_shows_one(page, site_url):
    open_page(page, site_url, "practice/ddp/")
    proven, explained = page.locator("#q-ddp-average-gradient"), page.locator("#q-ddp-when-averaged")
    assert proven.locator(".dpg-proof").count() == 1 and explained.locator(".dpg-proof").count() == 0
    assert "the run that proves it" in answer_right(proven)
    feedback = answer_right(explained)
    assert feedback.startswith("Right") and "run" not in feedback, feedback


def test_the_practice_index_shows_each_sets_progress_from_this_browser(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = page.locator("#q-ddp-basics-wrapper")
    q.locator(".dpg-choice").nth(0).click()
    q.locator(".dpg-check").click()
    total = page.locator(".dpg-quiz").count()
    page.goto(site_url + "practice/")
    page.wait_for_selector(".dpg-set-progress")
    basics = page.locator(".dpg-set-progress[data-for$='/practice/ddp-basics/']")
    assert basics.inner_text() == f" (1 of {total} answered, 1 right)"
    assert page.locator(".dpg-set-progress[data-for$='/practice/collectives/']").inner_text() == " (not started)"
    assert page.problems == []


def test_multiple_choice_by_keyboard_only(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = page.locator("#q-ddp-basics-wrapper")
    q.locator(".dpg-quiz-prompt").click()
    for _ in range(40):                                            # one Tab stop for the whole group
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('dpg-choice')"):
            break
    assert page.evaluate("document.activeElement.dataset.index") == "0"
    page.keyboard.press("ArrowDown")                               # arrows move and choose
    assert page.evaluate("document.activeElement.dataset.index") == "1"
    assert q.locator(".dpg-choice").nth(1).get_attribute("aria-checked") == "true"
    assert q.locator(".dpg-choice").nth(0).get_attribute("aria-checked") == "false"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")                                 # wraps round to the last option
    last = q.locator(".dpg-choice").count() - 1
    assert page.evaluate("document.activeElement.dataset.index") == str(last)
    page.keyboard.press("ArrowDown")                               # and on to the first, the right one
    assert page.evaluate("document.activeElement.dataset.index") == "0"
    page.keyboard.press("Tab")                                     # leaves the group: next is Check
    assert page.evaluate("document.activeElement.classList.contains('dpg-check')")
    page.keyboard.press("Enter")
    assert "Right" in q.locator(".dpg-feedback").inner_text()
    assert page.problems == []


def test_progress_survives_a_reload_and_can_be_reset(page, site_url):
    open_page(page, site_url, PRACTICE)
    q = page.locator("#q-ddp-basics-shape")
    q.locator(".dpg-choice").nth(0).click()
    q.locator(".dpg-check").click()
    asked = page.locator(".dpg-quiz").count()                     # the set's own size, not a typed number
    assert asked >= 5
    one_right = f"1 of {asked} answered, 1 right"
    assert one_right in page.locator(".dpg-set-score").inner_text()
    page.reload()
    page.wait_for_selector(".dpg-set-score")
    assert one_right in page.locator(".dpg-set-score").inner_text()
    page.once("dialog", lambda dialog: dialog.dismiss())          # asked first: "no" keeps the answers
    page.locator(".dpg-reset").click()
    assert one_right in page.locator(".dpg-set-score").inner_text()
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".dpg-reset").click()
    assert f"0 of {asked} answered" in page.locator(".dpg-set-score").inner_text()


def deck(page):
    return page.locator(".dpg-deck").first


def side(page) -> str:
    return deck(page).locator(".dpg-card-side").text_content()


def test_flashcards_flip_move_and_shuffle_and_say_when_each_card_is_due(page, site_url):
    open_page(page, site_url, CARDS)
    card = deck(page).locator(".dpg-card")
    front = card.inner_text()
    card.focus()
    page.keyboard.press("Space")
    assert side(page) == "Back" and card.inner_text() != front
    page.keyboard.press("ArrowRight")
    assert side(page) == "Front"
    status = deck(page).locator(".dpg-deck-status")
    assert status.inner_text().startswith("Card 2 of ") and status.inner_text().endswith(" · new")
    page.keyboard.press("ArrowLeft")
    assert status.inner_text().startswith("Card 1 of ")
    study = page.locator(".dpg-study")                             # grading the first card in the queue ...
    study.locator(".dpg-card").click()
    study.locator(".dpg-grade-good").click()
    page.reload()
    page.wait_for_selector(".dpg-deck .dpg-card")
    assert "next review in" in deck(page).locator(".dpg-deck-status").inner_text()   # ... shows in its deck
    deck(page).locator(".dpg-shuffle").click()
    assert deck(page).locator(".dpg-deck-status").inner_text().startswith("Card 1 of ")
    assert page.problems == []


def test_the_study_queue_offers_twenty_new_cards_a_day_of_all_the_sites_cards(page, site_url):
    open_page(page, site_url, CARDS)
    total = page.evaluate("""[...document.querySelectorAll('script.dpg-deck-data')]
                             .reduce((n, s) => n + JSON.parse(s.textContent).cards.length, 0)""")
    assert total > 20
    counts = page.locator(".dpg-study .dpg-study-counts").inner_text()
    assert counts == f"Due now: 20 (0 to review, 20 new); {total - 20} more new after today's 20 new cards"
    assert page.locator(".dpg-study-more").is_visible() and page.problems == []


def test_a_proof_link_to_a_run_in_a_hidden_tab_opens_that_tab(page, site_url):
    """Two cards prove their claim with the DDP tab's run on the Convert page, a tab that is not the
    one shown first: following the link must show that run, not the other tab's top."""
    open_page(page, site_url, CARDS)
    # the link a card shows (the widget builds it from the deck's data; the static list is for no JS)
    href = page.evaluate("""() => [...document.querySelectorAll('script.dpg-deck-data')]
        .flatMap(s => JSON.parse(s.textContent).cards).map(c => c.proof)
        .find(p => p && p.includes('#run-convert-ddp'))""")
    page.goto(urljoin(page.url, href))
    run = page.locator("#run-convert-ddp")
    run.wait_for(state="visible", timeout=5000)
    assert run.is_visible() and run.evaluate("el => el.getBoundingClientRect().top < window.innerHeight")


def test_python_code_keeps_its_lines_and_outputs_wrap(page, site_url):
    """A wrapped Python line would start at the left edge and misstate its indentation: Python code
    (pages and quizzes) scrolls sideways instead; output boxes wrap long lines."""
    def white_space(selector):
        return page.locator(selector).first.evaluate("el => getComputedStyle(el).whiteSpace")

    page.goto(site_url + "learn/ddp/")
    assert white_space(".language-python pre > code") == "pre"
    assert white_space(".language-text pre > code") == "pre-wrap"
    open_page(page, site_url, PRACTICE)
    assert white_space("pre.dpg-quiz-code > code") == "pre"


def test_widgets_work_after_instant_navigation(page, site_url):
    page.goto(site_url)
    page.wait_for_selector(".md-content")
    page.locator("a[href$='flashcards/']").first.click()
    page.wait_for_selector(".dpg-card")
    assert page.evaluate("window.document$ !== undefined")
    deck(page).locator(".dpg-card").click()
    assert side(page) == "Back"
    page.locator("a[href$='practice/ddp-basics/']").first.click()
    page.wait_for_selector("#q-ddp-basics-shape .dpg-choice")
    assert page.locator(".dpg-set-score").count() == 1
    assert page.problems == []


def test_without_javascript_questions_and_solutions_stay_readable(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + PRACTICE)
    q = page.locator("#q-ddp-basics-wrapper")
    assert q.locator(".dpg-quiz-options li").count() == 3
    q.locator(".dpg-quiz-solution summary").click()
    assert "Why not the others" in q.locator(".dpg-quiz-solution").inner_text()
    page.goto(site_url + CARDS)
    assert page.locator(".dpg-deck-static details").count() >= 6
    context.close()
