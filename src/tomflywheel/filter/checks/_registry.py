"""The ``CHECKS`` registry: named, documented checks ``(candidate, context) -> CheckResult``.

Each check declares its phase and the reason codes it can fail with, each marked repairable
or not; :data:`REASONS` is the table of every code, so a failure record always says whether
an LLM rewrite may fix it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tomflywheel._registry import Registry
from tomflywheel.config import EvalSettings, FilterSettings
from tomflywheel.llm import ContentClient, StructureClient
from tomflywheel.schema import CheckResult, CheckStatus

if TYPE_CHECKING:
    from tomflywheel.filter.checks._context import CheckContext
    from tomflywheel.filter.records import Candidate

Phase = Literal["record", "set", "llm"]
"""When a check runs: on the record alone, against other samples, or on LLM evidence."""
PHASES: tuple[Phase, ...] = ("record", "set", "llm")

SkipReason = Literal["disabled", "not_applicable", "no_llm", "earlier_failure", "unreadable"]
"""Why a check did not run (``unreadable``: the world engine cannot read the story)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason code a check can fail with."""

    code: str
    check: str
    repairable: bool
    description: str


REASONS: dict[str, Reason] = {}
"""Every reason code, by code (a code shared by several checks means the same everywhere)."""


class Asker(Protocol):
    """What a question's ``ask`` function calls the judge model through.

    The LLM phase's work runner (``tomflywheel.filter.llm.LLMWork``) is one; the registry and
    the checks know only this, so they never import the LLM phase that runs them.
    """

    client: ContentClient
    """The one client all calls share."""
    structure: StructureClient
    """Structured (pydantic) calls through the same client."""
    settings: FilterSettings
    """Filter settings (token limits, k, temperatures)."""
    eval_settings: EvalSettings
    """Evaluation prompts (free-form samples are solved as evaluation asks)."""


def _once(settings: FilterSettings) -> int:
    return 1


@dataclass(frozen=True, slots=True)
class Question:
    """What an LLM-phase check needs the judge model asked about a candidate, and how.

    The reply (or the failure of the call, as a value) reaches the check as
    ``context.evidence.get(name)``: one reply, or a tuple of one per trial when ``many``.
    """

    name: str
    """Its key in the evidence."""
    ask: Callable[[Asker, Candidate, int], Awaitable[Any]]
    """``(work, candidate, trial) -> reply``: one call through the work's client."""
    trials: Callable[[FilterSettings], int] = _once
    """How many calls per candidate version."""
    many: bool = False
    """Collect the replies of every trial (in trial order) instead of keeping the one reply."""
    on_request_error: Callable[[int, str], Any] | None = None
    """The reply recorded for a refused request, from (trial, reason); default a failure."""


def _always(candidate: Candidate, context: CheckContext) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Check:
    """A registered check: its name, phase, reason codes and function."""

    name: str
    phase: Phase
    reasons: tuple[Reason, ...]
    run: Callable[[Candidate, CheckContext], CheckResult]
    asks: Question | None = None
    """LLM phase: what it needs asked."""
    applies: Callable[[Candidate, CheckContext], bool] = _always
    """LLM phase: whether to ask about this candidate at all."""

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
    name: str,
    *,
    phase: Phase,
    reasons: dict[str, tuple[bool, str]],
    asks: Question | None = None,
    applies: Callable[[Candidate, CheckContext], bool] = _always,
) -> Callable[[Callable[[Candidate, CheckContext], CheckResult]], Check]:
    """Register a check function under ``name``.

    Args:
        name: Registry name, used in configs, verdicts and the manifest.
        phase: ``record``, ``set`` or ``llm``.
        reasons: Each reason code the check can fail with: ``(repairable, description)``.
        asks: LLM phase: the question whose replies the check reads (required there).
        applies: LLM phase: whether the question is worth asking about a candidate.

    Raises:
        ValueError: An LLM-phase check without a question, or a question elsewhere.
    """
    if (phase == "llm") != (asks is not None):
        raise ValueError(f"check {name!r}: a question is declared exactly for LLM-phase checks")

    def add(function: Callable[[Candidate, CheckContext], CheckResult]) -> Check:
        table = tuple(
            Reason(code, name, repairable, text) for code, (repairable, text) in reasons.items()
        )
        for reason in table:
            known = REASONS.get(reason.code)
            if known is not None and known.repairable != reason.repairable:
                raise ValueError(f"reason code {reason.code!r} is declared twice, differently")
            REASONS.setdefault(reason.code, reason)
        entry = Check(name, phase, table, function, asks, applies)
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
