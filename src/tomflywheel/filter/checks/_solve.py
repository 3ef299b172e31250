"""Free-form label verification: the judge model answers a sample k times, prompted as in eval.

Each trial shows choice options in its own seeded order (so a position bias cannot pass as
agreement) and samples with its own stable seed; answers are read by the evaluation's rules.
"""

from __future__ import annotations

from tomflywheel._rng import stable_seed
from tomflywheel.asking import ShuffledOptions, judge_reply, render_prompt, shuffle_options
from tomflywheel.config import EvalSettings, SolveSettings
from tomflywheel.errors import LLMRequestError
from tomflywheel.filter.records import Candidate, SolveTrial
from tomflywheel.llm import ContentClient
from tomflywheel.schema import QAKind, Sample, Verdict


def trial_options(sample: Sample, trial: int) -> ShuffledOptions | None:
    """The options of one trial in a seeded order; None for open QA."""
    if sample.kind is QAKind.OPEN:
        return None
    return shuffle_options(sample, purpose="filter-solve-options", key=f"{sample.id}:{trial}")


def trial_seed(sample: Sample, trial: int) -> int:
    """The sampling seed of one trial."""
    return stable_seed("filter-solve", f"{sample.id}:{trial}") % (2**31)


async def solve_once(
    client: ContentClient,
    candidate: Candidate,
    trial: int,
    *,
    settings: SolveSettings,
    eval_settings: EvalSettings,
) -> SolveTrial:
    """One trial: ask, then judge the reply against the label with the rules judge."""
    sample = candidate.sample
    if sample is None:
        raise ValueError("only valid samples are solved")
    shuffled = trial_options(sample, trial)
    prompt = render_prompt(
        sample,
        completion=candidate.is_completion,
        shuffled=shuffled,
        settings=eval_settings,
        endpoint="chat",
    )
    try:
        reply = await client.chat(
            prompt.messages or [],
            temperature=settings.temperature,
            seed=trial_seed(sample, trial),
            max_tokens=settings.max_tokens,
        )
    except LLMRequestError as err:
        return SolveTrial(trial, None, False, str(err))
    result = judge_reply(sample, reply.text, shown=shuffled, trial=trial)
    return SolveTrial(trial, result.answer, result.verdict is Verdict.CORRECT)
