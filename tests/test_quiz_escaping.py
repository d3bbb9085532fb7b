"""Hostile authored text in quizzes and decks: each field is rejected with file:line or rendered escaped.

Fast: the fences are parsed and rendered directly, no block is run.
"""

from __future__ import annotations

import html.parser
import json
import re
import textwrap

import markdown
import pytest
import yaml

from unit_blocks import authoring_error
from dpguide.quiz import parse_page
from dpguide.quiz_render import render_deck, render_question

pytestmark = pytest.mark.unit   # pure: `make test-fast` runs it; starting a process fails it (conftest.py)

TAG = '"><img src=x onerror=alert(1)>'
QUOTE = 'deck1" onmouseover="alert(6)" x="'
CLOSE = "</script><script>alert(2)</script>"
LINK = "[click](javascript:alert(3))"
PAYLOAD = f"{TAG} {QUOTE} {CLOSE} {LINK} &amp;"


error_of = authoring_error


# ---------------------------------------------------------------------------------------------- validated fields
DECK = '''
```flashcards
id: {id}
title: {title}
cards:
  - front: a
    back: b
    page: {page}
    check: print(1)
```
'''

QUIZ = '''
```quiz
id: {id}
type: {type}
difficulty: {difficulty}
prompt: p
options:
  - text: "1"
    correct: {correct}
  - text: "2"
    why: w
hint: h
solution:
  steps: {steps}
```
'''


def deck(**fields) -> str:
    return DECK.format(**{"id": "deck1", "title": "T", "page": "learn/ddp.md", **fields})


def quiz(**fields) -> str:
    return QUIZ.format(**{"id": "q1", "type": "choice", "difficulty": "easy", "correct": "true",
                          "steps": "[s]", **fields})


REJECTED = {
    "deck id breaking out of its attribute": (
        deck(id="'deck1\" onmouseover=\"alert(6)\" x=\"'"),
        "set.md:2: id 'deck1\" onmouseover=\"alert(6)\" x=\"' must be lowercase letters, digits and '-'"),
    "deck id holding a tag": (deck(id=f"'{TAG}'"), "set.md:2: id '\"><img src=x onerror=alert(1)>' must be"),
    "deck id with capitals and spaces": (deck(id="'My Deck'"), "set.md:2: id 'My Deck' must be lowercase"),
    "deck without an id": (deck().replace("id: deck1\n", ""), "set.md:1: the deck lacks the field 'id'"),
    "deck title as a mapping": (deck(title="{a: b}"), "set.md:3: field 'title' must be text"),
    "card page javascript: URL": (deck(page="'javascript:alert(1)'"),
                                  "set.md:7: a card's page 'javascript:alert(1)' is not a page of this site"),
    "card page breaking out of href": (deck(page="'learn/ddp.md\" onmouseover=\"alert(1)'"),
                                       "set.md:7: a card's page 'learn/ddp.md\" onmouseover"),
    "card page outside the docs": (deck(page="../../secret.md"), "set.md:7: a card's page '../../secret.md'"),
    "card page data: URL": (deck(page="'data:text/html,<script>alert(1)</script>'"), "set.md:7: a card's page"),
    "card page absolute URL": (deck(page="https://example.com/x.md"), "set.md:7: a card's page 'https://"),
    "card front as a list": (deck().replace("front: a", "front: [a, b]"), "set.md:5: field 'front' must be text"),
    "deck without cards": (deck().split("cards:")[0] + "cards: []\n```\n", "set.md:1: a flashcards block needs"),
    "question id breaking out of its attribute": (quiz(id=f"'{QUOTE}'"), "set.md:2: id 'deck1\" onmouseover"),
    "question type holding a tag": (quiz(type=f"'{TAG}'"), "set.md:3: unknown question type"),
    "question type as a list": (quiz(type="[choice]"), "set.md:3: unknown question type ['choice']"),
    "difficulty holding a tag": (quiz(difficulty=f"'{TAG}'"), "set.md:4: difficulty '\"><img"),
    "option correct as text": (quiz(correct="'false'"), "set.md:8: correct must be true or false"),
    "solution steps as text": (quiz(steps="'one step'"), "set.md:13: steps must be a list of texts"),
    "solution step as a mapping": (quiz(steps="[{a: b}]"), "set.md:13: steps must be a list of texts"),
    "option text as a mapping": (quiz().replace('text: "2"', "text: {a: b}"), "set.md:9: field 'text' must be text"),
    "option why as a list": (quiz().replace("why: w", "why: [w]"), "set.md:10: field 'why' must be text"),
    "prompt as a list": (quiz().replace("prompt: p", "prompt: [p]"), "set.md:5: field 'prompt' must be text"),
    "code as a mapping": (quiz().replace("prompt: p", "prompt: p\ncode: {a: b}"), "set.md:6: field 'code' must be"),
    "mistakes holding a mapping": (quiz().replace("hint: h", "hint: h\nmistakes: [{a: b}]"),
                                   "set.md:12: mistakes must be a list of texts"),
}

FILL = '''
```quiz
id: fb
type: fill-blank
difficulty: easy
prompt: p
code: |
  x = [[1]]
answers: {answers}
bank: {bank}
hint: h
explanation: e
```
'''

REJECTED |= {
    "bank item as a mapping": (FILL.format(answers="{1: a}", bank="[a, {b: c}]"), "set.md:9: bank must be a list"),
    "answer as a list": (FILL.format(answers="{1: [a]}", bank="[a]"), "set.md:8: answers must map blank numbers"),
    "answer key not a blank number": (FILL.format(answers="{x: a}", bank="[a]"), "set.md:8: answers must map blank"),
}


@pytest.mark.parametrize("text, expected", REJECTED.values(), ids=REJECTED.keys())
def test_hostile_or_malformed_field_is_rejected_with_file_and_line(text, expected):
    assert expected in error_of(text)


def test_well_formed_links_ids_and_numbers_are_accepted():
    _, decks, _ = parse_page("set.md", deck(id="cards-1", page="learn/ddp.md#why-ddp").lstrip("\n"))
    assert decks[0].id == "cards-1" and decks[0].cards[0].page == "learn/ddp.md#why-ddp"
    questions, _, _ = parse_page("set.md", FILL.format(answers='{"1": 42}', bank="[41, 42]").lstrip("\n"))
    assert questions[0].answers == {1: "42"} and questions[0].bank == ["41", "42"]


# ---------------------------------------------------------------------------------------------- escaped fields
def hostile(field: str) -> str:
    """The payload tagged with the field it is in, so each field's escaped copy can be found."""
    return f"{field}:{PAYLOAD}"


def fence(lang: str, data: dict) -> str:
    return f"```{lang}\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000) + "```\n"


HOSTILE_CHOICE = {
    "id": "hostile-choice", "type": "choice", "difficulty": "medium",
    "prompt": hostile("prompt"), "code": hostile("code") + "\nprint(1)\n", "hint": hostile("hint"),
    "mistakes": [hostile("mistake")],
    "options": [{"text": hostile("right"), "correct": True},
                {"text": hostile("wrong"), "why": hostile("why")}],
    "solution": {"steps": [hostile("step")], "answer": hostile("answer"), "check": hostile("check")},
}
HOSTILE_FILL = {
    "id": "hostile-fill", "type": "fill-blank", "difficulty": "hard",
    "prompt": hostile("fprompt"), "code": f"x = [[1]]  # {hostile('fcode')}\n", "answers": {1: hostile("bank")},
    "bank": [hostile("bank"), hostile("other")], "hint": hostile("fhint"), "mistakes": [hostile("fmistake")],
    "explanation": hostile("explanation"),
}
HOSTILE_DECK = {
    "id": "hostile-deck", "title": hostile("title"),
    "cards": [{"front": hostile("front"), "back": hostile("back"), "page": "learn/ddp.md", "check": "print(1)"},
              {"front": hostile("front2"), "back": hostile("back2"), "proof": "learn/ddp.md#run-x"}],
}
#: what the build passes for the deck: the first card's check printed hostile text
HOSTILE_PROOFS = [{"output": hostile("cardout"), "command": hostile("cardcmd")}, {"proof": "learn/ddp.md#run-x"}]
HOSTILE_PAGE = "\n".join([fence("quiz", HOSTILE_CHOICE), fence("quiz", HOSTILE_FILL),
                          fence("flashcards", HOSTILE_DECK)])

SHOWN = ["prompt", "code", "hint", "mistake", "right", "wrong", "why", "step", "answer", "check",
         "fprompt", "fcode", "bank", "other", "fhint", "fmistake", "explanation", "front", "back", "front2", "back2",
         "cardout", "cardcmd"]
IN_DATA = ["hint", "right", "wrong", "why", "fhint", "bank", "other", "title", "front", "back", "front2", "back2",
           "cardout", "cardcmd"]
TAGS = {"div", "p", "span", "pre", "code", "ol", "ul", "li", "details", "summary", "strong", "br", "a", "script", "noscript"}


def rendered() -> str:
    questions, decks, _ = parse_page("set.md", HOSTILE_PAGE)
    parts = [render_question(q, None, {}, None, n) for n, q in enumerate(questions, start=1)]
    return "\n".join(parts + [render_deck(d, lambda target: "../" + target.replace(".md", "/"), proofs=HOSTILE_PROOFS)
                               for d in decks])


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of each script element, as a browser parses them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


def elements(markup: str) -> Elements:
    parser = Elements()
    parser.feed(markup)
    parser.close()
    return parser


def test_every_authored_text_is_shown_as_text_never_as_markup():
    page = elements(rendered())
    assert {tag for tag, _ in page.tags} <= TAGS, "authored text produced an element"
    for tag, attrs in page.tags:
        assert not [name for name in attrs if name.startswith("on") or name == "x"], (tag, attrs)
        assert not attrs.get("href", "").startswith(("javascript:", "data:")), attrs
        if tag == "script":
            assert attrs == {"type": "application/json", "class": attrs["class"]}
    text = "".join(page.text)
    for field in SHOWN:                              # decoded by the parser: the reader sees the payload verbatim
        assert hostile(field) in text, f"{field} is not shown as text"


def test_every_escaped_payload_appears_only_escaped_in_the_html():
    markup = rendered()
    for raw in ("<img", "onerror=alert(1)>", '" onmouseover="', "<script>alert"):
        assert raw not in markup
    assert markup.count("</script>") == 3            # the three data elements' own end tags
    assert "](javascript:" not in re.sub(r"<script [^>]*>[^<]*</script>", "", markup)   # data is inert JSON
    assert markup.count("&lt;img src=x onerror=alert(1)&gt;") >= len(SHOWN)
    assert "&quot; onmouseover=&quot;alert(6)&quot;" in markup and "&#91;click&#93;(javascript:" in markup


def test_widget_data_cannot_close_its_script_and_keeps_the_exact_text():
    page = elements(rendered())
    assert len(page.scripts) == 3
    data = [json.loads(script) for script in page.scripts]
    values = json.dumps(data, ensure_ascii=False)
    for field in IN_DATA:
        assert json.dumps(hostile(field), ensure_ascii=False) in values, f"{field} is not kept exactly"
    deck_data = data[2]
    assert deck_data["id"] == "hostile-deck" and deck_data["title"] == hostile("title")
    assert [card["href"] for card in deck_data["cards"]] == ["../learn/ddp/", None]


def test_flashcard_front_and_back_are_escaped_in_the_static_deck():
    markup = render_deck(parse_page("set.md", fence("flashcards", HOSTILE_DECK))[1][0], lambda target: target)
    static = markup.split('<ol class="dpg-deck-static">')[1].split("</ol>")[0]
    for field in ("front", "back", "front2", "back2"):
        assert f"{field}:&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in static
    assert "<img" not in static and 'href="learn/ddp.md"' in static


def test_markdown_reading_the_widget_cannot_make_a_link():
    """Were the widget indented into an admonition, Markdown would parse it: no text may become a link."""
    body = textwrap.indent(rendered(), "    ")
    out = markdown.markdown('!!! note "Practice"\n\n' + body + "\n", extensions=["admonition", "md_in_html"])
    assert "javascript:" not in "".join(str(attrs.get("href")) for _, attrs in elements(out).tags)
    assert "<img" not in out
