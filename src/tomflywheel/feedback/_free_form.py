"""LLM free-form stories modelled on a bad case, with an LLM-proposed (unverified) answer."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from tomflywheel._rng import stable_seed
from tomflywheel.feedback._mining import BadCase
from tomflywheel.llm import StructureClient, StructureFailure, run_batch
from tomflywheel.schema import Answer, Diagnosis, Sample

FREE_FORM_SYSTEM = (
    "You write short theory-of-mind test stories. Given an example question a model got wrong "
    "and why, write a NEW story (other names, objects and places) that tests the same kind of "
    "reasoning, one question about it, its correct answer and up to three wrong answers. "
    "Reply in JSON."
)


class FreeFormStory(BaseModel):
    """A story written by the LLM."""

    story: str = Field(max_length=1200, description="the new story, 3 to 10 sentences")
    question: str = Field(max_length=200, description="one question about a character's belief")
    answer: str = Field(max_length=60, description="the correct answer, a few words")
    wrong_answers: list[str] = Field(max_length=3, description="plausible wrong answers")


def pick_cases(
    cases: Sequence[BadCase],
    diagnoses: dict[tuple[str, str, int], Diagnosis],
    count: int,
    seed: int,
) -> list[BadCase]:
    """A seeded choice of diagnosed cases to model new stories on."""
    usable = [c for c in cases if (d := diagnoses.get(c.key)) is not None and d.category]
    usable.sort(key=lambda c: stable_seed("free-form", f"{seed}:{c.case_id}"))
    return usable[:count]


async def free_form_stories(
    cases: Sequence[BadCase],
    diagnoses: dict[tuple[str, str, int], Diagnosis],
    structure: StructureClient,
    *,
    plan_id: str,
    seed: int,
    max_tokens: int,
) -> tuple[list[Sample], int]:
    """One new story per case; returns (candidates, failures). Labels are the LLM's: unverified."""

    async def write(case: BadCase) -> FreeFormStory | StructureFailure:
        diagnosis = diagnoses[case.key]
        user = (
            f"Example story:\n{case.sample.story[:2000]}\n\nQuestion: {case.sample.question}\n"
            f"Correct answer: {case.sample.answer.correct_answers[0]}\n"
            f"The model answered {diagnosis.model_answer!r}; error: {diagnosis.category} "
            f"({diagnosis.explanation})"
        )
        return await structure.ask(
            FreeFormStory,
            [{"role": "system", "content": FREE_FORM_SYSTEM}, {"role": "user", "content": user}],
            max_tokens=max_tokens,
        )

    results = await run_batch(cases, write, concurrency=structure.content.concurrency)
    out, failures = [], 0
    for index, (case, result) in enumerate(zip(cases, results, strict=True)):
        if not isinstance(result, FreeFormStory) or not result.answer.strip():
            failures += 1
            continue
        wrong = [
            w for w in result.wrong_answers if w.strip() and w.strip() != result.answer.strip()
        ]
        diagnosis = diagnoses[case.key]
        out.append(
            Sample(
                id=f"ff-{plan_id}-{index:02d}",
                story=result.story,
                question=result.question,
                answer=Answer(correct_answers=[result.answer.strip()], wrong_answers=wrong),
                meta={
                    "dataset": "free_form",
                    "origin": "free_form",
                    "needs_verification": True,
                    "lineage": {
                        "bad_case_ids": [case.case_id],
                        "diagnosis": diagnosis.category.value if diagnosis.category else None,
                        "generator": "llm_free_form",
                        "version": structure.content.model,
                        "seed": seed,
                        "plan_id": plan_id,
                    },
                },
            )
        )
    return out, failures
