"""How a shown output says what other torch releases print: one line under it, the differing runs folded.

Also the page's one note on which torch build its outputs come from, and the
drift report (a table per release) that the "How the outputs are made" page shows.
"""

from __future__ import annotations

import html

from .release_records import STATUSES, ReleaseComparison
from .render import output_boxes
from .results import MAIN

#: the words of the line under an output, per status
_SAID = {"same": "same on", "differs": "differs on", "varies": "varies from run to run on",
         "fails": "does not do what this page says on", "stale": "recorded for older code (not shown) on",
         "unrecorded": "not recorded yet on"}
#: the title of the folded run, per status
_FOLD = {"differs": ("note", "prints something else"), "varies": ("note", "printed this on one of its runs"),
         "fails": ("failure", "does not do what this page says")}
#: how the drift report counts each status
_COUNTED = {"same": "same", "differs": "differ", "varies": "vary from run to run",
            "fails": "do not do what their page says", "stale": "recorded for older code",
            "unrecorded": "not recorded yet"}
#: where a page's marker for the drift report goes
DRIFT_MARKER = "<!-- dpguide: release-drift -->"


def release_lines(comparisons: list[ReleaseComparison], varies_here: bool = False) -> list[str]:
    """The line under an output, then each differing release's run, folded (nothing without records).
    With ``varies_here``, the line first says that runs on the build's own torch differ too."""
    if not comparisons and not varies_here:
        return []
    parts = ["this output changes from run to run on this torch too (a race)"] if varies_here else []
    for status in STATUSES:
        names = [c.record.label for c in comparisons if c.status == status]
        if names:
            parts.append(f"{_SAID[status]} {', '.join(names)}")
    out = [f'<p class="dpg-releases">Other torch releases: {html.escape("; ".join(parts))}.</p>'] if parts else []
    for c in comparisons:
        if c.status in _FOLD and c.result is not None:
            kind, title = _FOLD[c.status]
            body = [f'<p class="dpg-provenance">{html.escape(c.record.provenance_line())}</p>', ""]
            if c.reason:
                body += [html.escape(_sentence(c)), ""]
            if c.marked:
                body += [f"Highlighted: the {_lines(len(c.marked))} this page's run did not print "
                         "(pids, ports, times and paths aside).", ""]
            body += _merged(c.result, c.marked)
            out += ["", f'??? {kind} "{c.record.label} {title}"', "", *["    " + x if x else "" for x in body]]
    return out


def _sentence(c: ReleaseComparison) -> str:
    if c.status == "fails":
        return f"On that release: {c.reason}."
    if c.status == "varies":
        return f"Not a difference of the release: {c.reason}."
    return f"First difference: {c.reason}."


def _lines(n: int) -> str:
    return "line" if n == 1 else f"{n} lines"


def _merged(result, marked: frozenset[int] = frozenset()) -> list[str]:
    ids = {id(result.lines[i]) for i in marked}
    highlighted = lambda line: id(line) in ids      # noqa: E731
    if result.launch == "python":
        return output_boxes(result.lines_of(MAIN), empty="*The program printed nothing.*", marked=highlighted)
    return output_boxes(result.lines, label=lambda line: f"[{line.source}] {line.text}", marked=highlighted)


def build_note(version: str | None, flavour: str | None, python: str, device: str) -> str:
    """The page's one sentence on the torch its outputs come from."""
    where = "a machine without a GPU" if device == "cpu" else device
    return (f'<p class="dpg-build-note">Every output on this page is a real run on torch '
            f'{html.escape(version or "?")} ({html.escape(flavour or "?")}), Python {html.escape(python)}, on '
            f'{html.escape(where)}. Under each output, a line says what other torch releases print.</p>')


def drift_report(counts: dict[str, dict[str, int]], listed: dict[str, list[tuple[str, str, str]]],
                 provenance: dict[str, str]) -> list[str]:
    """Per release, how many blocks are same / differ / vary / fail / are stale / not yet recorded
    (a list, which a phone shows without scrolling sideways); then the blocks that fail or differ."""
    if not counts:
        return ["*No release records yet: every output is from the build's torch only.*"]
    out = []
    for release, row in counts.items():
        numbers = ", ".join(f"{row.get(s, 0)} {_COUNTED[s]}" for s in STATUSES)
        out.append(f"- **{release}**: {numbers}. <small>Recorded: {html.escape(provenance[release])}.</small>")
    for release, items in listed.items():
        if items:
            out += ["", f'??? note "{release}: the {len(items)} blocks that fail or print something else"', ""]
            out += [f"    - `{label}`: {status}" + (f": <code>{html.escape(reason)}</code>" if reason else "")
                    for label, status, reason in items]
    return out
