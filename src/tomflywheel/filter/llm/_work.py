"""The filter's LLM work: the questions LLM checks declare, and rewrites, run concurrently.

Every call goes through one ``ContentClient`` (cache, retries, concurrency, accounting); a call
that yields no valid object is a ``StructureFailure`` value, which the checks count as a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tomflywheel.config import EvalSettings, FilterSettings
from tomflywheel.errors import LLMRequestError
from tomflywheel.filter.checks import Question
from tomflywheel.filter.llm._repair import repair_messages, rewrite_model
from tomflywheel.filter.records import Candidate, Evidence, Rewrite
from tomflywheel.llm import ContentClient, StructureClient, StructureFailure, run_batch
from tomflywheel.schema import CheckResult


@dataclass(frozen=True, slots=True)
class _Job:
    key: int
    candidate: Candidate
    question: Question
    trial: int = 0


class LLMWork:
    """Asks the judge model what the LLM checks and repairs need.

    Args:
        client: The one client all calls share.
        settings: Filter settings (token limits, k, temperatures).
        eval_settings: Evaluation prompts (free-form samples are solved as evaluation asks).
    """

    def __init__(
        self, client: ContentClient, settings: FilterSettings, eval_settings: EvalSettings
    ) -> None:
        self.client = client
        self.structure = StructureClient.from_settings(client)
        self.settings = settings
        self.eval_settings = eval_settings

    def _jobs(self, key: int, candidate: Candidate, questions: Iterable[Question]) -> list[_Job]:
        return [
            _Job(key, candidate, question, trial)
            for question in sorted(questions, key=lambda q: q.name)
            for trial in range(question.trials(self.settings))
        ]

    async def _ask(self, job: _Job) -> object:
        return await job.question.ask(self, job.candidate, job.trial)

    async def gather(
        self,
        work: list[tuple[int, Candidate, frozenset[Question]]],
        on_done: Callable[[int, Evidence], None],
    ) -> None:
        """Ask everything ``work`` needs; ``on_done(key, evidence)`` as each key completes.

        Keys with nothing to ask complete first, in order.
        """
        jobs: list[_Job] = []
        remaining: dict[int, int] = {}
        for key, candidate, questions in work:
            mine = self._jobs(key, candidate, questions)
            if not mine:
                on_done(key, Evidence())
                continue
            jobs += mine
            remaining[key] = len(mine)
        replies: dict[int, list[tuple[_Job, object]]] = {key: [] for key in remaining}

        def collect(_: int, job: _Job, result: object) -> None:
            if isinstance(result, LLMRequestError):
                handler = job.question.on_request_error
                result = (
                    handler(job.trial, str(result))
                    if handler
                    else StructureFailure(str(result), None, 1)
                )
            replies[job.key].append((job, result))
            remaining[job.key] -= 1
            if remaining[job.key] == 0:
                on_done(job.key, _evidence(replies.pop(job.key)))

        await run_batch(jobs, self._ask, concurrency=self.client.concurrency, on_result=collect)

    async def rewrite(
        self, items: list[tuple[Candidate, list[CheckResult]]]
    ) -> dict[int, Rewrite | StructureFailure]:
        """One rewrite per candidate (by input position), given the failures to fix."""

        async def ask(item: tuple[Candidate, list[CheckResult]]) -> Rewrite | StructureFailure:
            candidate, failures = item
            if candidate.sample is None:
                raise ValueError("only valid samples can be rewritten")
            messages = repair_messages(candidate.sample, failures, self.settings)
            model = rewrite_model(candidate.sample, self.settings)
            return await self.structure.ask(
                model, messages, max_tokens=self.settings.repair.max_tokens
            )

        results = await run_batch(items, ask, concurrency=self.client.concurrency)
        return {
            candidate.index: StructureFailure(str(result), None, 1)
            if isinstance(result, LLMRequestError)
            else result  # type: ignore[misc]
            for (candidate, _), result in zip(items, results, strict=True)
        }


def _evidence(replies: list[tuple[_Job, object]]) -> Evidence:
    """One version's evidence: each question's reply, or its trials' replies in trial order."""
    by_question: dict[str, list[tuple[int, object]]] = {}
    questions: dict[str, Question] = {}
    for job, reply in replies:
        by_question.setdefault(job.question.name, []).append((job.trial, reply))
        questions[job.question.name] = job.question
    evidence: dict[str, object] = {}
    for name, answers in by_question.items():
        ordered = [reply for _, reply in sorted(answers, key=lambda pair: pair[0])]
        evidence[name] = tuple(ordered) if questions[name].many else ordered[0]
    return Evidence(**evidence)
