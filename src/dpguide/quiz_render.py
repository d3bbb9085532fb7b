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

import html
import json
import re

from .quiz import BLANK, Deck, Question
from .results import RunResult

TYPE_NAMES = {"fill-blank": "Fill in the blanks", "choice": "Multiple choice"}


def escape(text: str) -> str:
    """HTML-escape text for an element or a quoted attribute, with Markdown's link brackets as entities."""
    return html.escape(text, quote=True).replace("[", "&#91;").replace("]", "&#93;")


def inline(text: str) -> str:
    """Escape authored text; keep `code` spans as <code>."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(f"<code>{escape(p[1:-1])}</code>" if p.startswith("`") and p.endswith("`") and len(p) > 2
                   else escape(p) for p in parts)


def json_script(data: dict, css_class: str) -> str:
    payload = json.dumps(data, ensure_ascii=False)
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" class="{css_class}">{payload}</script>'


def output_text(result: RunResult) -> str:
    if result.launch == "python":
        return result.text()
    return "\n".join(f"[{line.source}] {line.text}" for line in result.lines)


def error_text(result: RunResult) -> str:
    exceptions = result.exceptions()
    if exceptions:
        source, kind, message = exceptions[0]
        return f"{kind}: {message}" + ("" if result.launch == "python" else f" (raised on {source})")
    return result.failure_summary()


def code_with_blanks(code: str) -> str:
    out, last = [], 0
    for match in BLANK.finditer(code):
        out.append(escape(code[last:match.start()]))
        number = match[1]
        out.append(f'<span class="dpg-blank" data-blank="{number}">[{number}]</span>')
        last = match.end()
    out.append(escape(code[last:]))
    return "".join(out)


def render_question(q: Question, answer: RunResult | None, option_runs: dict[int, RunResult],
                    verified_note: str | None, number: int) -> str:
    """The question's HTML. ``answer`` is the real run of the right answer (None when not run)."""
    data = {"id": q.id, "type": q.type, "hint": q.hint}
    qid = escape(q.id)
    parts = [f'<div class="dpg-quiz" id="q-{qid}" data-quiz-id="{qid}" data-type="{escape(q.type)}">']
    parts.append(f'<p class="dpg-quiz-meta"><span class="dpg-quiz-number">Question {number}</span> · '
                 f'{TYPE_NAMES[q.type]} · <span class="dpg-difficulty dpg-difficulty-{escape(q.difficulty)}">'
                 f'{escape(q.difficulty)}</span></p>')
    parts.append(f'<p class="dpg-quiz-prompt">{inline(q.prompt)}</p>')
    if q.code:
        parts.append(f'<pre class="dpg-quiz-code"><code>{code_with_blanks(q.code)}</code></pre>')
    if q.type == "fill-blank":
        data.update(bank=q.bank, answers={str(k): v for k, v in q.answers.items()}, attempts=3)
        parts.append('<p class="dpg-quiz-bank-label">Options:</p><ul class="dpg-quiz-bank">'
                     + "".join(f"<li><code>{escape(b)}</code></li>" for b in q.bank) + "</ul>")
    else:
        data["options"] = []
        items = []
        for index, option in enumerate(q.options):
            run_error = error_text(option_runs[index]) if index in option_runs else None
            data["options"].append({"text": option.text, "correct": option.correct, "why": option.why,
                                    "error": run_error})
            items.append(f"<li>{inline(option.text)}</li>")
        parts.append('<ol class="dpg-quiz-options" type="A">' + "".join(items) + "</ol>")
    parts.append('<div class="dpg-quiz-widget"></div>')
    parts.append(f'<details class="dpg-quiz-hint"><summary>Hint</summary><p>{inline(q.hint)}</p></details>')
    parts.append(solution_html(q, answer, option_runs, verified_note))
    parts.append(json_script(data, "dpg-quiz-data"))
    parts.append("</div>")
    return "\n".join(parts)


def solution_html(q: Question, answer: RunResult | None, option_runs: dict[int, RunResult],
                  verified_note: str | None) -> str:
    body = []
    if q.type == "fill-blank":
        filled = "\n".join(f"[{k}] → {v}" for k, v in sorted(q.answers.items()))
        body.append(f"<p><strong>Answers</strong></p><pre><code>{escape(filled)}</code></pre>")
        body.append(f"<p>{inline(q.explanation)}</p>")
    else:
        steps = "".join(f"<li>{inline(str(step))}</li>" for step in q.solution.get("steps", []))
        body.append(f"<ol class=\"dpg-steps\">{steps}</ol>")
        right = next(o for o in q.options if o.correct)
        letter = "ABCDEFGHIJ"[q.options.index(right)]
        body.append(f"<p><strong>Answer:</strong> {letter}. {inline(right.text)}"
                    + (f" — {inline(str(q.solution['answer']))}" if q.solution.get("answer") else "") + "</p>")
        if q.solution.get("check"):
            body.append(f"<p><strong>Quick check:</strong> {inline(str(q.solution['check']))}</p>")
        wrong = []
        for index, option in enumerate(q.options):
            if option.correct:
                continue
            extra = ""
            if index in option_runs:
                extra = (f'<br><span class="dpg-real-error">Real error when run: <code>'
                         f"{escape(error_text(option_runs[index]))}</code></span>")
            wrong.append(f"<li><strong>{'ABCDEFGHIJ'[index]}.</strong> {inline(option.why)}{extra}</li>")
        body.append("<p><strong>Why not the others</strong></p><ul>" + "".join(wrong) + "</ul>")
    if q.mistakes:
        body.append("<p><strong>Common mistakes</strong></p><ul>"
                    + "".join(f"<li>{inline(m)}</li>" for m in q.mistakes) + "</ul>")
    if answer is not None:
        command = escape(answer.reader_command.replace("block.py", "solution.py"))
        body.append(f'<p class="dpg-proof"><strong>Proof by running it</strong> (<code>{command}</code>, '
                    "run by the site build):</p>"
                    f'<pre class="dpg-proof-output"><code>{escape(output_text(answer))}</code></pre>')
    elif verified_note:
        body.append(f'<p class="dpg-unverified">{escape(verified_note)}</p>')
    return ('<details class="dpg-quiz-solution"><summary>Solution</summary>' + "".join(body) + "</details>")


def render_deck(deck: Deck, link_for) -> str:
    cards, items = [], []
    for index, card in enumerate(deck.cards):
        href = link_for(card.page) if card.page else None
        cards.append({"front": card.front, "back": card.back, "href": href})
        more = f' <a href="{escape(href)}">Read the lesson</a>' if href else ""
        items.append(f'<li><details><summary>{inline(card.front)}</summary><p>{inline(card.back)}{more}</p>'
                     "</details></li>")
    return "\n".join([
        f'<div class="dpg-deck" id="deck-{escape(deck.id)}" data-deck-id="{escape(deck.id)}">',
        f'<p class="dpg-deck-meta">{len(deck.cards)} cards</p>',
        '<div class="dpg-deck-widget"></div>',
        '<ol class="dpg-deck-static">' + "".join(items) + "</ol>",
        json_script({"id": deck.id, "title": deck.title, "cards": cards}, "dpg-deck-data"),
        "</div>"])
