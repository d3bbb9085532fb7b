"""Practice questions and flashcard decks authored as YAML in ``quiz`` / ``flashcards`` fences.

Parsing and validation live here (every mistake is reported with file:line and
the fix); the runs that prove answer keys are ordinary engine blocks derived
from the questions (see ``quiz_blocks``), and ``quiz_render`` draws them.

A fill-in-the-blank question writes its blanks as ``[[1]]``, ``[[2]]`` in the
code; with ``run:`` the code is executed with the right answers filled in. A
multiple-choice question with ``prints: <source>`` must have its right option
equal to what that source really printed; an option with its own ``code:`` is
executed too (it must fail) and its real error is shown as that option's feedback.

Authored text reaches HTML, so every field is checked here: ids match ``ID``,
texts must be plain text (``quiz_render`` escapes them), and a card's ``page:``
must be a page of the site (``PAGE_LINK``), never a URL such as ``javascript:``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import yaml

from .markdown_blocks import FencedBlock
from .options import options_from_command, raise_error

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>quiz|flashcards)[ \t]*$")
BLANK = re.compile(r"\[\[(\d+)\]\]")
DIFFICULTIES = ("easy", "medium", "hard")
ID = re.compile(r"[a-z0-9][a-z0-9-]*")
PAGE_LINK = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*\.md(?:#[A-Za-z0-9_.-]+)?")

COMMON = {"id", "type", "difficulty", "prompt", "hint", "mistakes", "code", "run", "device"}
FIELDS = {
    "fill-blank": COMMON | {"answers", "bank", "explanation"},
    "choice": COMMON | {"options", "prints", "solution"},
}
OPTION_FIELDS = {"text", "correct", "why", "code"}
SOLUTION_FIELDS = {"steps", "answer", "check"}
CARD_FIELDS = {"front", "back", "page", "check", "run", "proof"}


@dataclass
class Option:
    text: str
    correct: bool
    why: str
    code: str | None
    line: int
    code_line: int | None = None    # the page line just above its code: line N of the code is code_line + N


@dataclass
class Question:
    page: str
    line: int
    id: str
    type: str
    difficulty: str
    prompt: str
    hint: str
    mistakes: list[str]
    code: str | None
    run: dict | None            # launch attributes when the code is executed
    device: str
    answers: dict[int, str] = field(default_factory=dict)
    bank: list[str] = field(default_factory=list)
    explanation: str = ""
    options: list[Option] = field(default_factory=list)
    prints: str | None = None
    solution: dict = field(default_factory=dict)
    code_line: int | None = None    # the page line just above its code: line N of the code is code_line + N

    @property
    def where(self) -> tuple[str, int]:
        return (self.page, self.line)

    def filled_code(self, instead: dict[int, str] | None = None) -> str:
        """The code with every blank filled by its answer (or by ``instead`` for the blanks it names)."""
        fill = {**self.answers, **(instead or {})}
        return BLANK.sub(lambda m: fill[int(m[1])], self.code or "")


@dataclass
class Card:
    front: str
    back: str
    page: str | None
    line: int
    check: str | None = None    # a small program the build runs; its output is shown on the back
    run: dict | None = None     # how the check runs (python by default)
    proof: str | None = None    # page#anchor of the run on a Learn page that proves the card
    check_line: int | None = None   # the page line just above its check: line N of it is check_line + N


@dataclass
class Deck:
    page: str
    line: int
    id: str
    title: str
    cards: list[Card]


@dataclass
class Fence:
    page: str
    line: int
    end_line: int
    indent: str
    lang: str
    body: str

    @functools.cached_property
    def lines(self) -> list[str]:
        """The body's lines (line N of it is page line ``self.line + N``), split once per fence."""
        return self.body.splitlines()


@functools.lru_cache(maxsize=None)
def _key_pattern(key: str, form: str) -> re.Pattern:
    """A compiled ``key:`` matcher: ``field`` (``key:`` or ``- key:`` at any indent), ``item`` (``- key:``,
    ``key`` a regex), ``top`` (``key:`` at the start of the line)."""
    escaped = key if form == "item" else re.escape(key)
    return re.compile({"field": rf"^\s*-?\s*{escaped}\s*:", "item": rf"^\s*-\s*{escaped}\s*:",
                       "top": rf"{escaped}\s*:"}[form])


def find_fences(page: str, text: str) -> list[Fence]:
    lines = text.splitlines()
    found, index = [], 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            other = re.match(r"^[ \t]*(`{3,}|~{3,})", lines[index])
            index += 1
            if other:   # skip any other fence whole: a quiz shown inside ````markdown is an example
                while index < len(lines) and not (lines[index].strip().startswith(other[1])
                                                  and set(lines[index].strip()) == {other[1][0]}):
                    index += 1
                index += 1
            continue
        fence, indent = match["fence"], match["indent"]
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        if end == len(lines):
            raise_error((page, index + 1), f"this {match['lang']} fence is never closed", f"add a line {fence}")
        body = "\n".join(line[len(indent):] for line in lines[index + 1:end])
        found.append(Fence(page, index + 1, end + 1, indent, match["lang"], body))
        index = end + 1
    return found


def _field_line(fence: Fence, key: str, default: int | None = None) -> int:
    pattern = _key_pattern(key, "field")
    for offset, line in enumerate(fence.lines, start=1):
        if pattern.match(line):
            return fence.line + offset
    return default or fence.line


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml when available: ~10x faster


def _load(fence: Fence):
    try:
        return yaml.load(fence.body, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = fence.line + 1 + (mark.line if mark else 0)
        raise_error((fence.page, line), f"the {fence.lang} block is not valid YAML: "
                    f"{getattr(exc, 'problem', exc)}", "check indentation and quote text containing ': '")


def _is_text(value) -> bool:
    return isinstance(value, (str, int, float))


def _text(data: dict, key: str, fence: Fence, required: bool = True, line: int | None = None,
          what: str = "question") -> str:
    """``data[key]`` as text; ``line`` is where to search for the key (default: the whole fence)."""
    value = data.get(key)
    if value is None:
        if required:
            raise_error((fence.page, line or fence.line), f"{what} lacks the field {key!r}", f"add '{key}: ...'")
        return ""
    if not _is_text(value):
        raise_error((fence.page, _key_line(fence, key, line)), f"field {key!r} must be text",
                    "write it as a plain (quoted if needed) string, not a list or mapping")
    return str(value)


def _texts(value, where: tuple[str, int], what: str) -> list[str]:
    if not isinstance(value, list) or not all(_is_text(v) for v in value):
        raise_error(where, f"{what} must be a list of texts")
    return [str(v) for v in value]


def _check_id(value: str, fence: Fence) -> str:
    if not ID.fullmatch(value):
        raise_error((fence.page, _field_line(fence, "id")), f"id {value!r} must be lowercase letters, digits and '-'",
                    "it becomes an HTML id and a storage key, e.g. id: ddp-basics-sampler")
    return value


def parse_question(fence: Fence) -> Question:
    data = _load(fence)
    where = (fence.page, fence.line)
    if not isinstance(data, dict):
        raise_error(where, "a quiz block must be a YAML mapping (id:, type:, prompt:, ...)")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise_error((fence.page, _field_line(fence, "type")), f"unknown question type {kind!r}",
                    "use type: fill-blank or type: choice")
    unknown = sorted(set(data) - FIELDS[kind])
    if unknown:
        raise_error((fence.page, _field_line(fence, unknown[0])), f"unknown field {unknown[0]!r} in a {kind} question",
                    "known fields: " + ", ".join(sorted(FIELDS[kind])))
    difficulty = _text(data, "difficulty", fence)
    if difficulty not in DIFFICULTIES:
        raise_error((fence.page, _field_line(fence, "difficulty")), f"difficulty {difficulty!r} is not one of "
                    + ", ".join(DIFFICULTIES))
    qid = _check_id(_text(data, "id", fence), fence)
    mistakes = _texts(data.get("mistakes") or [], (fence.page, _field_line(fence, "mistakes")), "mistakes")
    code = _text(data, "code", fence, required=False) or None
    run = None
    if data.get("run"):
        run = options_from_command(f"{_text(data, 'run', fence)} block.py", (fence.page, _field_line(fence, "run")))
    device = str(data.get("device", "cpu"))
    if device not in ("cpu", "cuda"):
        raise_error((fence.page, _field_line(fence, "device")), "device must be cpu or cuda")
    question = Question(fence.page, fence.line, qid, kind, difficulty, _text(data, "prompt", fence),
                        _text(data, "hint", fence), mistakes, code, run, device)
    question.code_line = _code_line(fence, _top_level_line(fence, "code"))
    if kind == "fill-blank":
        _parse_fill_blank(question, data, fence)
    else:
        _parse_choice(question, data, fence)
    _check_answer_marks(question, fence)
    _refuse_markdown_links(fence, quiz_texts(question))
    return question


def quiz_texts(question: Question) -> list[str]:
    """Every authored text of a question a reader sees (prompt, hint, options, solution, ...)."""
    texts = [question.prompt, question.hint, question.explanation, *question.mistakes]
    for option in question.options:
        texts += [option.text, option.why]
    for value in question.solution.values():
        texts += value if isinstance(value, list) else [value]
    return [t for t in texts if isinstance(t, str) and t]


#: ``#| answer: PART`` at the end of a line of a choice question's code: the page shows that line with
#: PART as ``???`` (without PART, the whole line), so the code does not give the answer away; the
#: build runs the line as written, and the solution shows the complete program
ANSWER_MARK = re.compile(r"[ \t]*#\| answer(?::[ \t]*(?P<part>.*?))?[ \t]*$")
HIDDEN = "???"


def shown_code(code: str) -> str:
    """The question's code as the page shows it: each marked part (or line) replaced by ``???``."""
    lines = []
    for line in code.split("\n"):
        mark = ANSWER_MARK.search(line)
        if mark:
            body = line[:mark.start()]
            indent = body[:len(body) - len(body.lstrip())]
            line = body.replace(mark["part"], HIDDEN, 1) if mark["part"] else indent + HIDDEN
        lines.append(line)
    return "\n".join(lines)


def complete_code(code: str) -> str:
    """The question's code without its answer marks: the program the build runs."""
    return "\n".join(ANSWER_MARK.sub("", line) for line in code.split("\n"))


def _check_answer_marks(question: Question, fence: Fence) -> None:
    for offset, line in enumerate((question.code or "").split("\n")):
        mark = ANSWER_MARK.search(line)
        if not mark:
            continue
        where = (fence.page, (question.code_line or fence.line) + offset + 1)
        if question.type != "choice":
            raise_error(where, "#| answer hides part of a choice question's code; a fill-in has blanks for that",
                        "use [[N]] blanks instead")
        if mark["part"] and mark["part"] not in line[:mark.start()]:
            raise_error(where, f"#| answer: {mark['part']!r} is not on this line, so nothing would be hidden",
                        "copy the exact text the options offer, or write #| answer to hide the whole line")


#: ``[text](target)`` outside code spans: quiz and card text renders code spans only, so a link would show raw
_MARKDOWN_LINK = re.compile(r"(?<![\[!])\[[^\[\]\n]+\]\([^()\s]+\)")


def _refuse_markdown_links(fence: Fence, texts: list[str]) -> None:
    for text in texts:
        found = _MARKDOWN_LINK.search(re.sub(r"`[^`\n]*`", lambda m: " " * len(m[0]), text or ""))
        if found:
            line = next((fence.line + offset for offset, body_line in enumerate(fence.lines, start=1)
                         if found[0] in body_line), fence.line)
            raise_error((fence.page, line), f"a Markdown link {found[0]!r} in {fence.lang} text would show as "
                        "written: this text renders `code` spans only",
                        "name the page in words (a card's page: field links its Learn page)")


def _parse_fill_blank(q: Question, data: dict, fence: Fence) -> None:
    if not q.code:
        raise_error(q.where, "a fill-blank question needs code with blanks [[1]], [[2]], ...", "add 'code: |'")
    blanks = sorted({int(n) for n in BLANK.findall(q.code)})
    answers = data.get("answers")
    if not isinstance(answers, dict):
        raise_error((fence.page, _field_line(fence, "answers")), "answers must map each blank to its text",
                    "e.g. answers: {1: DistributedSampler}")
    if not all(re.fullmatch(r"\d+", str(k)) and _is_text(v) for k, v in answers.items()):
        raise_error((fence.page, _field_line(fence, "answers")), "answers must map blank numbers to texts",
                    "e.g. answers: {1: DistributedSampler}")
    q.answers = {int(k): str(v) for k, v in answers.items()}
    if blanks != sorted(q.answers):
        raise_error((fence.page, _field_line(fence, "answers")),
                    f"the code has blanks {blanks} but answers are given for {sorted(q.answers)}",
                    "give exactly one answer per [[n]] in the code")
    bank = data.get("bank")
    if not isinstance(bank, list) or not bank:
        raise_error((fence.page, _field_line(fence, "bank")), "bank must be a list of options")
    q.bank = _texts(bank, (fence.page, _field_line(fence, "bank")), "bank")
    if len(set(q.bank)) != len(q.bank):
        raise_error((fence.page, _field_line(fence, "bank")), "the bank lists an option twice")
    missing = [a for a in q.answers.values() if a not in q.bank]
    if missing:
        raise_error((fence.page, _field_line(fence, "bank")), f"answer {missing[0]!r} is not in the bank",
                    "every blank must be answerable from the bank: add it")
    q.explanation = _text(data, "explanation", fence)


def _parse_choice(q: Question, data: dict, fence: Fence) -> None:
    options = data.get("options")
    if not isinstance(options, list) or len(options) < 2:
        raise_error((fence.page, _field_line(fence, "options")), "a choice question needs at least two options")
    search_from = _field_line(fence, "options")
    for number, item in enumerate(options):
        if not isinstance(item, dict):
            raise_error((fence.page, search_from), "each option is a mapping: - text: ... why: ...")
        unknown = sorted(set(item) - OPTION_FIELDS)
        if unknown:
            raise_error((fence.page, _field_line(fence, unknown[0])), f"unknown option field {unknown[0]!r}",
                        "known: " + ", ".join(sorted(OPTION_FIELDS)))
        start = _nth_line(fence, "(?:text|correct|why|code)", number)
        text = _text(item, "text", fence, line=start, what="an option")
        if not text.strip():
            raise_error((fence.page, start), "an option has no text")
        correct = item.get("correct", False)
        if not isinstance(correct, bool):
            raise_error((fence.page, _key_line(fence, "correct", start)), "correct must be true or false")
        q.options.append(Option(text, correct, _text(item, "why", fence, required=False, line=start),
                                _text(item, "code", fence, required=False, line=start) or None,
                                _nth_line(fence, "text", number), _code_line(fence, _key_line(fence, "code", start))))
    first_seen: dict[str, Option] = {}
    for option in q.options:
        earlier = first_seen.setdefault(option.text.strip(), option)
        if earlier is not option:
            raise_error((fence.page, option.line), f"option {option.text.strip()!r} is listed twice (also on line "
                        f"{earlier.line})", "each option must differ from the others: remove or change one")
    right = [o for o in q.options if o.correct]
    if len(right) != 1:
        raise_error((fence.page, _field_line(fence, "options")),
                    f"a choice question needs exactly one right option, this one has {len(right)}",
                    "mark the right one with 'correct: true' and only that one")
    if any(not o.correct and not o.why for o in q.options):
        raise_error((fence.page, _field_line(fence, "options")), "every wrong option needs a 'why' (its feedback)")
    prints = data.get("prints")
    if prints is not None:
        if not q.code or not q.run:
            raise_error((fence.page, _field_line(fence, "prints")),
                        "'prints' checks the right option against a run: the question needs code: and run:")
        q.prints = _text(data, "prints", fence)
    solution = data.get("solution") or {}
    if not isinstance(solution, dict) or set(solution) - SOLUTION_FIELDS or "steps" not in solution:
        raise_error((fence.page, _field_line(fence, "solution")),
                    "solution must have steps: [...] and may have answer: and check:")
    start = _field_line(fence, "solution")
    q.solution = {"steps": _texts(solution["steps"], (fence.page, _key_line(fence, "steps", start)), "steps")}
    for key in ("answer", "check"):
        if solution.get(key) is not None:
            q.solution[key] = _text(solution, key, fence, line=start, what="the solution")
    if any(o.code for o in q.options) and not q.run:
        raise_error(q.where, "an option with code: is executed, so the question needs run:", "add run: python")


def parse_deck(fence: Fence) -> Deck:
    data = _load(fence)
    if not isinstance(data, dict) or set(data) - {"id", "title", "cards"} or not isinstance(data.get("cards"), list) \
            or not data["cards"]:
        raise_error((fence.page, fence.line), "a flashcards block needs id:, title: and cards: [...]")
    deck_id = _check_id(_text(data, "id", fence, what="the deck"), fence)
    title = _text(data, "title", fence, what="the deck")
    cards = []
    for index, item in enumerate(data["cards"]):
        line = _nth_line(fence, "front", index)
        if not isinstance(item, dict) or set(item) - CARD_FIELDS or not item.get("front") or not item.get("back"):
            raise_error((fence.page, line), "each card needs front: and back: (and may have page:)",
                        "known card fields: " + ", ".join(sorted(CARD_FIELDS)))
        start = _nth_line(fence, "(?:front|back|page|check|run|proof)", index)
        card = Card(_text(item, "front", fence, line=start, what="a card"),
                    _text(item, "back", fence, line=start, what="a card"), _card_page(item, fence, start), line)
        card.check = _text(item, "check", fence, required=False, line=start, what="a card") or None
        card.check_line = _code_line(fence, _key_line(fence, "check", start)) if card.check else None
        card.proof = _text(item, "proof", fence, required=False, line=start, what="a card") or None
        run = _text(item, "run", fence, required=False, line=start, what="a card") or None
        if card.check and card.proof:
            raise_error((fence.page, line), "a card has check: and proof:; give one",
                        "check: runs a small program; proof: names a run on a Learn page")
        if not card.check and not card.proof:
            raise_error((fence.page, line), "this card is not proven: give it a check: (a small program the "
                        "build runs, its output shown on the back) or a proof: (the run on a Learn page that shows it)",
                        "list a page's runs with: dpguide anchors docs/learn/PAGE.md; then proof: learn/PAGE.md#run-NAME")
        if run and not card.check:
            raise_error((fence.page, _key_line(fence, "run", start)), "run: is how a card's check: runs; "
                        "this card has no check:")
        if card.check:
            card.run = options_from_command(f"{run or 'python'} block.py", (fence.page, line))
        if card.proof and not re.fullmatch(r"[a-z0-9][a-z0-9_/.-]*\.md#run-[a-z0-9-]+", card.proof):
            raise_error((fence.page, _key_line(fence, "proof", start)), f"proof {card.proof!r} is not page.md#run-anchor",
                        "write proof: learn/ddp.md#run-ddp-basic (the anchor of a run's output box)")
        cards.append(card)
    _refuse_markdown_links(fence, [title, *(text for card in cards for text in (card.front, card.back))])
    return Deck(fence.page, fence.line, deck_id, title, cards)


def card_fenced_blocks(deck: Deck) -> list[tuple[str, FencedBlock]]:
    """The runs that prove a deck's cards by a check program: ('card-N', block)."""
    return [(f"card-{index}", FencedBlock(deck.page, card.line, card.line, "", "```", dict(card.run), card.check,
                                          None, None, card.check_line))
            for index, card in enumerate(deck.cards) if card.check]


def _card_page(item: dict, fence: Fence, start: int) -> str | None:
    page = _text(item, "page", fence, required=False, line=start, what="a card")
    if page and not PAGE_LINK.fullmatch(page):
        raise_error((fence.page, _key_line(fence, "page", start)), f"a card's page {page!r} is not a page of this site",
                    "write the docs-relative path of a Markdown page: page: learn/ddp.md (or learn/ddp.md#a-heading)")
    return page or None


def _key_line(fence: Fence, key: str, start: int | None) -> int:
    """The first line at or after ``start`` that sets ``key`` (the whole fence when ``start`` is None)."""
    if start is None:
        return _field_line(fence, key)
    pattern = _key_pattern(key, "field")
    for offset, line in enumerate(fence.lines, start=1):
        if fence.line + offset >= start and pattern.match(line):
            return fence.line + offset
    return start


def _top_level_line(fence: Fence, key: str) -> int | None:
    """The line of ``key`` at the top of the fence's mapping (not an option's key of that name)."""
    pattern = _key_pattern(key, "top")
    return next((fence.line + offset for offset, text in enumerate(fence.lines, start=1) if pattern.match(text)),
                None)


def _code_line(fence: Fence, key_line: int | None) -> int | None:
    """The page line just above the first line of the code that the key on ``key_line`` holds: that
    line for a block scalar (``code: |``), the line above it for code on the key's own line."""
    if key_line is None:
        return None
    text = fence.lines[key_line - fence.line - 1]
    return key_line if re.match(r"^[^:]*:\s*[|>]", text) else key_line - 1


def _nth_line(fence: Fence, key: str, n: int) -> int:
    count = -1
    pattern = _key_pattern(key, "item")
    for offset, line in enumerate(fence.lines, start=1):
        if pattern.match(line):
            count += 1
            if count == n:
                return fence.line + offset
    return fence.line


@functools.lru_cache(maxsize=512)
def parse_page(page: str, text: str) -> tuple[list[Question], list[Deck], list[Fence]]:
    """Questions, decks and their fences (memoised: a build parses each page twice)."""
    fences = find_fences(page, text)
    questions = [parse_question(f) for f in fences if f.lang == "quiz"]
    decks = [parse_deck(f) for f in fences if f.lang == "flashcards"]
    return questions, decks, fences


def quiz_fenced_blocks(q: Question) -> list[tuple[str, FencedBlock]]:
    """The runs that prove a question's answer key: ('answer', block) and ('option-N', block)."""
    if not q.run:
        return []
    attrs = {k: v for k, v in q.run.items()}
    if q.device == "cuda":
        attrs["device"] = "cuda"
    found = [("answer", FencedBlock(q.page, q.line, q.line, "", "```", attrs,
                                    q.filled_code() if q.type == "fill-blank" else (q.code or ""), None, None,
                                    q.code_line))]
    for index, option in enumerate(q.options):
        if option.code:
            found.append((f"option-{index}", FencedBlock(q.page, option.line, option.line, "", "```",
                                                         {**attrs, "expect": "fail"}, option.code, None, None,
                                                         option.code_line)))
    if q.type == "fill-blank" and attrs.get("launch", "python") == "python" and q.device == "cpu":
        for blank, item in wrong_bank_items(q):
            found.append((f"bank-{blank}-{q.bank.index(item)}",
                          FencedBlock(q.page, q.line, q.line, "", "```", attrs, q.filled_code({blank: item}),
                                      None, None, q.code_line)))
    return found


def wrong_bank_items(q: Question) -> list[tuple[int, str]]:
    """Every (blank, bank item) that is not that blank's answer: each must fail or print something else."""
    return [(blank, item) for blank, answer in sorted(q.answers.items()) for item in q.bank if item != answer]
