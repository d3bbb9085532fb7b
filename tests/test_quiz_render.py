"""The HTML of practice questions and flashcard decks, from parsed fences and results built in memory.

Fast: nothing runs. What a learner sees is asserted piece by piece: the meta line, the options or
bank, the solution with its real runs, the widget data, and every card with its proof.
"""

from __future__ import annotations

import json
import re

from dpguide.quiz import parse_page
from dpguide.quiz_render import PROOF_LABELS, bank_outcome, code_with_blanks, error_text, escape, inline, \
    json_script, output_text, render_deck, render_question, solution_html
from unit_blocks import line, result_of
import pytest

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

CHOICE = """```quiz
id: pick
type: choice
difficulty: medium
prompt: Pick `torch.nn.Linear`.
code: |
  print(1)
run: python
hint: look
mistakes: [a `slip`]
options:
  - text: first
    why: not this
    code: raise KeyError('k')
  - text: second
    correct: true
  - text: third
    why: nor this
solution:
  steps: [one, two]
  answer: because
  check: try it
```
"""
FILL = """```quiz
id: gap
type: fill-blank
difficulty: easy
prompt: Fill <it>.
code: |
  x = [[1]] < [[2]]
answers: {1: a, 2: b}
bank: [a, b, c]
hint: h
explanation: see `x`
run: python
```
"""


def question(text):
    return parse_page("p.md", text)[0][0]


def py(lines, returncode=0, **kw):
    return result_of([line("python", t, s) for s, t in lines], launch="python", returncode=returncode, **kw)


RAISED = py([("stderr", "Traceback (most recent call last):"), ("stderr", '  File "x", line 1'),
             ("stderr", "KeyError: 'k'")], returncode=1)


def widget_data(html_text: str, css_class: str) -> dict:
    match = re.search(rf'<script type="application/json" class="{css_class}">(.*?)</script>', html_text)
    return json.loads(match[1])


# ----------------------------------------------------------------------------- pieces
def test_escape_covers_markup_quotes_and_link_brackets():
    assert escape("<a href=\"x\">'[y]'&") == "&lt;a href=&quot;x&quot;&gt;&#x27;&#91;y&#93;&#x27;&amp;"


def test_inline_keeps_code_spans_and_links_only_the_named_ones():
    assert inline("a `b<` c `d` ``") == "a <code>b&lt;</code> c <code>d</code> ``"
    assert inline("`d`", {"d": "https://x/?a=1&b"}) == '<a href="https://x/?a=1&amp;b"><code>d</code></a>'


def test_json_script_cannot_be_closed_by_its_data():
    out = json_script({"t": "</script>&"}, "k")
    assert out == '<script type="application/json" class="k">{"t": "\\u003c/script\\u003e\\u0026"}</script>'
    assert json.loads(out.split(">", 1)[1].rsplit("<", 1)[0]) == {"t": "</script>&"}


def text_of(html: str) -> str:
    """What a reader sees of highlighted code: the token spans' text, entities read back."""
    import html as html_module

    return html_module.unescape(re.sub(r'<span class="[a-z0-9]+">|</span>', "", re.sub(
        r'<span class="dpg-blank" data-blank="(\d+)">\[\d+\]</span>', r"⟦\1⟧", html)))


def test_code_with_blanks_marks_each_blank_and_escapes_the_rest():
    html = code_with_blanks("a<[[1]]>[[22]]")
    assert html == ('<span class="n">a</span><span class="o">&lt;</span><span class="n"><span class="dpg-blank" '
                    'data-blank="1">[1]</span></span><span class="o">&gt;</span><span class="n"><span '
                    'class="dpg-blank" data-blank="22">[22]</span></span>')
    assert text_of(html) == "a<⟦1⟧>⟦22⟧"


def test_code_with_blanks_is_highlighted_like_page_code_and_keeps_a_blank_used_twice():
    html = code_with_blanks('x = [[1]]("a [[2]]")\nprint(x)  # [[1]] [0]\n')
    assert '<span class="nb">print</span>' in html and '<span class="c1">' in html and '<span class="s2">' in html
    assert text_of(html) == 'x = ⟦1⟧("a ⟦2⟧")\nprint(x)  # ⟦1⟧ [0]\n'
    assert "[0]" not in html and "&#91;0&#93;" in html       # brackets escaped as all authored text


def test_output_text_labels_ranks_but_not_a_single_process():
    assert output_text(py([("stdout", "a"), ("stderr", "b")])) == "a\nb"
    assert output_text(result_of([line("rank 1", "x"), line("rank 0", "y")])) == "[rank 1] x\n[rank 0] y"


def test_error_text_shows_what_a_terminal_shows_and_says_when_the_message_goes_on():
    """torch bolds part of some errors with ANSI codes: a terminal draws them as style, so the page
    must not show them as text. A message of several lines is cut to its first, marked with …"""
    tb = [("stderr", "Traceback (most recent call last):"), ("stderr", '  File "x", line 1')]
    long = py([*tb, ("stderr", "_pickle.UnpicklingError: Weights only load failed. \x1b[1mTrust it?\x1b[0m"),
               ("stderr", "Check the docs.")], returncode=1)
    assert error_text(long) == "_pickle.UnpicklingError: Weights only load failed. Trust it? …"
    assert error_text(RAISED) == "KeyError: 'k'"                   # the message ends there: no mark
    logged = py([*tb, ("stderr", "ValueError: bad"), ("stderr", "[W1205 10:00:00.000 ProcessGroup.cpp:1] x")],
                returncode=1)
    assert error_text(logged) == "ValueError: bad"                # a C++ log line is not the message
    assert "\x1b" not in output_text(long) and "Trust it?" in output_text(long)


def test_error_text_names_the_exception_and_for_ranks_where():
    assert error_text(RAISED) == "KeyError: 'k'"
    ranked = result_of([line("rank 1", t.text, "stderr") for t in RAISED.lines], returncode=1)
    assert error_text(ranked) == "KeyError: 'k' (raised on rank 1)"
    assert error_text(py([("stderr", "usage: x")], returncode=2)) == "python's last error line: usage: x; exit status 2"


def test_bank_outcome_says_how_a_wrong_item_behaved():
    answer = py([("stdout", "1"), ("stdout", "2")])
    assert bank_outcome(RAISED, answer) == "fails: KeyError: 'k'"
    assert bank_outcome(py([("stdout", "1"), ("stdout", "3")]), answer) == "runs, but prints `3` where the answer prints `2`"
    assert bank_outcome(py([("stdout", "1"), ("stdout", "2"), ("stdout", "9")]), answer) == \
        "runs, but prints `9` where the answer prints nothing more"
    assert bank_outcome(py([("stdout", "1")]), answer) == "runs, but prints less than the answer"
    assert bank_outcome(py([("stdout", "1")]), None) == "runs"


# ----------------------------------------------------------------------------- a choice question
def test_a_choice_question_shows_meta_prompt_code_options_and_hint():
    q = question(CHOICE)
    out = render_question(q, None, {0: RAISED}, None, 4, proof="wrong-options-fail")
    assert out.startswith('<div class="dpg-quiz" id="q-pick" data-quiz-id="pick" data-type="choice">\n')
    assert ('<p class="dpg-quiz-meta"><span class="dpg-quiz-number">Question 4</span> · Multiple choice · '
            '<span class="dpg-difficulty dpg-difficulty-medium">medium</span> · <span class="dpg-proof-kind '
            f'dpg-proof-wrong-options-fail">{PROOF_LABELS["wrong-options-fail"]}</span></p>') in out
    assert '<p class="dpg-quiz-prompt">Pick <code>torch.nn.Linear</code>.</p>' in out
    assert ('<div class="language-python highlight"><pre class="dpg-quiz-code"><code><span class="nb">print</span>'
            '<span class="p">(</span><span class="mi">1</span><span class="p">)</span>\n</code></pre></div>') in out
    assert '<ol class="dpg-quiz-options" type="A"><li>first</li><li>second</li><li>third</li></ol>' in out
    assert '<div class="dpg-quiz-widget"></div>' in out
    assert '<details class="dpg-quiz-hint"><summary>Hint</summary><p>look</p></details>' in out
    assert out.endswith("</div>")
    assert widget_data(out, "dpg-quiz-data") == {
        "id": "pick", "type": "choice", "hint": "look", "proven": False,
        "options": [{"text": "first", "correct": False, "why": "not this", "error": "KeyError: 'k'"},
                    {"text": "second", "correct": True, "why": "", "error": None},
                    {"text": "third", "correct": False, "why": "nor this", "error": None}]}


def test_without_a_proof_kind_the_meta_line_has_none():
    assert "dpg-proof-kind" not in render_question(question(CHOICE), None, {}, None, 1)


def test_a_choice_solution_gives_steps_answer_check_and_real_errors():
    q = question(CHOICE)
    out = solution_html(q, py([("stdout", "1")]), {0: RAISED}, None)
    assert out.startswith('<details class="dpg-quiz-solution"><summary>Solution</summary>') and out.endswith("</details>")
    assert '<ol class="dpg-steps"><li>one</li><li>two</li></ol>' in out
    assert "<p><strong>Answer:</strong> B. second — because</p>" in out
    assert "<p><strong>Quick check:</strong> try it</p>" in out
    assert ('<p><strong>Why not the others</strong></p><ul><li><strong>A.</strong> not this<br>'
            '<span class="dpg-real-error">Real error when run: <code>KeyError: &#x27;k&#x27;</code></span></li>'
            "<li><strong>C.</strong> nor this</li></ul>") in out
    assert "<p><strong>Common mistakes</strong></p><ul><li>a <code>slip</code></li></ul>" in out
    assert ('<p class="dpg-proof"><strong>Proof by running it</strong> (<code>python x.py</code>, run by the site '
            'build):</p><pre class="dpg-proof-output"><code>1</code></pre>') in out


def test_the_proof_command_names_the_solution_file():
    answer = py([("stdout", "1")])
    answer.reader_command = "torchrun --standalone --nproc-per-node=2 block.py"
    assert "<code>torchrun --standalone --nproc-per-node=2 solution.py</code>" in solution_html(
        question(CHOICE), answer, {}, None)


def test_a_question_not_run_says_so_and_shows_no_proof():
    q = question(CHOICE.replace("  answer: because\n  check: try it\n", ""))
    out = solution_html(q, None, {}, "Explained, <not> run.")
    assert '<p class="dpg-unverified">Explained, &lt;not&gt; run.</p>' in out
    assert "Proof by running it" not in out and "Quick check" not in out and "<p><strong>Answer:</strong> B. second</p>" in out
    assert "dpg-unverified" not in solution_html(q, None, {}, None)


# ----------------------------------------------------------------------------- a fill-in
def test_a_fill_in_shows_its_bank_and_answers_and_rules_out_the_other_items():
    q = question(FILL)
    answer = py([("stdout", "True")])
    bank_runs = {(1, "b"): RAISED, (1, "c"): py([("stdout", "False")]), (2, "a"): py([("stdout", "True")])}
    out = render_question(q, answer, {}, None, 2, bank_runs=bank_runs)
    assert "Fill in the blanks" in out and '<p class="dpg-quiz-prompt">Fill &lt;it&gt;.</p>' in out
    assert '<ul class="dpg-quiz-bank"><li><code>a</code></li><li><code>b</code></li><li><code>c</code></li></ul>' in out
    assert ("<p><strong>Answers</strong></p><pre><code>&#91;1&#93; → a\n&#91;2&#93; → b</code></pre><p>see <code>x</code></p>") in out
    assert ("<p><strong>The other choices, really run</strong></p><ul>"
            "<li>[1] <code>b</code>: fails: KeyError: &#x27;k&#x27;</li>"
            "<li>[1] <code>c</code>: runs, but prints <code>False</code> where the answer prints <code>True</code></li>"
            "<li>[2] <code>a</code>: runs, but prints less than the answer</li></ul>") in out
    data = widget_data(out, "dpg-quiz-data")
    assert data["bank"] == ["a", "b", "c"] and data["answers"] == {"1": "a", "2": "b"} and data["attempts"] == 3
    assert data["outcomes"] == {"1": {"b": "fails: KeyError: 'k'",
                                      "c": "runs, but prints `False` where the answer prints `True`"},
                                "2": {"a": "runs, but prints less than the answer"}}


def test_a_fill_in_without_bank_runs_lists_no_other_choices():
    out = render_question(question(FILL), None, {}, None, 1)
    assert "The other choices" not in out and widget_data(out, "dpg-quiz-data")["outcomes"] == {"1": {}, "2": {}}


# ----------------------------------------------------------------------------- claims hooks
class Claims:
    """Stands in for claims.PageClaimRenderer: inline values upper-cased, one linked name."""
    linked = 0

    def text(self, value):
        return value.replace("{python} 1+1", "2")

    def url_for(self, code):
        return "https://ref/Linear" if code == "torch.nn.Linear" else None


def test_claims_compute_inline_values_and_link_torch_names_in_questions():
    claims = Claims()
    q = question(CHOICE.replace("hint: look", "hint: '{python} 1+1'"))
    out = render_question(q, None, {}, None, 1, claims=claims)
    assert '<a href="https://ref/Linear"><code>torch.nn.Linear</code></a>' in out and "<p>2</p>" in out
    assert claims.linked == 1


# ----------------------------------------------------------------------------- a deck
DECK = """```flashcards
id: cards-x
title: T <x>
cards:
  - front: What is `torch.nn.Linear`?
    back: A layer.
    page: learn/ddp.md
    check: print(1)
  - front: Two
    back: '{python} 1+1'
    proof: learn/ddp.md#run-a
```
"""


def test_a_deck_shows_every_card_with_its_lesson_and_proof():
    deck = parse_page("p.md", DECK)[1][0]
    proofs = [{"output": "1 <", "command": "python check.py"}, {"proof": "learn/ddp.md#run-a"}]
    out = render_deck(deck, lambda page: "../" + page.replace(".md", "/"), Claims(), proofs)
    assert out.startswith('<div class="dpg-deck" id="deck-cards-x" data-deck-id="cards-x">\n'
                          '<p class="dpg-deck-meta">2 cards</p>\n<div class="dpg-deck-widget"></div>\n')
    assert ('<li><details><summary>What is <a href="https://ref/Linear"><code>torch.nn.Linear</code></a>?</summary>'
            '<p>A layer. <a href="../learn/ddp/">Read the lesson</a></p><p class="dpg-card-check">Checked by a run '
            '(<code>python check.py</code>, run by the site build):</p><pre class="dpg-card-output"><code>1 &lt;'
            "</code></pre></details></li>") in out
    assert ('<li><details><summary>Two</summary><p>2 <a class="dpg-card-proof" href="../learn/ddp/#run-a">'
            "See the run that proves it</a></p></details></li>") in out
    data = widget_data(out, "dpg-deck-data")
    assert data == {"id": "cards-x", "title": "T <x>", "cards": [
        {"front": "What is `torch.nn.Linear`?", "back": "A layer.", "href": "../learn/ddp/", "check": "1 <",
         "command": "python check.py"},
        {"front": "Two", "back": "2", "href": None, "proof": "../learn/ddp/#run-a"}]}


def test_a_deck_without_proofs_or_claims_still_renders_every_card():
    deck = parse_page("p.md", DECK)[1][0]
    out = render_deck(deck, lambda page: page)
    assert out.count("<li><details>") == 2 and "dpg-card-check" not in out and "{python} 1+1" in out


# ----------------------------------------------------------------------------- exact shapes (mutation testing)
def test_empty_backticks_stay_text_and_widget_data_keeps_unicode():
    assert inline("``") == "``"
    assert json_script({"t": "é"}, "k") == '<script type="application/json" class="k">{"t": "é"}</script>'


def test_every_linked_name_is_counted():
    claims = Claims()
    render_question(question(CHOICE.replace("hint: look", "hint: again `torch.nn.Linear`")), None, {}, None, 1,
                    claims=claims)
    assert claims.linked == 2


def test_claims_reach_options_mistakes_steps_and_answers():
    text = (CHOICE.replace("text: third", "text: '{python} 1+1'").replace("mistakes: [a `slip`]", "mistakes: ['{python} 1+1']")
            .replace("steps: [one, two]", "steps: ['{python} 1+1', '`torch.nn.Linear`']")
            .replace("answer: because", "answer: '{python} 1+1'"))
    out = render_question(question(text), None, {}, "not run", 1, claims=Claims())
    assert "<li>2</li></ol>" in out                                  # the option
    assert "<p><strong>Common mistakes</strong></p><ul><li>2</li></ul>" in out
    assert '<ol class="dpg-steps"><li>2</li><li><a href="https://ref/Linear"><code>torch.nn.Linear</code></a></li></ol>' in out
    assert "<p><strong>Answer:</strong> B. second — 2</p>" in out
    assert '<p class="dpg-unverified">not run</p>' in out


def test_exact_meta_line_bank_label_widget_and_mistakes():
    out = render_question(question(CHOICE.replace("mistakes: [a `slip`]", "mistakes: [m1, m2]")), None, {}, None, 1)
    assert ('<p class="dpg-quiz-meta"><span class="dpg-quiz-number">Question 1</span> · Multiple choice · '
            '<span class="dpg-difficulty dpg-difficulty-medium">medium</span></p>\n') in out
    assert "\n<div class=\"dpg-quiz-widget\"></div>\n" in out
    assert "<p><strong>Common mistakes</strong></p><ul><li>m1</li><li>m2</li></ul>" in out
    fill = render_question(question(FILL), None, {}, None, 1)
    assert '\n<p class="dpg-quiz-bank-label">Options:</p><ul class="dpg-quiz-bank">' in fill


def test_a_deck_ends_with_its_static_list_and_data_and_keeps_both_links():
    deck = parse_page("p.md", DECK.replace("    proof: learn/ddp.md#run-a", "    page: learn/a.md\n    proof: learn/ddp.md#run-a"))[1][0]
    out = render_deck(deck, lambda page: page, None, [{}, {"proof": "learn/ddp.md#run-a"}])
    static = out.split("\n")[3]
    assert (static.startswith('<noscript><ol class="dpg-deck-static"><li><details>')
            and static.endswith("</details></li></ol></noscript>"))
    assert "</li><li>" in static and out.endswith("</script>\n</div>")
    assert ('<p>{python} 1+1 <a href="learn/a.md">Read the lesson</a> <a class="dpg-card-proof" '
            'href="learn/ddp.md#run-a">See the run that proves it</a></p>') in out


@pytest.mark.unit
def test_the_question_hides_its_answer_and_the_solution_shows_the_whole_program():
    """A choice question whose code holds the right line would give the answer away: the marked
    part shows as ???, the solution shows the complete program without the mark."""
    q = question(CHOICE.replace("  print(1)\n", "  x = 41\n  print(x + 1)   #| answer: x + 1\n  y = 2   #| answer\n"))
    out = render_question(q, None, {}, None, 1)
    shown = re.search(r'<p class="dpg-quiz-prompt">.*?<pre class="dpg-quiz-code"><code>(.*?)</code></pre>', out, re.S)[1]
    assert text_of(shown) == "x = 41\nprint(???)\n???\n" and "err" not in shown
    assert "x + 1" not in out.split('<details class="dpg-quiz-solution">')[0]
    solution = out.split('<details class="dpg-quiz-solution">')[1]
    assert "The complete program" in solution and "x = 41\nprint(x + 1)\ny = 2\n" in text_of(solution)
    assert "#| answer" not in out
    assert "The complete program" not in render_question(question(CHOICE), None, {}, None, 1)   # nothing hidden


@pytest.mark.unit
def test_an_answer_mark_that_hides_nothing_is_refused_at_its_line():
    from dpguide.errors import AuthoringError

    with pytest.raises(AuthoringError, match=r"^p\.md:7: #\| answer: 'x \+ 2' is not on this line"):
        question(CHOICE.replace("  print(1)\n", "  print(x + 1)   #| answer: x + 2\n"))


@pytest.mark.unit
def test_an_answer_mark_in_a_fill_in_is_refused_at_its_line():
    from dpguide.errors import AuthoringError

    fill = ("```quiz\nid: f-one\ntype: fill-blank\ndifficulty: easy\nprompt: Fill it.\ncode: |\n"
            "  s = [[1]](d)   #| answer\nhint: Think.\nexplanation: Because.\nbank: [a, b]\nanswers: {1: a}\n```\n")
    with pytest.raises(AuthoringError, match=r"^p\.md:7: #\| answer hides part of a choice question's code"):
        question(fill)
