"""HTML for practice questions and flashcard decks: readable without JavaScript, enhanced with it.

Every authored text is escaped (it is data, never markup); the only formatting
kept is `code` spans, applied after escaping. Square brackets are escaped too,
so even if Markdown read the widget (in an indented container) no text becomes
a link. Ids and types are validated by ``quiz`` and still escaped in attributes;
a card link is a page path resolved by ``link_for``. The widget data travels in
a ``<script type="application/json">`` element with ``<`` escaped, so no text
can close it. The static HTML (question, options, bank, collapsible hint and
solution, each card as a collapsible front/back) is complete on its own.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re

from .quiz import BLANK, HIDDEN, Deck, Question, complete_code, quiz_texts, shown_code
from .results import RunResult, terminal_text

TYPE_NAMES = {"fill-blank": "Fill in the blanks", "choice": "Multiple choice"}

#: how the answer key is proven (proofs.PROOF_KINDS), as the question says it
PROOF_LABELS = {
    "output-compared": "answer checked against a real run",
    "wrong-options-fail": "wrong options shown failing by real runs",
    "fill-unique": "every other choice run and ruled out",
    "fill-answer-runs": "answer runs; other choices explained, not run",
    "code-runs": "code runs; options explained",
    "gpu-unrecorded": "needs a GPU run, not yet recorded",
    "explained": "explained, not run",
}


def bank_outcome(result: RunResult, answer: RunResult | None) -> str:
    """What the code really did with a wrong bank item in its blank."""
    if not result.succeeded:
        return "fails: " + error_text(result)
    if answer is not None:
        mine, right = result.text().splitlines(), answer.text().splitlines()
        for index, line in enumerate(mine):
            if index >= len(right) or line != right[index]:
                return f"runs, but prints `{line}` where the answer prints " + \
                    (f"`{right[index]}`" if index < len(right) else "nothing more")
        return "runs, but prints less than the answer"
    return "runs"


def escape(text: str) -> str:
    """HTML-escape text for an element or a quoted attribute, with Markdown's link brackets as entities."""
    return html.escape(text, quote=True).replace("[", "&#91;").replace("]", "&#93;")


def inline(text: str, links: dict[str, str] | None = None) -> str:
    """Escape authored text; keep `code` spans as <code>, linked when ``links`` names their reference page."""
    out = []
    for part in re.split(r"(`[^`]+`)", text):
        if part.startswith("`") and part.endswith("`") and len(part) > 2:
            code = f"<code>{escape(part[1:-1])}</code>"
            url = (links or {}).get(part[1:-1])
            out.append(f'<a href="{escape(url)}">{code}</a>' if url else code)
        else:
            out.append(escape(part))
    return "".join(out)


_NOT_API_MARK = re.compile(r"(`[^`\n]+`)\{[^}\n]*\.no-such-api[^}\n]*\}")


def claimed_texts(item, claims, fields):
    """A copy of a question, option or card with inline values computed and no-such-api marks removed."""
    if claims is None:
        return item
    changes = {}
    for name in fields:
        value = getattr(item, name)
        if isinstance(value, str):
            changes[name] = claims.text(value)
        elif isinstance(value, list):
            changes[name] = [claims.text(v) if isinstance(v, str) else v for v in value]
        elif isinstance(value, dict):
            changes[name] = {k: ([claims.text(x) for x in v] if isinstance(v, list) else
                                 claims.text(v) if isinstance(v, str) else v) for k, v in value.items()}
    return dataclasses.replace(item, **changes)


def links_in(texts, claims) -> dict[str, str]:
    """Reference URLs for every code span in ``texts`` that names a resolved torch object."""
    if claims is None:
        return {}
    links = {}
    for text in texts:
        for code in re.findall(r"`([^`]+)`", text):
            url = claims.url_for(code)
            if url:
                links[code] = url
                claims.linked += 1
    return links


def json_script(data: dict, css_class: str) -> str:
    payload = json.dumps(data, ensure_ascii=False)
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" class="{css_class}">{payload}</script>'


def output_text(result: RunResult) -> str:
    if result.launch == "python":
        return terminal_text(result.text())
    return terminal_text("\n".join(f"[{line.source}] {line.text}" for line in result.lines))


def error_text(result: RunResult) -> str:
    """The run's first exception, its message's first line (`` …`` when the message goes on)."""
    exceptions = result.exceptions()
    if exceptions:
        source, kind, message = exceptions[0]
        line = f"{kind}: {message}" if message else kind
        more = " …" if result.message_goes_on(source, line) else ""
        return terminal_text(line) + more + ("" if result.launch == "python" else f" (raised on {source})")
    return terminal_text(result.failure_summary())


def highlighted(code: str) -> str:
    """``code`` as Python, in the token classes of Pygments that colour the pages' own code boxes
    (Material's stylesheet), every piece of text escaped as all authored text here is."""
    from pygments.lexers import PythonLexer
    from pygments.token import STANDARD_TYPES, Error

    out = []
    for kind, text in PythonLexer(stripnl=False, ensurenl=False).get_tokens(code):
        while kind not in STANDARD_TYPES:
            kind = kind.parent
        css = "" if kind is Error else STANDARD_TYPES[kind]      # the hidden answer's ??? is no error
        out.append(f'<span class="{css}">{escape(text)}</span>' if css and text.strip() else escape(text))
    return "".join(out)


def code_with_blanks(code: str) -> str:
    """The question's code, highlighted, each blank a span the page's script turns into a button. A
    blank is highlighted as a name (a placeholder no lexer splits), then swapped for its span."""
    marks: dict[str, str] = {}          # placeholder -> blank number (a blank may appear twice)

    def placeholder(match) -> str:
        mark = f"dpgblank{match[1]}x{len(marks)}"
        marks[mark] = match[1]
        return mark

    html = highlighted(BLANK.sub(placeholder, code))
    for mark, number in marks.items():
        if html.count(mark) != 1:       # a lexer that split it: fall back to plain text
            return _plain_with_blanks(code)
        html = html.replace(mark, f'<span class="dpg-blank" data-blank="{number}">[{number}]</span>')
    return html


def code_box_html(code: str) -> str:
    """A highlighted code box, styled like the Learn pages' (``pre`` classes kept for the script)."""
    return f'<div class="language-python highlight"><pre class="dpg-quiz-code"><code>{code}</code></pre></div>'


def _plain_with_blanks(code: str) -> str:
    out, last = [], 0
    for match in BLANK.finditer(code):
        out.append(escape(code[last:match.start()]))
        number = match[1]
        out.append(f'<span class="dpg-blank" data-blank="{number}">[{number}]</span>')
        last = match.end()
    out.append(escape(code[last:]))
    return "".join(out)


def score_bar_html(questions: int) -> str:
    """A practice set's progress bar as the page script shows it on a first visit, written by the build
    above the first question so that nothing below it moves when the script fills it in. A reader
    without JavaScript has no score to keep, so the bar is hidden for them."""
    return ('<div class="dpg-set-score" role="status"><span class="dpg-score-text">'
            f"Progress: 0 of {questions} answered, 0 right (0 on the first try).</span>"
            '<button type="button" class="md-button dpg-reset">Reset progress</button></div>'
            "<noscript><style>.dpg-set-score{display:none}</style></noscript>")


def render_question(q: Question, answer: RunResult | None, option_runs: dict[int, RunResult],
                    verified_note: str | None, number: int, claims=None, proof: str | None = None,
                    bank_runs: dict | None = None) -> str:
    """The question's HTML. ``answer`` is the real run of the right answer (None when not run).

    ``claims`` (a ``claims.PageClaimRenderer``) computes inline values and links torch names.
    """
    if claims is not None:
        q = claimed_texts(q, claims, ("prompt", "hint", "explanation", "mistakes", "solution"))
        q = dataclasses.replace(q, options=[claimed_texts(o, claims, ("text", "why")) for o in q.options])
    links = links_in(quiz_texts(q), claims)

    def ink(text: str) -> str:
        return inline(text, links)

    data = {"id": q.id, "type": q.type, "hint": q.hint, "proven": answer is not None}   # the solution shows a run
    qid = escape(q.id)
    parts = [f'<div class="dpg-quiz" id="q-{qid}" data-quiz-id="{qid}" data-type="{escape(q.type)}">']
    parts.append(f'<p class="dpg-quiz-meta"><span class="dpg-quiz-number">Question {number}</span> · '
                 f'{TYPE_NAMES[q.type]} · <span class="dpg-difficulty dpg-difficulty-{escape(q.difficulty)}">'
                 f'{escape(q.difficulty)}</span>'
                 + (f' · <span class="dpg-proof-kind dpg-proof-{proof}">{PROOF_LABELS[proof]}</span>' if proof else "")
                 + "</p>")
    parts.append(f'<p class="dpg-quiz-prompt">{ink(q.prompt)}</p>')
    if q.code:
        parts.append(code_box_html(code_with_blanks(shown_code(q.code))))
    if q.type == "fill-blank":
        outcomes = {(blank, item): bank_outcome(result, answer) for (blank, item), result in (bank_runs or {}).items()}
        data.update(bank=q.bank, answers={str(k): v for k, v in q.answers.items()}, attempts=3,
                    outcomes={str(blank): {item: text for (b, item), text in outcomes.items() if b == blank}
                              for blank in q.answers})
        parts.append('<p class="dpg-quiz-bank-label">Options:</p><ul class="dpg-quiz-bank">'
                     + "".join(f"<li><code>{escape(b)}</code></li>" for b in q.bank) + "</ul>")
    else:
        data["options"] = []
        items = []
        for index, option in enumerate(q.options):
            run_error = error_text(option_runs[index]) if index in option_runs else None
            data["options"].append({"text": option.text, "correct": option.correct, "why": option.why,
                                    "error": run_error})
            items.append(f"<li>{ink(option.text)}</li>")
        parts.append('<ol class="dpg-quiz-options" type="A">' + "".join(items) + "</ol>")
    parts.append('<div class="dpg-quiz-widget"></div>')
    parts.append(f'<details class="dpg-quiz-hint"><summary>Hint</summary><p>{ink(q.hint)}</p></details>')
    parts.append(solution_html(q, answer, option_runs, verified_note, links, bank_runs))
    parts.append(json_script(data, "dpg-quiz-data"))
    parts.append("</div>")
    return "\n".join(parts)


def solution_html(q: Question, answer: RunResult | None, option_runs: dict[int, RunResult],
                  verified_note: str | None, links: dict[str, str] | None = None,
                  bank_runs: dict | None = None) -> str:
    def ink(text: str) -> str:
        return inline(text, links)

    body = []
    if q.type == "fill-blank":
        filled = "\n".join(f"[{k}] → {v}" for k, v in sorted(q.answers.items()))
        body.append(f"<p><strong>Answers</strong></p><pre><code>{escape(filled)}</code></pre>")
        body.append(f"<p>{ink(q.explanation)}</p>")
        if bank_runs:
            body.append("<p><strong>The other choices, really run</strong></p><ul>" + "".join(
                f"<li>[{blank}] <code>{escape(item)}</code>: {ink(bank_outcome(result, answer))}</li>"
                for (blank, item), result in sorted(bank_runs.items())) + "</ul>")
    else:
        steps = "".join(f"<li>{ink(str(step))}</li>" for step in q.solution.get("steps", []))
        body.append(f"<ol class=\"dpg-steps\">{steps}</ol>")
        right = next(o for o in q.options if o.correct)
        letter = "ABCDEFGHIJ"[q.options.index(right)]
        body.append(f"<p><strong>Answer:</strong> {letter}. {ink(right.text)}"
                    + (f" — {ink(str(q.solution['answer']))}" if q.solution.get("answer") else "") + "</p>")
        if q.solution.get("check"):
            body.append(f"<p><strong>Quick check:</strong> {ink(str(q.solution['check']))}</p>")
        wrong = []
        for index, option in enumerate(q.options):
            if option.correct:
                continue
            extra = ""
            if index in option_runs:
                extra = (f'<br><span class="dpg-real-error">Real error when run: <code>'
                         f"{escape(error_text(option_runs[index]))}</code></span>")
            wrong.append(f"<li><strong>{'ABCDEFGHIJ'[index]}.</strong> {ink(option.why)}{extra}</li>")
        body.append("<p><strong>Why not the others</strong></p><ul>" + "".join(wrong) + "</ul>")
    if q.mistakes:
        body.append("<p><strong>Common mistakes</strong></p><ul>"
                    + "".join(f"<li>{ink(m)}</li>" for m in q.mistakes) + "</ul>")
    if q.code and shown_code(q.code) != q.code:
        body.append('<p><strong>The complete program</strong> (the question hid the answer as '
                    f'<code>{HIDDEN}</code>):</p>' + code_box_html(highlighted(complete_code(q.code))))
    if answer is not None:
        command = escape(answer.reader_command.replace("block.py", "solution.py"))
        body.append(f'<p class="dpg-proof"><strong>Proof by running it</strong> (<code>{command}</code>, '
                    "run by the site build):</p>"
                    f'<pre class="dpg-proof-output"><code>{escape(output_text(answer))}</code></pre>')
    elif verified_note:
        body.append(f'<p class="dpg-unverified">{escape(verified_note)}</p>')
    return ('<details class="dpg-quiz-solution"><summary>Solution</summary>' + "".join(body) + "</details>")


def render_deck(deck: Deck, link_for, claims=None, proofs: list[dict] | None = None) -> str:
    """The deck's HTML. ``proofs`` holds, per card, its check run's output or the page#anchor of its proof."""
    cards, items = [], []
    deck_cards = [claimed_texts(card, claims, ("front", "back")) for card in deck.cards]
    links = links_in([t for card in deck_cards for t in (card.front, card.back)], claims)
    proofs = proofs or [{} for _ in deck_cards]

    def ink(text: str) -> str:
        return inline(text, links)

    for card, proof in zip(deck_cards, proofs):
        href = link_for(card.page) if card.page else None
        entry = {"front": card.front, "back": card.back, "href": href}
        more = f' <a href="{escape(href)}">Read the lesson</a>' if href else ""
        check = ""
        if "output" in proof:
            entry.update(check=proof["output"], command=proof["command"])
            check = (f'<p class="dpg-card-check">Checked by a run (<code>{escape(proof["command"])}</code>, '
                     f'run by the site build):</p><pre class="dpg-card-output"><code>{escape(proof["output"])}'
                     "</code></pre>")
        elif "proof" in proof:
            entry["proof"] = link_for(proof["proof"])
            more += f' <a class="dpg-card-proof" href="{escape(entry["proof"])}">See the run that proves it</a>'
        cards.append(entry)
        items.append(f'<li><details><summary>{ink(card.front)}</summary><p>{ink(card.back)}{more}</p>{check}'
                     "</details></li>")
    return "\n".join([
        f'<div class="dpg-deck" id="deck-{escape(deck.id)}" data-deck-id="{escape(deck.id)}">',
        f'<p class="dpg-deck-meta">{len(deck.cards)} cards</p>',
        '<div class="dpg-deck-widget"></div>',
        # the list for a reader without JavaScript; with it, the widget shows the cards from the data
        # below, and the theme's scripts never walk 48 code boxes and 130 details nobody sees
        '<noscript><ol class="dpg-deck-static">' + "".join(items) + "</ol></noscript>",
        json_script({"id": deck.id, "title": deck.title, "cards": cards}, "dpg-deck-data"),
        "</div>"])
