"""The filter's LLM work: rubric, extraction and solving calls, and rewrites, run concurrently.

Every call goes through one ``ContentClient`` (cache, retries, concurrency, accounting); a call
that yields no valid object is a ``StructureFailure`` value, which the checks count as a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from tomflywheel.config import EvalSettings, FilterSettings
from tomflywheel.errors import LLMRequestError
from tomflywheel.filter._candidate import Candidate
from tomflywheel.filter._evidence import Evidence, Extraction, Rewrite, RubricScore, SolveTrial
from tomflywheel.filter._repair import repair_messages, rewrite_model
from tomflywheel.filter._rubric import rubric_messages
from tomflywheel.filter._solve import solve_once
from tomflywheel.filter._verify import extraction_messages
from tomflywheel.llm import ContentClient, StructureClient, StructureFailure, run_batch
from tomflywheel.schema import CheckResult, Sample

Need = Literal["rubric", "extract", "solve"]
"""What an LLM check needs asked about a candidate."""

Reply = RubricScore | Extraction | SolveTrial | StructureFailure


@dataclass(frozen=True, slots=True)
class _Job:
    key: int
    sample: Sample
    need: Need
    trial: int = 0


def _as_failure(result: object) -> StructureFailure | None:
    if isinstance(result, LLMRequestError):
        return StructureFailure(str(result), None, 1)
    return None


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

    def _jobs(self, key: int, sample: Sample, needs: Iterable[Need]) -> list[_Job]:
        jobs = []
        for need in sorted(needs):
            trials = range(self.settings.solve.k) if need == "solve" else range(1)
            jobs += [_Job(key, sample, need, trial) for trial in trials]
        return jobs

    async def _ask(self, job: _Job) -> Reply:
        sample = job.sample
        if job.need == "rubric":
            messages = rubric_messages(sample, self.settings.rubric)
            return await self.structure.ask(
                RubricScore, messages, max_tokens=self.settings.rubric.max_tokens
            )
        if job.need == "extract":
            messages = extraction_messages(sample.story, sample.question, sample.meta["trace"])
            return await self.structure.ask(
                Extraction, messages, max_tokens=self.settings.label.extraction_max_tokens
            )
        return await solve_once(
            self.client,
            sample,
            job.trial,
            settings=self.settings.solve,
            eval_settings=self.eval_settings,
        )

    async def gather(
        self,
        work: list[tuple[int, Sample, frozenset[Need]]],
        on_done: Callable[[int, Evidence], None],
    ) -> None:
        """Ask everything ``work`` needs; ``on_done(key, evidence)`` as each key completes.

        Keys with nothing to ask complete first, in order.
        """
        jobs: list[_Job] = []
        remaining: dict[int, int] = {}
        for key, sample, needs in work:
            mine = self._jobs(key, sample, needs)
            if not mine:
                on_done(key, Evidence())
                continue
            jobs += mine
            remaining[key] = len(mine)
        replies: dict[int, list[tuple[_Job, Reply]]] = {key: [] for key in remaining}

        def collect(_: int, job: _Job, result: object) -> None:
            failure = _as_failure(result)
            if failure is not None and job.need == "solve":
                result = SolveTrial(job.trial, None, False, failure.reason)
            replies[job.key].append((job, failure or result))  # type: ignore[arg-type]
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
            candidate.index: _as_failure(result) or result  # type: ignore[misc]
            for (candidate, _), result in zip(items, results, strict=True)
        }


def _evidence(replies: list[tuple[_Job, Reply]]) -> Evidence:
    rubric = extraction = None
    trials: list[SolveTrial] = []
    for job, reply in replies:
        if job.need == "rubric":
            rubric = reply
        elif job.need == "extract":
            extraction = reply
        elif isinstance(reply, SolveTrial):
            trials.append(reply)
    solves = tuple(sorted(trials, key=lambda t: t.trial)) if trials else None
    return Evidence(rubric=rubric, extraction=extraction, solves=solves)  # type: ignore[arg-type]
