"""Practice questions and flashcard decks parsed without running anything: every field read, every
mistake refused with file:line, its reason and its fix, and the runs that prove an answer key derived.

Fast and pure (parse_page only). Hostile text is covered by test_quiz_escaping.py; real runs of answer
keys by test_quiz.py and test_answer_keys.py.
"""

from __future__ import annotations

import pytest

from unit_blocks import authoring_error
from dpguide.quiz import find_fences, parse_page, quiz_fenced_blocks, card_fenced_blocks, wrong_bank_items

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

CHOICE = """```quiz
id: q1
type: choice
difficulty: easy
prompt: p
options:
  - text: "1"
    correct: true
  - text: "2"
    why: w
hint: h
solution:
  steps: [s]
```
"""
FILL = """```quiz
id: fb
type: fill-blank
difficulty: easy
prompt: p
code: |
  x = [[1]]
answers: {1: a}
bank: [a, b]
hint: h
explanation: e
```
"""
DECK = """```flashcards
id: d1
title: T
cards:
  - front: a
    back: b
    check: print(1)
```
"""


error_of = authoring_error


KNOWN_CHOICE = "code, device, difficulty, hint, id, mistakes, options, prints, prompt, run, solution, type"
REFUSED = {
    "not YAML": (CHOICE.replace("prompt: p", "prompt: p: q: ["),
                 "set.md:5: the quiz block is not valid YAML: mapping values are not allowed in this context\n"
                 "  fix: check indentation and quote text containing ': '"),
    "not a mapping": ("```quiz\n- a\n- b\n```\n", "set.md:1: a quiz block must be a YAML mapping (id:, type:, prompt:, ...)"),
    "unknown type": (CHOICE.replace("type: choice", "type: essay"),
                     "set.md:3: unknown question type 'essay'\n  fix: use type: fill-blank or type: choice"),
    "unknown field": (CHOICE.replace("hint: h", "hint: h\ncolour: red"),
                      f"set.md:12: unknown field 'colour' in a choice question\n  fix: known fields: {KNOWN_CHOICE}"),
    "bad difficulty": (CHOICE.replace("difficulty: easy", "difficulty: trivial"),
                       "set.md:4: difficulty 'trivial' is not one of easy, medium, hard"),
    "missing prompt": (CHOICE.replace("prompt: p\n", ""), "set.md:1: question lacks the field 'prompt'\n  fix: add 'prompt: ...'"),
    "missing hint": (CHOICE.replace("hint: h\n", ""), "set.md:1: question lacks the field 'hint'\n  fix: add 'hint: ...'"),
    "bad device": (CHOICE.replace("hint: h", "hint: h\ndevice: tpu"), "set.md:12: device must be cpu or cuda"),
    "one option": (CHOICE.replace('  - text: "2"\n    why: w\n', ""), "set.md:6: a choice question needs at least two options"),
    "option not a mapping": (CHOICE.replace('  - text: "2"\n    why: w\n', "  - just text\n"),
                             "set.md:6: each option is a mapping: - text: ... why: ..."),
    "unknown option field": (CHOICE.replace("    why: w", "    why: w\n    colour: red"),
                             "set.md:11: unknown option field 'colour'\n  fix: known: code, correct, text, why"),
    "blank option text": (CHOICE.replace('text: "2"', 'text: " "'), "set.md:9: an option has no text"),
    "two right options": (CHOICE.replace("    why: w", "    why: w\n    correct: true"),
                          "set.md:6: a choice question needs exactly one right option, this one has 2\n"
                          "  fix: mark the right one with 'correct: true' and only that one"),
    "no right option": (CHOICE.replace("    correct: true\n", ""),
                        "set.md:6: a choice question needs exactly one right option, this one has 0\n"
                        "  fix: mark the right one with 'correct: true' and only that one"),
    "wrong option without why": (CHOICE.replace("    why: w\n", ""), "set.md:6: every wrong option needs a 'why' (its feedback)"),
    "prints without a run": (CHOICE.replace("hint: h", "hint: h\nprints: python"),
                             "set.md:12: 'prints' checks the right option against a run: the question needs code: and run:"),
    "solution without steps": (CHOICE.replace("  steps: [s]", "  answer: x"),
                               "set.md:12: solution must have steps: [...] and may have answer: and check:"),
    "solution with an unknown key": (CHOICE.replace("  steps: [s]", "  steps: [s]\n  extra: 1"),
                                     "set.md:12: solution must have steps: [...] and may have answer: and check:"),
    "solution as text": (CHOICE.replace("solution:\n  steps: [s]", "solution: text"),
                         "set.md:12: solution must have steps: [...] and may have answer: and check:"),
    "option code without a run": (CHOICE.replace("    why: w", "    why: w\n    code: print(1)"),
                                  "set.md:1: an option with code: is executed, so the question needs run:\n"
                                  "  fix: add run: python"),
    "unclosed fence": ("```quiz\nid: q\n", "set.md:1: this quiz fence is never closed\n  fix: add a line ```"),
    "fill-in without code": (FILL.replace("code: |\n  x = [[1]]\n", ""),
                             "set.md:1: a fill-blank question needs code with blanks [[1]], [[2]], ...\n  fix: add 'code: |'"),
    "answers as a list": (FILL.replace("answers: {1: a}", "answers: [a]"),
                          "set.md:8: answers must map each blank to its text\n  fix: e.g. answers: {1: DistributedSampler}"),
    "an answer for a missing blank": (FILL.replace("answers: {1: a}", "answers: {1: a, 2: b}"),
                                      "set.md:8: the code has blanks [1] but answers are given for [1, 2]\n"
                                      "  fix: give exactly one answer per [[n]] in the code"),
    "empty bank": (FILL.replace("bank: [a, b]", "bank: []"), "set.md:9: bank must be a list of options"),
    "bank as text": (FILL.replace("bank: [a, b]", "bank: a"), "set.md:9: bank must be a list of options"),
    "bank item twice": (FILL.replace("bank: [a, b]", "bank: [a, a]"), "set.md:9: the bank lists an option twice"),
    "answer not in the bank": (FILL.replace("bank: [a, b]", "bank: [b, c]"),
                               "set.md:9: answer 'a' is not in the bank\n  fix: every blank must be answerable from the bank: add it"),
    "fill-in without explanation": (FILL.replace("explanation: e\n", ""),
                                    "set.md:1: question lacks the field 'explanation'\n  fix: add 'explanation: ...'"),
    "deck with an unknown field": (DECK.replace("title: T", "title: T\ncolour: red"),
                                   "set.md:1: a flashcards block needs id:, title: and cards: [...]"),
    "deck as a list": ("```flashcards\n- a\n```\n", "set.md:1: a flashcards block needs id:, title: and cards: [...]"),
    "deck without a title": (DECK.replace("title: T\n", ""), "set.md:1: the deck lacks the field 'title'\n  fix: add 'title: ...'"),
    "card without a back": (DECK.replace("    back: b\n", ""),
                            "set.md:5: each card needs front: and back: (and may have page:)\n"
                            "  fix: known card fields: back, check, front, page, proof, run"),
    "card with an unknown field": (DECK.replace("    back: b", "    back: b\n    colour: red"),
                                   "set.md:5: each card needs front: and back: (and may have page:)\n"
                                   "  fix: known card fields: back, check, front, page, proof, run"),
    "card not a mapping": (DECK.replace("  - front: a\n    back: b\n    check: print(1)", "  - front"),
                           "set.md:1: each card needs front: and back: (and may have page:)\n"
                           "  fix: known card fields: back, check, front, page, proof, run"),
    "card with check and proof": (DECK.replace("    check: print(1)", "    check: print(1)\n    proof: learn/a.md#run-x"),
                                  "set.md:5: a card has check: and proof:; give one\n"
                                  "  fix: check: runs a small program; proof: names a run on a Learn page"),
    "card without proof": (DECK.replace("    check: print(1)\n", ""),
                           "set.md:5: this card is not proven: give it a check: (a small program the build runs, its "
                           "output shown on the back) or a proof: (the run on a Learn page that shows it)\n"
                           "  fix: list a page's runs with: dpguide anchors docs/learn/PAGE.md; then proof: "
                           "learn/PAGE.md#run-NAME"),
    "card run without check": (DECK.replace("    check: print(1)", "    proof: learn/a.md#run-x\n    run: python"),
                               "set.md:8: run: is how a card's check: runs; this card has no check:"),
    "proof that is not a run anchor": (DECK.replace("    check: print(1)", "    proof: learn/a.md#x"),
                                       "set.md:7: proof 'learn/a.md#x' is not page.md#run-anchor\n"
                                       "  fix: write proof: learn/ddp.md#run-ddp-basic (the anchor of a run's output box)"),
    "card page that is not a page": (DECK.replace("    back: b", "    back: b\n    page: learn/ddp"),
                                     "set.md:7: a card's page 'learn/ddp' is not a page of this site\n"
                                     "  fix: write the docs-relative path of a Markdown page: page: learn/ddp.md "
                                     "(or learn/ddp.md#a-heading)"),
    "id with capitals": (CHOICE.replace("id: q1", "id: Q1"),
                         "set.md:2: id 'Q1' must be lowercase letters, digits and '-'\n"
                         "  fix: it becomes an HTML id and a storage key, e.g. id: ddp-basics-sampler"),
    "answer key not a number": (FILL.replace("answers: {1: a}", "answers: {x: a}"),
                                "set.md:8: answers must map blank numbers to texts\n"
                                "  fix: e.g. answers: {1: DistributedSampler}"),
    "prompt as a list": (CHOICE.replace("prompt: p", "prompt: [p]"),
                         "set.md:5: field 'prompt' must be text\n"
                         "  fix: write it as a plain (quoted if needed) string, not a list or mapping"),
    "option text as a list": (CHOICE.replace('text: "2"', "text: [2]"),
                              "set.md:9: field 'text' must be text\n"
                              "  fix: write it as a plain (quoted if needed) string, not a list or mapping"),
    "card page as a list": (DECK.replace("    back: b", "    back: b\n    page: [a]"),
                            "set.md:7: field 'page' must be text\n"
                            "  fix: write it as a plain (quoted if needed) string, not a list or mapping"),
    "second card's proof": (DECK.replace("    check: print(1)", "    check: print(1)\n  - front: c\n    back: d\n"
                                         "    proof: learn/a.md#x"),
                            "set.md:10: proof 'learn/a.md#x' is not page.md#run-anchor\n"
                            "  fix: write proof: learn/ddp.md#run-ddp-basic (the anchor of a run's output box)"),
    "second card's run without check": (DECK.replace("    check: print(1)", "    check: print(1)\n  - front: c\n"
                                                     "    back: d\n    proof: learn/a.md#run-x\n    run: python"),
                                        "set.md:11: run: is how a card's check: runs; this card has no check:"),
    "second card's page": (DECK.replace("    check: print(1)", "    check: print(1)\n  - front: c\n    back: d\n"
                                        "    page: x\n    proof: learn/a.md#run-x"),
                           "set.md:10: a card's page 'x' is not a page of this site\n"
                           "  fix: write the docs-relative path of a Markdown page: page: learn/ddp.md "
                           "(or learn/ddp.md#a-heading)"),
    "second option's correct": (CHOICE.replace("    why: w", "    why: w\n    correct: 'no'"),
                                "set.md:11: correct must be true or false"),
    "YAML error without a mark": (None, None),
}
REFUSED.pop("YAML error without a mark")


@pytest.mark.parametrize("text, expected", REFUSED.values(), ids=REFUSED.keys())
def test_each_mistake_is_refused_with_its_line_reason_and_fix(text, expected):
    assert error_of(text) == expected


# ----------------------------------------------------------------------------- what is read
FULL_CHOICE = """intro

```quiz
id: full
type: choice
difficulty: hard
prompt: Which?
code: |
  print(2)
run: torchrun --nproc-per-node=2
prints: rank 0
hint: think
mistakes: [m1, m2]
options:
  - text: "one"
    why: because
    code: raise ValueError
  - text: 2
    correct: true
solution:
  steps: [s1, 3]
  answer: a
  check: c
```
"""


def test_a_choice_question_is_read_field_by_field():
    (q,), decks, fences = parse_page("p.md", FULL_CHOICE)
    assert decks == [] and len(fences) == 1 and (fences[0].line, fences[0].end_line) == (3, 24)
    assert (q.page, q.line, q.id, q.type, q.difficulty, q.prompt, q.hint) == ("p.md", 3, "full", "choice", "hard",
                                                                             "Which?", "think")
    assert q.mistakes == ["m1", "m2"] and q.code == "print(2)\n" and q.prints == "rank 0" and q.device == "cpu"
    assert q.run == {"launch": "torchrun", "nproc": "2"}
    assert [(o.text, o.correct, o.why, o.code, o.line) for o in q.options] == [
        ("one", False, "because", "raise ValueError", 15), ("2", True, "", None, 18)]
    assert q.solution == {"steps": ["s1", "3"], "answer": "a", "check": "c"}


def test_a_question_without_run_has_no_run_and_default_device():
    (q,), _, _ = parse_page("p.md", CHOICE)
    assert q.run is None and q.code is None and q.device == "cpu" and q.mistakes == [] and q.prints is None
    assert q.solution == {"steps": ["s"]} and quiz_fenced_blocks(q) == []


def test_a_fill_in_is_read_and_filled():
    text = FILL.replace("x = [[1]]", "x = [[1]] + [[2]]").replace("{1: a}", "{1: a, 2: b}").replace("[a, b]", "[a, b, c]")
    (q,), _, _ = parse_page("p.md", text)
    assert q.answers == {1: "a", 2: "b"} and q.bank == ["a", "b", "c"] and q.explanation == "e"
    assert q.filled_code() == "x = a + b\n" and q.filled_code({2: "c"}) == "x = a + c\n"
    assert wrong_bank_items(q) == [(1, "b"), (1, "c"), (2, "a"), (2, "c")]


def test_the_runs_behind_a_choice_question():
    (q,), _, _ = parse_page("p.md", FULL_CHOICE)
    runs = quiz_fenced_blocks(q)
    assert [role for role, _ in runs] == ["answer", "option-0"]
    answer, option = runs[0][1], runs[1][1]
    assert answer.body == "print(2)\n" and answer.line == 3 and answer.attrs["launch"] == "torchrun"
    assert option.body == "raise ValueError" and option.line == 15 and option.attrs["expect"] == "fail"
    assert "expect" not in answer.attrs


def test_the_runs_behind_a_fill_in_rule_out_every_other_bank_item():
    (q,), _, _ = parse_page("p.md", FILL.replace("hint: h", "hint: h\nrun: python"))
    runs = quiz_fenced_blocks(q)
    assert [(role, fenced.body) for role, fenced in runs] == [("answer", "x = a\n"), ("bank-1-1", "x = b\n")]


def test_bank_items_are_not_run_for_torchrun_or_gpu_fill_ins():
    torchrun = FILL.replace("hint: h", "hint: h\nrun: torchrun --nproc-per-node=2")
    gpu = FILL.replace("hint: h", "hint: h\nrun: python\ndevice: cuda")
    assert [role for role, _ in quiz_fenced_blocks(parse_page("p.md", torchrun)[0][0])] == ["answer"]
    runs = quiz_fenced_blocks(parse_page("p.md", gpu)[0][0])
    assert [role for role, _ in runs] == ["answer"] and runs[0][1].attrs["device"] == "cuda"


def test_a_deck_is_read_card_by_card_with_its_checks():
    text = DECK.replace("    check: print(1)", "    check: print(1)\n    run: torchrun --nproc-per-node=2\n"
                        "  - front: c\n    back: d\n    page: learn/ddp.md#x\n    proof: learn/ddp.md#run-a")
    _, (deck,), _ = parse_page("p.md", text)
    assert (deck.page, deck.line, deck.id, deck.title) == ("p.md", 1, "d1", "T")
    first, second = deck.cards
    assert (first.front, first.back, first.page, first.line, first.check, first.proof) == ("a", "b", None, 5,
                                                                                          "print(1)", None)
    assert first.run == {"launch": "torchrun", "nproc": "2"}
    assert (second.page, second.line, second.proof, second.check, second.run) == ("learn/ddp.md#x", 9,
                                                                                  "learn/ddp.md#run-a", None, None)
    [(role, fenced)] = card_fenced_blocks(deck)
    assert role == "card-0" and fenced.body == "print(1)" and fenced.line == 5 and fenced.attrs["launch"] == "torchrun"


def test_a_card_check_runs_with_python_by_default():
    _, (deck,), _ = parse_page("p.md", DECK)
    assert deck.cards[0].run == {"launch": "python"}


def test_fences_inside_other_fences_are_examples_not_quizzes():
    text = "````markdown\n" + CHOICE + "````\n~~~\n```quiz\n~~~\n" + "  " + CHOICE.replace("\n", "\n  ")
    fences = find_fences("p.md", text)
    assert len(fences) == 1 and fences[0].indent == "  " and fences[0].line == 20
    assert fences[0].body.startswith("id: q1\ntype: choice")
    (q,), _, _ = parse_page("p.md", text)
    assert q.line == 20


def test_a_quiz_fence_with_tildes_and_more_backticks():
    fences = find_fences("p.md", "~~~quiz\nid: a\n~~~\n`````flashcards\nid: b\n`````\n")
    assert [(f.lang, f.line, f.end_line, f.body) for f in fences] == [("quiz", 1, 3, "id: a"),
                                                                      ("flashcards", 4, 6, "id: b")]


def test_the_derived_runs_are_exactly_these_fences():
    from dpguide.markdown_blocks import FencedBlock

    (q,), _, _ = parse_page("p.md", FULL_CHOICE)
    attrs = {"launch": "torchrun", "nproc": "2"}
    assert quiz_fenced_blocks(q) == [
        ("answer", FencedBlock("p.md", 3, 3, "", "```", attrs, "print(2)\n", None, None, 8)),
        ("option-0", FencedBlock("p.md", 15, 15, "", "```", {**attrs, "expect": "fail"}, "raise ValueError", None, None,
                                 16))]     # on the key's line: line 1 of it is line 17
    (fill,), _, _ = parse_page("p.md", "\n" + FILL.replace("hint: h", "hint: h\nrun: python"))
    assert quiz_fenced_blocks(fill) == [
        ("answer", FencedBlock("p.md", 2, 2, "", "```", {"launch": "python"}, "x = a\n", None, None, 7)),
        ("bank-1-1", FencedBlock("p.md", 2, 2, "", "```", {"launch": "python"}, "x = b\n", None, None, 7))]
    _, (deck,), _ = parse_page("p.md", DECK)
    assert card_fenced_blocks(deck) == [("card-0", FencedBlock("p.md", 5, 5, "", "```", {"launch": "python"}, "print(1)",
                                                               None, None, 6))]


def test_a_fill_in_without_code_filled_is_empty_and_a_choice_runs_its_code_as_written():
    (q,), _, _ = parse_page("p.md", FULL_CHOICE.replace("print(2)", "print([[1]])"))
    assert quiz_fenced_blocks(q)[0][1].body == "print([[1]])\n"


def test_the_solution_keeps_answer_and_check_and_prints_is_read():
    (q,), _, _ = parse_page("p.md", FULL_CHOICE)
    assert q.prints == "rank 0" and q.solution["answer"] == "a" and q.solution["check"] == "c"


# ----------------------------------------------------------------------------- a malformed field of a later item
# names that item's own line (the search for the key starts at the item, not at the top of the fence)
TWO = DECK.replace("    check: print(1)", "    check: print(1)\n  - front: c\n    back: d\n    check: print(2)")


def later_item_cases() -> dict:
    cases = {}
    swaps = {"front": ("  - front: c", "  - front: [c]"), "back": ("    back: d", "    back: [d]"),
             "check": ("    check: print(2)", "    check: [print(2)]")}
    for key in ["page", "proof", "run"]:
        swaps[key] = ("    check: print(2)", f"    check: print(2)\n    {key}: [x]")
    for key in ["front", "back", "page", "check", "proof", "run"]:
        cases[f"second card {key} as a list"] = TWO.replace(*swaps[key])
    for key, old, new in [("text", '  - text: "2"', '  - text: [2]'), ("why", "    why: w", "    why: [w]"), ("code", "    why: w", "    why: w\n    code: [x]")]:
        cases[f"second option {key} as a list"] = CHOICE.replace(old, new)
    cases["option without text"] = CHOICE.replace('  - text: "2"\n    why: w', '  - why: w')
    for key in ["answer", "check"]:
        cases[f"solution {key} as a list"] = CHOICE.replace("  steps: [s]", f"  steps: [s]\n  {key}: [x]")
    cases["steps as text after options"] = CHOICE.replace("  steps: [s]", "  steps: s")
    cases["prints as a list"] = CHOICE.replace("hint: h", "hint: h\ncode: x\nrun: python\nprints: [a]")
    cases["code as a list"] = CHOICE.replace("hint: h", "hint: h\ncode: [x]")
    cases["run as a list"] = CHOICE.replace("hint: h", "hint: h\nrun: [x]")
    cases["run unknown"] = CHOICE.replace("hint: h", "hint: h\ncode: x\nrun: mpirun")
    cases["difficulty as a list"] = CHOICE.replace("difficulty: easy", "difficulty: [easy]")
    cases["id as a list"] = CHOICE.replace("id: q1", "id: [q1]")
    cases["card run unknown"] = TWO.replace("    check: print(2)", "    check: print(2)\n    run: mpirun")
    cases["card run bad torchrun"] = TWO.replace("    check: print(2)", "    check: print(2)\n    run: torchrun --bogus")
    cases["question run bad torchrun"] = CHOICE.replace("hint: h", "hint: h\ncode: x\nrun: torchrun --bogus")
    return cases


LATER_EXPECTED = {
    'second card front as a list': "set.md:8: field 'front' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second card back as a list': "set.md:9: field 'back' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second card page as a list': "set.md:11: field 'page' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second card check as a list': "set.md:10: field 'check' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second card proof as a list': "set.md:11: field 'proof' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second card run as a list': "set.md:11: field 'run' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second option text as a list': "set.md:9: field 'text' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second option why as a list': "set.md:10: field 'why' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'second option code as a list': "set.md:11: field 'code' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'option without text': "set.md:9: an option lacks the field 'text'\n  fix: add 'text: ...'",
    'solution answer as a list': "set.md:14: field 'answer' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'solution check as a list': "set.md:14: field 'check' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'steps as text after options': 'set.md:13: steps must be a list of texts',
    'prints as a list': "set.md:14: field 'prints' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'code as a list': "set.md:12: field 'code' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'run as a list': "set.md:12: field 'run' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'run unknown': "set.md:13: run command must start with python or torchrun, got 'mpirun block.py'\n  fix: write '#| run: python FILE.py' or '#| run: torchrun --standalone --nproc-per-node=2 FILE.py'",
    'difficulty as a list': "set.md:4: field 'difficulty' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'id as a list': "set.md:2: field 'id' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping",
    'card run unknown': "set.md:8: run command must start with python or torchrun, got 'mpirun block.py'\n  fix: write '#| run: python FILE.py' or '#| run: torchrun --standalone --nproc-per-node=2 FILE.py'",
    'card run bad torchrun': "set.md:8: torchrun option '--bogus' is not supported by the engine\n  fix: supported before the file name: --standalone, --nproc-per-node=N, --nnodes=N, --max-restarts=N (with '='); words after the file name are the script's arguments",
    'question run bad torchrun': "set.md:13: torchrun option '--bogus' is not supported by the engine\n  fix: supported before the file name: --standalone, --nproc-per-node=N, --nnodes=N, --max-restarts=N (with '='); words after the file name are the script's arguments",
}


@pytest.mark.parametrize("name", LATER_EXPECTED)
def test_a_malformed_field_of_a_later_item_is_refused_at_its_line(name):
    assert error_of(later_item_cases()[name]) == LATER_EXPECTED[name]


def test_more_lines_and_reasons_pinned_by_mutation_testing():
    assert error_of(CHOICE.replace("type: choice\n", "")) == ("set.md:1: unknown question type None\n"
                                                              "  fix: use type: fill-blank or type: choice")
    assert error_of(CHOICE.replace('  - text: "1"', "  - text: [1]")) == (
        "set.md:7: field 'text' must be text\n  fix: write it as a plain (quoted if needed) string, not a list or mapping")
    assert error_of(CHOICE.replace("hint: h", "hint: h\ncode: x\nprints: python")) == (
        "set.md:13: 'prints' checks the right option against a run: the question needs code: and run:")
    with_code = CHOICE.replace("hint: h", "hint: h\nrun: python\ncode: |\n  check = 1\n  answer = 2")
    assert error_of(with_code.replace("  steps: [s]", "  steps: [s]\n  check: [x]")).startswith("set.md:18: field 'check'")
    assert error_of(with_code.replace("  steps: [s]", "  steps: [s]\n  answer: [x]")).startswith("set.md:18: field 'answer'")
    assert error_of(with_code.replace("  steps: [s]", "  steps: s")) == "set.md:17: steps must be a list of texts"
    reader = error_of(CHOICE.replace("prompt: p", "prompt: p\x07"))
    assert reader.startswith("set.md:2: the quiz block is not valid YAML: unacceptable character #x0007")
    assert reader.endswith("\n  fix: check indentation and quote text containing ': '")


def test_a_choice_run_without_code_runs_nothing_but_an_empty_program():
    (q,), _, _ = parse_page("p.md", CHOICE.replace("hint: h", "hint: h\nrun: python"))
    assert quiz_fenced_blocks(q)[0][1].body == ""


THREE = DECK.replace("    check: print(1)", "    page: learn/a.md\n    check: print(1)\n    run: python\n"
                     "  - front: c\n    back: d\n    page: learn/a.md\n    proof: learn/a.md#run-a\n"
                     "  - front: e\n    back: f\n    check: print(3)")


@pytest.mark.parametrize("key, line", [("page", 17), ("proof", 17), ("run", 17)])
def test_a_bad_field_of_the_third_card_is_found_past_the_same_key_of_earlier_cards(key, line):
    assert error_of(THREE.replace("    check: print(3)", f"    check: print(3)\n    {key}: [x]")).startswith(
        f"set.md:{line}: field '{key}' must be text")


def test_bad_values_of_the_third_card_are_found_at_its_own_lines():
    assert error_of(THREE.replace("    check: print(3)", "    check: print(3)\n    page: nope")).startswith(
        "set.md:17: a card's page 'nope' is not a page of this site")
    assert error_of(THREE.replace("    check: print(3)", "    proof: learn/a.md#x")).startswith(
        "set.md:16: proof 'learn/a.md#x' is not page.md#run-anchor")
    assert error_of(THREE.replace("    check: print(3)", "    proof: learn/a.md#run-b\n    run: python")) == (
        "set.md:17: run: is how a card's check: runs; this card has no check:")


def test_bad_fields_of_a_later_option_and_of_the_solution_are_found_past_earlier_ones():
    text = CHOICE.replace("    correct: true", "    correct: true\n    why: fine\n    code: x").replace(
        "hint: h", "hint: h\nrun: python")
    assert error_of(text.replace("    why: w", "    why: [w]")).startswith("set.md:12: field 'why' must be text")
    assert error_of(text.replace("    why: w", "    why: w\n    code: [x]")).startswith("set.md:13: field 'code'")
    in_code = CHOICE.replace("hint: h", "hint: h\nrun: python\ncode: |\n  steps: 1\n  check: 1\n  answer: 2")
    assert error_of(in_code.replace("  steps: [s]", "  steps: s")) == "set.md:18: steps must be a list of texts"
    assert error_of(in_code.replace("  steps: [s]", "  steps: [s]\n  check: [x]")).startswith("set.md:19: field 'check'")
    assert error_of(in_code.replace("  steps: [s]", "  steps: [s]\n  answer: [x]")).startswith("set.md:19: field 'answer'")


def test_an_empty_quiz_fence_and_an_unclosed_example_fence():
    assert error_of("```quiz\n```\n") == "set.md:1: a quiz block must be a YAML mapping (id:, type:, prompt:, ...)"
    assert find_fences("p.md", "````markdown\nnot closed\n") == []


def test_a_line_of_a_questions_or_cards_code_maps_to_its_line_in_the_page():
    """An error in run code (a setting before `import torch`, a DDP model freed too late) names the
    page line the author edits, not the question's first line."""
    page = ("# Set\n\n" + FILL.replace("hint: h", "hint: h\nrun: python").replace("  x = [[1]]", "  y = 0\n  x = [[1]]")
            + "\n" + CHOICE.replace('    why: w', '    why: w\n    code: |\n      a = 1\n      b = 2')
                           .replace("hint: h", "hint: h\nrun: python\ncode: |\n  ok = 1\n  fine = 2")
            + "\n" + DECK.replace("    check: print(1)", "    check: |\n      one = 1\n      two = 2"))
    lines = page.splitlines()
    questions, decks, _ = parse_page("p.md", page)
    runs = [fenced for q in questions for _, fenced in quiz_fenced_blocks(q)] + \
           [fenced for _, fenced in card_fenced_blocks(decks[0])]
    second_lines = {fenced.body.splitlines()[1].strip(): fenced.line_of(2) for fenced in runs}
    assert set(second_lines) == {"x = a", "x = b", "b = 2", "fine = 2", "two = 2"}
    for text, line in second_lines.items():
        assert lines[line - 1].strip() == text.replace("x = a", "x = [[1]]").replace("x = b", "x = [[1]]")


@pytest.mark.unit
@pytest.mark.parametrize("field, text", [
    ("hint", "See [the DDP page](../learn/ddp.md) first."),
    ("explanation", "As [here](https://example.org/x) explained."),
])
def test_a_markdown_link_in_quiz_text_is_refused_at_its_line(field, text):
    """Quiz and card text renders `code` spans only: a Markdown link would reach the reader as
    written. The build stops at its line instead; code spans and fill-in blanks are not links."""
    from dpguide.errors import AuthoringError
    from dpguide.quiz import parse_page

    fields = {"hint": "Think.", "explanation": "Because."} | {field: text}
    page = ("# P\n\n```quiz\nid: q-one\ntype: fill-blank\ndifficulty: easy\n"
            'prompt: "Fill in `x[[1]](y)`."\ncode: |\n  s = [[1]](d)\n'
            f"hint: \"{fields['hint']}\"\nexplanation: \"{fields['explanation']}\"\n"
            "bank: [a, b]\nanswers: {1: a}\n```\n")
    line = next(number for number, body in enumerate(page.split("\n"), 1) if body.startswith(field + ":"))
    with pytest.raises(AuthoringError, match=rf"^p\.md:{line}: a Markdown link"):
        parse_page("p.md", page)
    parse_page.cache_clear()
    clean = page.replace(text, "See the DDP page first.")
    assert parse_page("p.md", clean)[0][0].hint in ("Think.", "See the DDP page first.")
