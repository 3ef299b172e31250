"""Deciding candidates: checks phase by phase, LLM evidence, repair rounds, verdicts in order.

Record and set checks run first; a failure no rewrite can fix ends a candidate there (its LLM
checks are skipped as ``earlier_failure``, and nothing is asked). Otherwise the LLM checks read
the judge model's replies. A version whose every failure is repairable is rewritten and checked
again from the start, up to the repair budget; verdicts are written in input order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from tomflywheel.filter.checks import CHECKS, Check, CheckContext, Question, ordered_checks, skipped
from tomflywheel.filter.dedup import Features
from tomflywheel.filter.llm import LLMWork, apply_rewrite
from tomflywheel.filter.records import Candidate, Evidence, RubricScore
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import CheckResult, QualityAttempt, QualityDecision, QualityVerdict

Action = Literal["accept", "reject", "repair"]

INDEX_CHECKS = frozenset({"exact_duplicate", "near_duplicate"})
"""The checks that compare a candidate with the earlier ones in the duplicate index."""


def is_fatal(results: list[CheckResult]) -> bool:
    """Whether a failure no rewrite can fix is among the results."""
    return any(result.failed and not result.repairable for result in results)


@dataclass(frozen=True)
class Decider:
    """Runs the registered checks on candidate versions and decides what happens next.

    Args:
        context: Settings and indexes shared by every check.
        repair_attempts: Rewrites allowed per candidate.
        config_hash: Stored in every verdict.
        input_file: Stored in every verdict.
    """

    context: CheckContext
    repair_attempts: int
    config_hash: str
    input_file: str

    def _run(self, check: Check, candidate: Candidate, context: CheckContext) -> CheckResult:
        if check.name in self.context.settings.disabled_checks:
            return skipped(check.name, "disabled")
        return check(candidate, context)

    def static(
        self, candidate: Candidate, features: tuple[Features, np.ndarray] | None = None
    ) -> list[CheckResult]:
        """Record-phase then set-phase results."""
        context = replace(self.context, features=features)
        record = [self._run(c, candidate, context) for c in ordered_checks("record")]
        return record + [self._run(c, candidate, context) for c in ordered_checks("set")]

    def against_index(
        self,
        candidate: Candidate,
        static: list[CheckResult],
        features: tuple[Features, np.ndarray] | None,
    ) -> list[CheckResult]:
        """``static`` with the checks that read the duplicate index run again against it.

        For static results computed where the index was not at hand (a Ray worker).
        """
        context = replace(self.context, features=features)
        return [
            self._run(CHECKS.get(r.check), candidate, context) if r.check in INDEX_CHECKS else r
            for r in static
        ]

    def needs(self, candidate: Candidate, static: list[CheckResult]) -> frozenset[Question]:
        """What the LLM checks need asked about this version (nothing after a fatal failure)."""
        if not self.context.use_llm or candidate.sample is None or is_fatal(static):
            return frozenset()
        disabled = self.context.settings.disabled_checks
        return frozenset(
            c.asks
            for c in ordered_checks("llm")
            if c.asks is not None and c.name not in disabled and c.applies(candidate, self.context)
        )

    def wants_llm(self, versions: list[tuple[Candidate, list[CheckResult]]]) -> bool:
        """Whether any version needs an LLM: a question for an LLM check, or a rewrite."""
        if not self.context.use_llm:
            return False
        return any(
            self.needs(candidate, static)
            or (self.repair_attempts > 0 and any(r.failed for r in static) and not is_fatal(static))
            for candidate, static in versions
        )

    def complete(
        self, candidate: Candidate, static: list[CheckResult], evidence: Evidence
    ) -> list[CheckResult]:
        """All results of a version: the static ones, then the LLM checks on ``evidence``."""
        if is_fatal(static):
            disabled = self.context.settings.disabled_checks
            return static + [
                skipped(c.name, "disabled" if c.name in disabled else "earlier_failure")
                for c in ordered_checks("llm")
            ]
        context = replace(self.context, evidence=evidence)
        return static + [self._run(c, candidate, context) for c in ordered_checks("llm")]

    def action(self, results: list[CheckResult], attempt: int, *, can_repair: bool) -> Action:
        """Accept when nothing failed; repair when all failures are repairable; else reject."""
        failures = [result for result in results if result.failed]
        if not failures:
            return "accept"
        if can_repair and attempt < self.repair_attempts and not is_fatal(results):
            return "repair"
        return "reject"

    def verdict(
        self, original: Candidate, final: Candidate, attempts: list[QualityAttempt]
    ) -> QualityVerdict:
        """The verdict on a candidate from its attempts (the last one decides)."""
        reasons = list(dict.fromkeys(r.reason or "" for r in attempts[-1].checks if r.failed))
        return QualityVerdict(
            sample_id=original.id,
            input_hash=original.input_hash,
            input_file=self.input_file,
            line=original.line,
            origin=original.origin,
            decision=QualityDecision.REJECTED if reasons else QualityDecision.ACCEPTED,
            reasons=reasons,
            attempts=attempts,
            config_hash=self.config_hash,
            sample=final.sample,
            record=None if final.sample is not None else original.record,
        )


class OrderedSink:
    """Hands verdicts to ``write`` in input order, whatever order they are decided in.

    Args:
        order: Input positions of the candidates to decide, in input order.
        write: Called with each verdict, in order.
        on_progress: Called with (decided, total) after each decision.
    """

    def __init__(
        self,
        order: list[int],
        write: Callable[[QualityVerdict], None],
        on_progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self._order = order
        self._write = write
        self._on_progress = on_progress
        self._ready: dict[int, QualityVerdict] = {}
        self._next = 0
        self._decided: dict[int, QualityVerdict] = {}

    def put(self, index: int, verdict: QualityVerdict) -> None:
        """Hand over the verdict of the candidate at input position ``index``."""
        self._ready[index] = verdict
        self._decided[index] = verdict
        while self._next < len(self._order) and self._order[self._next] in self._ready:
            self._write(self._ready.pop(self._order[self._next]))
            self._next += 1
        if self._on_progress is not None:
            self._on_progress(len(self._decided), len(self._order))

    def decided_in_order(self) -> list[QualityVerdict]:
        """Every verdict handed over so far, in input order."""
        return [self._decided[i] for i in sorted(self._decided)]


def _rubric_of(evidence: Evidence) -> dict | None:
    return evidence.rubric.model_dump() if isinstance(evidence.rubric, RubricScore) else None


async def decide_all(
    decider: Decider,
    pending: list[Candidate],
    statics: dict[int, list[CheckResult]],
    sink: OrderedSink,
    *,
    llm: LLMWork | None,
) -> None:
    """Decide every pending candidate, in repair rounds, handing verdicts to ``sink``.

    Args:
        decider: Runs checks and decides.
        pending: Candidates to decide, in input order.
        statics: Record and set results of each candidate as given, by input position.
        sink: Receives the verdicts.
        llm: The LLM work; None without an LLM (LLM checks then report ``no_llm``).
    """
    originals = {c.index: c for c in pending}
    versions = dict(originals)
    attempts: dict[int, list[QualityAttempt]] = {c.index: [] for c in pending}
    todo = [c.index for c in pending]
    repairs: list[int] = []

    def on_done(key: int, evidence: Evidence) -> None:
        version = versions[key]
        results = decider.complete(version, statics[key], evidence)
        attempts[key].append(
            QualityAttempt(attempt=version.attempt, checks=results, rubric=_rubric_of(evidence))
        )
        action = decider.action(results, version.attempt, can_repair=llm is not None)
        if action == "repair":
            repairs.append(key)
        else:
            sink.put(key, decider.verdict(originals[key], version, attempts[key]))

    while todo:
        repairs.clear()
        work = [(k, versions[k], decider.needs(versions[k], statics[k])) for k in todo]
        if llm is None:
            for key, _, _ in work:
                on_done(key, Evidence())
        else:
            await llm.gather(work, on_done)
        if not repairs or llm is None:
            return
        repairs.sort()
        items = [(versions[k], [r for r in attempts[k][-1].checks if r.failed]) for k in repairs]
        rewrites = await llm.rewrite(items)
        todo = []
        for (version, failures), key in zip(items, repairs, strict=True):
            rewrite = rewrites[key]
            if isinstance(rewrite, StructureFailure):
                last = attempts[key][-1]
                attempts[key][-1] = last.model_copy(
                    update={"repair_failure": f"rewrite failed: {rewrite.reason}"}
                )
                sink.put(key, decider.verdict(originals[key], version, attempts[key]))
                continue
            versions[key] = apply_rewrite(version, rewrite, failures)
            statics[key] = decider.static(versions[key])
            todo.append(key)
