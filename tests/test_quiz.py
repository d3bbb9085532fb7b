"""Practice questions and decks: validation with file:line, answer keys checked against real runs."""

from __future__ import annotations

import pytest

from dpguide.errors import GuideError
from dpguide.site import SiteBuild

pytestmark = pytest.mark.usefixtures("clean_process_table")

CHOICE = '''
# Set

```quiz
id: q-print
type: choice
difficulty: easy
prompt: What does this print?
code: |
  print(sum([1, 2, 3]))
run: python
prints: python
options:
  - text: "6"
    correct: {six}
    why: it is the sum
  - text: "123"
    correct: {other}
    why: sum adds numbers, it does not join them
hint: add them up
solution:
  steps: [add 1, 2 and 3]
```
'''


def site_for(project, text: str) -> SiteBuild:
    project.page("set.md", text)
    return SiteBuild(project.root, cache_dir=project.root / "cache", records_dir=project.root / "records",
                     warn=lambda m: None, info=lambda m: None)


def error_of(project, text: str) -> str:
    with pytest.raises(GuideError) as info:
        site_for(project, text).execute()
    return str(info.value)


def test_right_answer_key_builds_and_shows_the_real_output(project):
    text = CHOICE.format(six="true", other="false")
    site = site_for(project, text)
    site.execute()
    html = site.render_page("set.md", text)
    assert "Proof by running it" in html and "<code>6</code></pre>" in html


def test_wrong_answer_key_fails_the_build_with_file_and_line(project):
    message = error_of(project, CHOICE.format(six="false", other="true").replace(
        "    why: it is the sum", "    why: it is not"))
    assert "set.md:16: question 'q-print': the option marked right is '123' but python really printed '6'" in message


def test_an_option_marked_wrong_that_is_exactly_the_output_fails_the_build_at_its_line(project):
    message = error_of(project, CHOICE.format(six="false", other="true"))
    assert "set.md:13: question 'q-print': option '6' is marked wrong but is exactly what the run prints" in message


def test_the_same_option_twice_is_refused_at_the_second(project):
    message = error_of(project, CHOICE.format(six="true", other="false").replace('- text: "123"', '- text: " 6"'))
    assert "set.md:16: option '6' is listed twice (also on line 13)" in message


def test_exactly_one_right_option(project):
    message = error_of(project, CHOICE.format(six="true", other="true"))
    assert "set.md:12: a choice question needs exactly one right option, this one has 2" in message


def test_unknown_field_and_duplicate_id(project):
    text = CHOICE.format(six="true", other="false")
    message = error_of(project, text.replace("hint: add them up", "hint: add them up\nanswer_key: 6"))
    assert "set.md:20: unknown field 'answer_key' in a choice question" in message
    message = error_of(project, text + text.replace("# Set", ""))
    assert "id 'q-print' is already used at set.md:3" in message


def test_every_blank_must_be_answerable_from_the_bank(project):
    message = error_of(project, '''
```quiz
id: fb
type: fill-blank
difficulty: hard
prompt: Fill it.
code: |
  x = [[1]]
answers: {1: "42"}
bank: ["41", "43"]
hint: h
explanation: e
```
''')
    assert "set.md:9: answer '42' is not in the bank" in message


def test_filled_in_code_is_run_and_a_failing_answer_fails_the_build(project):
    message = error_of(project, '''
```quiz
id: fb
type: fill-blank
difficulty: hard
prompt: Fill it.
code: |
  import torch
  print(torch.[[1]](2))
answers: {1: "onez"}
bank: ["onez", "ones"]
hint: h
explanation: e
run: python
```
''')
    assert "question fb, answer" in message and "AttributeError" in message


def test_a_wrong_option_with_code_shows_its_real_error(project):
    text = CHOICE.format(six="true", other="false").replace(
        "    why: sum adds numbers, it does not join them",
        "    why: sum adds numbers, it does not join them\n    code: |\n      print(''.join([1, 2, 3]))")
    site = site_for(project, text)
    site.execute()
    html = site.render_page("set.md", text)
    assert "TypeError: sequence item 0: expected str instance, int found" in html


def test_hostile_authored_text_cannot_inject_markup(project):
    hostile = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'
    text = CHOICE.format(six="true", other="false").replace('"123"', repr(hostile).replace("'", '"'))
    site = site_for(project, text.replace('text: "<img', "text: '<img").replace('</script>"', "</script>'"))
    site.execute()
    html = site.render_page("set.md", text.replace('text: "<img', "text: '<img").replace('</script>"', "</script>'"))
    assert "<img" not in html and "<script>alert" not in html
    assert "&lt;img src=x" in html
    assert html.count("</script>") == 1          # only the data element's own end tag


def test_flashcard_deck_validation(project):
    message = error_of(project, '''
```flashcards
id: deck
title: T
cards:
  - front: a
    back: b
    check: print(1)
  - front: c
    flip: d
```
''')
    assert "set.md:8: each card needs front: and back:" in message


def test_a_quiz_shown_inside_a_markdown_example_fence_is_not_a_quiz(project):
    text = "````markdown\n```quiz\nid: not-real\ntype: choice\n```\n````\n"
    site = site_for(project, text)
    site.execute()
    assert site.engine.questions == []
    assert site.render_page("set.md", text) == text
