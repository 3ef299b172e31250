"""What log-prob scoring of one sample sends, and the prediction its scores make.

Two shapes of sample: a question whose options are each scored after the same rendered context
(`` {option}`` after ``templates.logprob``), and a sentence-set sample (BabyLM style:
``meta.sentences`` and ``meta.completions``, where each sentence's completion is scored after the
rest of that sentence). Whichever scoring backend runs, the pairs and the record are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tomflywheel.asking._prompts import render_logprob_context
from tomflywheel.asking._shuffle import ShuffledOptions, shuffle_options
from tomflywheel.config import EvalSettings
from tomflywheel.errors import LLMRequestError
from tomflywheel.llm import ContinuationScore, ScoringPair
from tomflywheel.schema import Prediction, Sample
from tomflywheel.tasks import TaskSpec


@dataclass(frozen=True)
class ScoringRequest:
    """The pairs to score for one (sample, trial), and the record the prediction starts from."""

    record: dict[str, Any]
    prompt: str | None
    pairs: list[ScoringPair]


def is_sentence_sample(sample: Sample) -> bool:
    """The sample lists ``meta.sentences`` and ``meta.completions`` (the ``sentences`` format)."""
    return isinstance(sample.meta.get("sentences"), list) and isinstance(
        sample.meta.get("completions"), list
    )


def base_record(
    sample: Sample,
    trial: int,
    mode: str,
    endpoint: str,
    shuffled: ShuffledOptions | None,
    temperature: float,
    seed: int | None,
) -> dict[str, object]:
    """The fields every prediction of (sample, trial) starts with."""
    return {
        "sample_id": sample.id,
        "trial": trial,
        "mode": mode,
        "endpoint": endpoint,
        "options": shuffled.options if shuffled else None,
        "option_map": shuffled.option_map if shuffled else None,
        "gold_letters": shuffled.gold_letters if shuffled else None,
        "temperature": temperature,
        "seed": seed,
    }


def _sentence_pairs(sample: Sample, shown: list[str], full: bool) -> list[ScoringPair]:
    """For each shown sentence: (the sentence without its completion, the completion)."""
    sentences = [str(s) for s in sample.meta["sentences"]]
    completions = [str(c) for c in sample.meta["completions"]]
    pairs = []
    for option in shown:
        index = sentences.index(option)
        sentence, completion = sentences[index], completions[index]
        if full:
            pairs.append(("", sentence))
        else:
            pairs.append((sentence[: len(sentence) - len(completion)], completion))
    return pairs


def scoring_request(
    sample: Sample,
    trial: int,
    *,
    settings: EvalSettings,
    task: TaskSpec,
    scored: Sample | None,
    endpoint: str = "completions",
) -> ScoringRequest:
    """The pairs of ``scored`` (the sample whose options are scored) in seeded shuffled order.

    ``settings.scoring.full_sentence_scores`` scores whole texts (empty context) instead.
    """
    full = settings.scoring.full_sentence_scores
    shuffled = shuffle_options(scored if scored is not None else sample)
    record = base_record(sample, trial, "logprob", endpoint, shuffled, 0.0, None)
    if is_sentence_sample(sample):
        return ScoringRequest(record, None, _sentence_pairs(sample, shuffled.options, full))
    context = render_logprob_context(
        sample,
        settings,
        completion=task.prompt_kind == "completion",
        instructions=task.instructions,
    )
    if full:
        pairs = [("", f"{context} {option}") for option in shuffled.options]
    else:
        pairs = [(context, f" {option}") for option in shuffled.options]
    return ScoringRequest(record, context, pairs)


def unscorable_prediction(
    sample: Sample, trial: int, *, settings: EvalSettings, task: TaskSpec
) -> Prediction:
    """The error record of a sample with nothing to score (open QA without candidates)."""
    context = render_logprob_context(
        sample,
        settings,
        completion=task.prompt_kind == "completion",
        instructions=task.instructions,
    )
    record = base_record(sample, trial, "logprob", "completions", None, 0.0, None)
    return Prediction(
        **record,
        prompt=context,
        error="log-prob scoring needs choice options or meta.candidates (2+ with the gold)",
    )


def scored_prediction(
    request: ScoringRequest, scores: list[ContinuationScore] | LLMRequestError
) -> Prediction:
    """The prediction of a scored request (a refused request becomes an error record)."""
    if isinstance(scores, LLMRequestError):
        return Prediction(**request.record, prompt=request.prompt, error=str(scores))
    return Prediction(
        **request.record,
        prompt=request.prompt,
        option_logprobs=[s.logprob for s in scores],
        option_token_counts=[s.n_tokens for s in scores],
    )
