"""The shortcut audit of a model's answers, as a report paragraph."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tomflywheel.report._html import esc, table_html


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _best(shortcuts: dict[str, Any]) -> str | None:
    """The heuristic agreeing most with the answers, if it agrees on any item at all.

    A top agreement of 0% names no explanation ("best explained by true_location (0.0%)").
    """
    best = shortcuts.get("best_explained_by")
    if not best or not (shortcuts.get("agreement") or {}).get(best, {}).get("accuracy"):
        return None
    return str(best)


def shortcut_summary(shortcuts: dict[str, Any] | None) -> str:
    """One line: the heuristic that best explains the answers, and the reality-bias rate."""
    if not shortcuts:
        return ""
    parts = []
    best = _best(shortcuts)
    if best:
        agreement = shortcuts["agreement"][best]
        parts.append(
            f"answers agree most with the <b>{esc(best)}</b> heuristic "
            f"(same answer on {_percent(agreement['accuracy'])} of {agreement['n']} items)"
        )
    elif shortcuts.get("best_explained_by"):
        parts.append("no heuristic gives the model's answers")
    bias = shortcuts.get("reality_bias") or {}
    if bias.get("n"):
        parts.append(
            f"reality bias <b>{_percent(bias['accuracy'])}</b> "
            f"(real location named on {bias['correct']} of {bias['n']} false-belief targets)"
        )
    return f'<p class="shortcuts">Shortcut audit: {"; ".join(parts)}.</p>' if parts else ""


def shortcut_text(shortcuts: dict[str, Any] | None) -> str:
    """The same in plain text (terminal summaries)."""
    if not shortcuts:
        return ""
    best = _best(shortcuts)
    bias = shortcuts.get("reality_bias") or {}
    parts = []
    if best:
        parts.append(
            f"agrees most with {best} ({_percent(shortcuts['agreement'][best]['accuracy'])})"
        )
    elif shortcuts.get("best_explained_by"):
        parts.append("no heuristic gives its answers")
    if bias.get("n"):
        parts.append(f"reality bias {_percent(bias['accuracy'])} of {bias['n']}")
    return "; ".join(parts)


def admission_audit_text(audit: dict[str, Any] | None) -> str:
    """A round's admission audit in one line, for terminals and benches.

    The whole audit is in the round's ``summary.json`` and the filter's manifest. The line:
    ``3 families, no shortcut above chance; balancing added 12 complements, dropped 40
    (kosinski: named_last 40)``: what balancing removed is named by family and heuristic.
    """
    if not audit:
        return "no admission audit"
    admitted = audit.get("admitted") or {}
    families = len(admitted.get("families") or {})
    flagged = admitted.get("flagged") or []
    line = f"{families} famil{'y' if families == 1 else 'ies'}, " + (
        f"{len(flagged)} shortcut(s) above chance ({'; '.join(flagged)})"
        if flagged
        else "no shortcut above chance"
    )
    run = audit.get("this_round") or {}
    added, dropped = len(run.get("complements") or []), run.get("dropped") or {}
    if added or dropped:
        line += f"; balancing added {added} complements, dropped {_dropped(dropped)}"
    return line


def _dropped(dropped: dict[str, str]) -> str:
    """How many samples balancing dropped, and the flagged shortcut each drop was against."""
    why = Counter(dropped.values())
    return f"{len(dropped)}" + (
        " (" + ", ".join(f"{name} {n}" for name, n in why.most_common()) + ")" if why else ""
    )


def audit_section(rounds: Sequence[dict[str, Any]]) -> str:
    """The run report's shortcut section: the model's answers and the admitted set, per round."""
    answer_rows = [
        (s["round"], dataset, shortcut_text(entry.get("shortcuts")) or "–")
        for s in rounds
        for dataset, entry in sorted((s.get("accuracy") or {}).items())
    ]
    admission_rows = []
    for s in rounds:
        audit = s.get("admission_audit")
        if not audit:
            continue
        run = audit["this_round"]
        admission_rows.append(
            (
                s["round"],
                "; ".join(run["flagged_before"]) or "none",
                len(run["complements"]),
                _dropped(run["dropped"]),
                "; ".join(audit["admitted"]["flagged"]) or "none",
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
