"""Proof of the site's answer keys and flashcards from this build's runs.

A question's right option must be what its run printed, an option marked wrong must not be, and a
fill-in's key must be the only bank choice that runs and prints what the answer prints; a card is
proven by its own check run or by a linked run on a Learn page that this build really made. Each
question is counted under the strongest kind of proof it has (``PROOF_KINDS``), which the page shows
and the build log sums up. ``SiteBuild`` asks this after the engine ran every block.
"""

from __future__ import annotations

from .blocks import Block
from .engine import Engine
from .errors import AuthoringError, GuideError
from .gpu_records import GpuRecords
from .quiz import Question, wrong_bank_items
from .quiz_render import output_text
from .render import page_anchors
from .results import RunResult

#: how a question's answer key is proven, strongest first (shown on the question and counted by the build)
PROOF_KINDS = {
    "output-compared": "compared with the printed output of a run",
    "wrong-options-fail": "wrong options each shown failing by a run",
    "fill-unique": "fill-ins whose answer runs and whose every wrong bank item fails or prints something else",
    "fill-answer-runs": "fill-ins whose answer runs (wrong bank items not run: torchrun or GPU)",
    "code-runs": "whose code runs, not compared with the options",
    "gpu-unrecorded": "needing a GPU run not yet recorded",
    "explained": "explained, not run",
}


class SiteProofs:
    """The runs behind each question and card of one build, checked and counted."""

    def __init__(self, engine: Engine, records: GpuRecords):
        self.engine, self.records = engine, records
        self.quiz_runs: dict[tuple[str, str], Block] = {}
        self.proof_counts: dict[str, int] = {}     # filled by check_answer_keys
        self.card_counts: dict[str, int] = {}      # filled by check_card_proofs

    def check(self, blocks: list[Block], blocks_by_page: dict[str, list[Block]]) -> None:
        """Check every answer key and card proof against the runs of ``blocks`` (after they ran)."""
        self.quiz_runs = {block.role: block for block in blocks if block.role}
        self.check_answer_keys(self.engine.questions)
        self.check_card_proofs(blocks_by_page)

    def question_runs(self, q: Question) -> tuple[RunResult | None, dict[int, RunResult], str | None]:
        """The real run of the right answer, of each executed wrong option, and a note if unverified."""
        block = self.quiz_runs.get((q.id, "answer"))
        answer, note = None, None
        if block is not None and block.options.device == "cuda":
            state = self.records.state(block)
            if state.status == "recorded":
                answer = state.result
            else:
                note = ("The answer is not yet verified by a run: it needs a GPU, and this question's GPU "
                        f"record is {state.status} (record it with: dpguide record --only {block.identity}).")
        elif block is not None:
            answer = self.engine.result_for(block)
        options = {}
        for index in range(len(q.options)):
            option_block = self.quiz_runs.get((q.id, f"option-{index}"))
            if option_block is not None and self.engine.result_for(option_block) is not None:
                options[index] = self.engine.result_for(option_block)
        return answer, options, note

    def bank_runs(self, q: Question) -> dict[tuple[int, str], RunResult]:
        """The real run of the code with each wrong bank item in its blank: {(blank, item): result}."""
        found = {}
        for blank, item in wrong_bank_items(q) if q.type == "fill-blank" else []:
            block = self.quiz_runs.get((q.id, f"bank-{blank}-{q.bank.index(item)}"))
            result = self.engine.result_for(block) if block is not None else None
            if result is not None:
                found[(blank, item)] = result
        return found

    def proof_kind(self, q: Question) -> str:
        """How this question's key is proven: one of PROOF_KINDS."""
        answer, options, note = self.question_runs(q)
        if answer is None:
            return "gpu-unrecorded" if note else "explained"
        if q.type == "fill-blank":
            return "fill-unique" if len(self.bank_runs(q)) == len(wrong_bank_items(q)) else "fill-answer-runs"
        if q.prints:
            return "output-compared"
        wrong = [i for i, o in enumerate(q.options) if not o.correct]
        return "wrong-options-fail" if wrong and all(i in options for i in wrong) else "code-runs"

    def check_answer_keys(self, questions: list[Question]) -> None:
        """A 'what does this print' question's right option must equal the real output; a fill-in's key
        must be the only bank choice that runs and prints what the answer prints."""
        problems = []
        self.proof_counts = {kind: 0 for kind in PROOF_KINDS}
        for q in questions:
            self.proof_counts[self.proof_kind(q)] += 1
            if q.type == "fill-blank":
                problems += self._check_fill_key(q)
                continue
            if not q.prints:
                continue
            answer, _, _ = self.question_runs(q)
            if answer is None:
                continue
            printed = answer.text(q.prints, "stdout").strip()
            right = next(o for o in q.options if o.correct)
            if printed != right.text.strip():
                problems.append(str(AuthoringError(
                    q.page, right.line, f"question {q.id!r}: the option marked right is {right.text.strip()!r} "
                    f"but {q.prints} really printed {printed!r}",
                    "fix the answer key (or the code): the right option must be exactly what the run prints")))
            for index, option in enumerate(q.options):
                if not option.correct and option.text.strip() == printed:
                    problems.append(str(AuthoringError(q.page, option.line, f"question {q.id!r}: option "
                                        f"{option.text!r} is marked wrong but is exactly what the run prints")))
        if problems:
            raise GuideError("\n".join(problems))
        counts = self.proof_counts
        self.engine.log("answer keys: " + ", ".join(f"{counts[k]} {PROOF_KINDS[k]}" for k in PROOF_KINDS)
                        + f" (of {len(questions)} questions)")

    def _check_fill_key(self, q: Question) -> list[str]:
        answer, _, _ = self.question_runs(q)
        if answer is None:
            return []
        problems = []
        for (blank, item), result in self.bank_runs(q).items():
            if result.succeeded and result.text() == answer.text():
                problems.append(str(AuthoringError(
                    q.page, q.line, f"question {q.id!r}: with {item!r} in blank [{blank}] the code also runs and "
                    "prints exactly what the answer prints, so the key is not the only right answer",
                    "make the code show the difference (print what the blank changes), or drop that bank item")))
        return problems

    # ------------------------------------------------------------------ flashcards
    def check_card_proofs(self, blocks_by_page: dict[str, list[Block]]) -> None:
        """Every card's proof: names a run that exists and really ran on this build (or its check ran)."""
        by_anchor: dict[tuple[str, str], Block] = {}
        for page, page_blocks in blocks_by_page.items():
            mine = [b for b in page_blocks if not b.role]
            for line, anchor in page_anchors(mine).items():
                by_anchor[(page, anchor)] = next(b for b in mine if b.line == line)
        problems = []
        self.card_counts = {"check": 0, "proof": 0}
        for deck in self.engine.decks:
            for card in deck.cards:
                if card.check:
                    self.card_counts["check"] += 1
                    continue
                page, _, anchor = card.proof.partition("#")
                block = by_anchor.get((page, anchor))
                if block is None:
                    known = sorted(a for p, a in by_anchor if p == page)
                    problems.append(str(AuthoringError(deck.page, card.line, f"card proof {card.proof!r} names no run",
                                                       (f"runs on {page}: " + ", ".join(known)) if known else
                                                       f"{page} has no runs (is the path right?)")))
                elif self.engine.result_for(block) is None:
                    problems.append(str(AuthoringError(deck.page, card.line, f"card proof {card.proof!r} names a "
                                                       "block this build does not run (skipped or GPU-only)",
                                                       "point at a run the CPU build makes, or give the card a check:")))
                else:
                    self.card_counts["proof"] += 1
        if problems:
            raise GuideError("\n".join(problems))
        self.engine.log(f"flashcards: {self.card_counts['check']} proven by their own check run, "
                        f"{self.card_counts['proof']} by a linked run on a Learn page, "
                        f"of {sum(len(d.cards) for d in self.engine.decks)} cards")

    def card_proofs(self, deck) -> list[dict]:
        """For each card: {"output": text of its check run} or {"proof": page#anchor}."""
        found = []
        for index, card in enumerate(deck.cards):
            if card.check:
                block = self.quiz_runs.get((deck.id, f"card-{index}"))
                result = self.engine.result_for(block) if block is not None else None
                if result is None:
                    raise GuideError(f"{deck.page}:{card.line}: no result for this card's check: build again")
                found.append({"output": output_text(result), "command": result.reader_command})
            else:
                found.append({"proof": card.proof})
        return found
