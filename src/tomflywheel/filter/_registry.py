"""The ``CHECKS`` registry: named, documented checks ``(candidate, context) -> CheckResult``.

Each check declares its phase and the reason codes it can fail with, each marked repairable
or not; :data:`REASONS` is the table of every code, so a failure record always says whether
an LLM rewrite may fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tomflywheel._registry import Registry
from tomflywheel.schema import CheckResult, CheckStatus

if TYPE_CHECKING:
    from tomflywheel.filter._candidate import Candidate
    from tomflywheel.filter._context import CheckContext

Phase = Literal["record", "set", "llm"]
"""When a check runs: on the record alone, against other samples, or on LLM evidence."""
PHASES: tuple[Phase, ...] = ("record", "set", "llm")

SkipReason = Literal["disabled", "not_applicable", "no_llm", "earlier_failure"]
"""Why a check did not run."""


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason code a check can fail with."""

    code: str
    check: str
    repairable: bool
    description: str


REASONS: dict[str, Reason] = {}
"""Every reason code, by code (a code shared by several checks means the same everywhere)."""


@dataclass(frozen=True, slots=True)
class Check:
    """A registered check: its name, phase, reason codes and function."""

    name: str
    phase: Phase
    reasons: tuple[Reason, ...]
    run: Callable[[Candidate, CheckContext], CheckResult]

    def __call__(self, candidate: Candidate, context: CheckContext) -> CheckResult:
        """Run the check on one candidate."""
        return self.run(candidate, context)

    @property
    def description(self) -> str:
        """The first line of the check function's docstring."""
        return (self.run.__doc__ or "").strip().splitlines()[0]

    @property
    def uses_llm(self) -> bool:
        """Whether the check reads LLM evidence."""
        return self.phase == "llm"


CHECKS: Registry[Check] = Registry("check")
"""Checks by name, in registration order through :func:`ordered_checks`."""
_ORDER: list[str] = []


def check(
    name: str, *, phase: Phase, reasons: dict[str, tuple[bool, str]]
) -> Callable[[Callable[[Candidate, CheckContext], CheckResult]], Check]:
    """Register a check function under ``name``.

    Args:
        name: Registry name, used in configs, verdicts and the manifest.
        phase: ``record``, ``set`` or ``llm``.
        reasons: Each reason code the check can fail with: ``(repairable, description)``.
    """

    def add(function: Callable[[Candidate, CheckContext], CheckResult]) -> Check:
        table = tuple(
            Reason(code, name, repairable, text) for code, (repairable, text) in reasons.items()
        )
        for reason in table:
            known = REASONS.get(reason.code)
            if known is not None and known.repairable != reason.repairable:
                raise ValueError(f"reason code {reason.code!r} is declared twice, differently")
            REASONS.setdefault(reason.code, reason)
        entry = Check(name, phase, table, function)
        CHECKS.register(name)(entry)
        _ORDER.append(name)
        return entry

    return add


def ordered_checks(phase: Phase | None = None) -> list[Check]:
    """Registered checks in the order they run (phase by phase), optionally of one phase."""
    phases = PHASES if phase is None else (phase,)
    return [CHECKS.get(n) for p in phases for n in _ORDER if CHECKS.get(n).phase == p]


def passed(name: str, detail: str = "") -> CheckResult:
    """A passing result."""
    return CheckResult(check=name, status=CheckStatus.PASSED, detail=detail)


def failed(name: str, reason: str, detail: str = "") -> CheckResult:
    """A failing result; whether it is repairable comes from the reason table.

    Raises:
        KeyError: ``reason`` is not a declared reason code (a bug in the check).
    """
    entry = REASONS[reason]
    return CheckResult(
        check=name,
        status=CheckStatus.FAILED,
        reason=reason,
        detail=detail,
        repairable=entry.repairable,
    )


def skipped(name: str, why: SkipReason, detail: str = "") -> CheckResult:
    """A result for a check that did not run."""
    return CheckResult(check=name, status=CheckStatus.SKIPPED, reason=why, detail=detail)
