"""Answer keys proven for real: a fill-in's every wrong bank item is run and must fail or print something
else; each question says how its key is proven; the build counts them and pages quote the counts."""

from __future__ import annotations

import json
import re

import pytest

from dpguide.errors import GuideError
from dpguide.site import SiteBuild

pytestmark = pytest.mark.usefixtures("clean_process_table")

FILL = """\
```quiz
id: pick-op
type: fill-blank
difficulty: easy
prompt: Make it print 6.
code: |
  import operator
  print([[1]](2, 3))
answers: {1: operator.mul}
bank: [operator.mul, BANK_ITEM, operator.nope]
hint: Two times three.
explanation: Multiplication.
run: python
```
"""

EXPLAINED = """\
```quiz
id: just-words
type: choice
difficulty: easy
prompt: Which is a number?
options:
  - text: "1"
    correct: true
  - text: "a"
    why: a letter
hint: Digits.
solution:
  steps: [It is 1.]
```
"""


def build(project, page_text: str):
    project.page("set.md", page_text)
    sb = SiteBuild(project.root, docs_dir=project.docs, cache_dir=project.root / "cache", info=lambda m: None)
    sb.execute()
    return sb, sb.render_page("set.md", page_text)


def test_a_wrong_bank_item_that_prints_the_same_makes_the_key_ambiguous(project):
    with pytest.raises(GuideError, match=r"set.md:1: question 'pick-op': with '\(lambda \*a: 6\)' in blank \[1\] "
                                         r"the code also runs and prints exactly what the answer prints"):
        build(project, FILL.replace("BANK_ITEM", '"(lambda *a: 6)"'))


def test_every_wrong_bank_item_is_run_and_its_real_outcome_shown(project):
    sb, text = build(project, FILL.replace("BANK_ITEM", "operator.add"))
    assert sb.proof_kind(sb.engine.questions[0]) == "fill-unique"
    assert "every other choice run and ruled out" in text
    assert "[1] <code>operator.add</code>: runs, but prints <code>5</code> where the answer prints <code>6</code>" in text
    assert "[1] <code>operator.nope</code>: fails: AttributeError: module &#x27;operator&#x27; has no attribute" in text
    data = json.loads(re.search(r'class="dpg-quiz-data">(.*?)</script>', text)[1])
    assert data["outcomes"]["1"]["operator.add"].startswith("runs, but prints `5`")


def test_a_question_no_run_proves_says_so_and_the_build_counts_every_kind(project):
    page = FILL.replace("BANK_ITEM", "operator.add") + "\n" + EXPLAINED + \
        "\nProven: `{site} questions_proven` of `{site} questions`; explained: `{site} questions_explained`.\n" \
        "\nSyntax shown, not evaluated: `` `{site} NAME` ``.\n"
    sb, text = build(project, page)
    assert "explained, not run" in text
    assert "`` `{site} NAME` ``" in text
    assert sb.proof_counts["fill-unique"] == 1 and sb.proof_counts["explained"] == 1
    assert re.search(r"Proven: <span[^>]*>1</span> of <span[^>]*>2</span>; explained: <span[^>]*>1</span>", text)


def test_an_unknown_site_fact_stops_the_build_at_its_line(project):
    with pytest.raises(GuideError, match=r"set.md:3: `\{site\} questions_invented` is not a fact of the build"):
        build(project, "# S\n\n`{site} questions_invented`\n")
