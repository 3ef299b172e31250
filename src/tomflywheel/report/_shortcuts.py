"""The shortcut audit of a model's answers, as a report paragraph."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tomflywheel.artifacts import AdmissionAudit, AnswerAudit, RoundSummary
from tomflywheel.report._html import esc, table_html


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _best(shortcuts: AnswerAudit) -> str | None:
    """The heuristic agreeing most with the answers, if it agrees on any item at all.

    A top agreement of 0% names no explanation ("best explained by true_location (0.0%)").
    """
    best = shortcuts.best_explained_by
    found = shortcuts.agreement.get(best) if best else None
    if not best or found is None or not found.accuracy:
        return None
    return best


def shortcut_summary(shortcuts: AnswerAudit | None) -> str:
    """One line: the heuristic that best explains the answers, and the reality-bias rate."""
    if shortcuts is None:
        return ""
    parts = []
    best = _best(shortcuts)
    if best:
        agreement = shortcuts.agreement[best]
        parts.append(
            f"answers agree most with the <b>{esc(best)}</b> heuristic "
            f"(same answer on {_percent(agreement.accuracy)} of {agreement.n} items)"
        )
    elif shortcuts.best_explained_by:
        parts.append("no heuristic gives the model's answers")
    bias = shortcuts.reality_bias
    if bias and bias.n:
        parts.append(
            f"reality bias <b>{_percent(bias.accuracy)}</b> "
            f"(real location named on {bias.correct} of {bias.n} false-belief targets)"
        )
    return f'<p class="shortcuts">Shortcut audit: {"; ".join(parts)}.</p>' if parts else ""


def shortcut_text(shortcuts: AnswerAudit | None) -> str:
    """The same in plain text (terminal summaries)."""
    if shortcuts is None:
        return ""
    best = _best(shortcuts)
    bias = shortcuts.reality_bias
    parts = []
    if best:
        parts.append(f"agrees most with {best} ({_percent(shortcuts.agreement[best].accuracy)})")
    elif shortcuts.best_explained_by:
        parts.append("no heuristic gives its answers")
    if bias and bias.n:
        parts.append(f"reality bias {_percent(bias.accuracy)} of {bias.n}")
    return "; ".join(parts)


def admission_audit_text(audit: AdmissionAudit | None) -> str:
    """A round's admission audit in one line, for terminals and benches.

    The whole audit is in the round's ``summary.json`` and the filter's manifest. The line:
    ``3 families, no shortcut above chance; balancing added 12 complements, dropped 40
    (kosinski: named_last 40)``: what balancing removed is named by family and heuristic.
    """
    if audit is None:
        return "no admission audit"
    families = len(audit.admitted.families)
    flagged = audit.admitted.flagged
    line = f"{families} famil{'y' if families == 1 else 'ies'}, " + (
        f"{len(flagged)} shortcut(s) above chance ({'; '.join(flagged)})"
        if flagged
        else "no shortcut above chance"
    )
    added, dropped = len(audit.this_round.complements), audit.this_round.dropped
    if added or dropped:
        line += f"; balancing added {added} complements, dropped {_dropped(dropped)}"
    return line


def _dropped(dropped: dict[str, str]) -> str:
    """How many samples balancing dropped, and the flagged shortcut each drop was against."""
    why = Counter(dropped.values())
    return f"{len(dropped)}" + (
        " (" + ", ".join(f"{name} {n}" for name, n in why.most_common()) + ")" if why else ""
    )


def audit_section(rounds: Sequence[RoundSummary]) -> str:
    """The run report's shortcut section: the model's answers and the admitted set, per round."""
    answer_rows = [
        (s.round, dataset, shortcut_text(entry.shortcuts) or "–")
        for s in rounds
        for dataset, entry in sorted(s.accuracy.items())
    ]
    admission_rows = []
    for s in rounds:
        audit = s.admission_audit
        if audit is None:
            continue
        run = audit.this_round
        admission_rows.append(
            (
                s.round,
                "; ".join(run.flagged_before) or "none",
                len(run.complements),
                _dropped(run.dropped),
                "; ".join(audit.admitted.flagged) or "none",
            )
        )
    parts = ["<h2>Shortcut audit</h2>"]
    if answer_rows:
        parts.append("<h4>Which shortcut explains the model's answers</h4>")
        parts.append(table_html(("round", "dataset", "shortcuts"), answer_rows))
    if admission_rows:
        parts.append(
            "<h4>Admitted data: shortcuts above chance, and how admission balanced them</h4>"
        )
        parts.append(
            table_html(
                (
                    "round",
                    "flagged as decided by the checks",
                    "complements added",
                    "dropped (against which shortcut)",
                    "flagged in the admitted set",
                ),
                admission_rows,
            )
        )
    return "".join(parts) if len(parts) > 1 else ""
