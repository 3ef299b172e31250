"""Ask the model about one sample: generate an answer, or score its options by log-prob."""

from __future__ import annotations

from dataclasses import dataclass

from tomflywheel._rng import stable_seed
from tomflywheel.asking._match import normalize
from tomflywheel.asking._prompts import render_prompt
from tomflywheel.asking._scoring import base_record as _base_record
from tomflywheel.asking._scoring import (
    scored_prediction,
    scoring_request,
    unscorable_prediction,
)
from tomflywheel.asking._shuffle import shown_options
from tomflywheel.config import EvalSettings
from tomflywheel.errors import LLMRequestError
from tomflywheel.llm import ContentClient, ContinuationScore, score_pairs
from tomflywheel.schema import Answer, Prediction, QAKind, Sample
from tomflywheel.tasks import TaskSpec

Work = tuple[Sample, int]
"""One request's subject: a sample and its trial number."""


def scoring_sample(sample: Sample) -> Sample | None:
    """The sample whose options are scored by log-prob.

    ``meta.candidates`` when it lists them (the story's own containers: fewer, so cheaper, than a
    15-option list), else its own options; ``None`` for open QA without candidates.
    """
    candidates = sample.meta.get("candidates")
    if isinstance(candidates, list) and len(candidates) >= 2:
        golds = {normalize(gold) for gold in sample.answer.correct_answers}
        correct = [str(c) for c in candidates if normalize(str(c)) in golds]
        wrong = [str(c) for c in candidates if normalize(str(c)) not in golds]
        if correct and wrong:
            return sample.model_copy(
                update={"answer": Answer(correct_answers=correct, wrong_answers=wrong)}
            )
    return None if sample.kind is QAKind.OPEN else sample


@dataclass(frozen=True)
class Predictor:
    """Builds and sends the request for one (sample, trial) and records the outcome."""

    client: ContentClient
    settings: EvalSettings
    task: TaskSpec
    """The sample's task: its prompt kind and the benchmark's own task note."""
    logprob: bool = False
    """Score options instead of generating."""

    @property
    def completion(self) -> bool:
        """The task is sentence completion (Kosinski-style)."""
        return self.task.prompt_kind == "completion"

    @property
    def instructions(self) -> str:
        """The benchmark's own task note (``TaskSpec.instructions``)."""
        return self.task.instructions

    @property
    def endpoint(self) -> str:
        """``chat`` or ``completions`` (log-prob scoring always uses completions)."""
        return "completions" if self.logprob else self.client.settings.endpoint

    def sampling(self, sample: Sample, trial: int) -> tuple[float, int | None]:
        """Temperature and seed of a trial: greedy for a single trial, seeded sampling for more."""
        if self.settings.trials == 1:
            return self.settings.generation.temperature, None
        seed = stable_seed("trial", f"{sample.id}:{trial}") % (2**31)
        return self.settings.generation.trial_temperature, seed

    async def __call__(self, work: Work) -> Prediction:
        """Predict one (sample, trial); a refused request becomes an error record."""
        sample, trial = work
        if self.logprob:
            return await self._score(sample, trial)
        return await self._generate(sample, trial)

    async def _generate(self, sample: Sample, trial: int) -> Prediction:
        shuffled = shown_options(sample, completion=self.completion)
        rendered = render_prompt(
            sample,
            completion=self.completion,
            shuffled=shuffled,
            settings=self.settings,
            endpoint=self.endpoint,
            instructions=self.instructions,
        )
        temperature, seed = self.sampling(sample, trial)
        generation = self.settings.generation
        params: dict[str, object] = {
            "temperature": temperature,
            "max_tokens": generation.completion_max_tokens
            if self.completion
            else generation.max_tokens,
        }
        if seed is not None:
            params["seed"] = seed
        record = _base_record(sample, trial, "generate", self.endpoint, shuffled, temperature, seed)
        record.update(messages=rendered.messages, prompt=rendered.prompt)
        try:
            if rendered.messages is not None:
                reply = await self.client.chat(rendered.messages, **params)
            else:
                reply = await self.client.complete(rendered.prompt or "", **params)
        except LLMRequestError as err:
            return Prediction(**record, error=str(err))
        return Prediction(
            **record, raw_output=reply.text, usage=reply.usage, latency_s=reply.latency_s
        )

    async def _score(self, sample: Sample, trial: int) -> Prediction:
        scored = scoring_sample(sample)
        if scored is None:
            return unscorable_prediction(sample, trial, settings=self.settings, task=self.task)
        request = scoring_request(
            sample, trial, settings=self.settings, task=self.task, scored=scored
        )
        try:
            scores: list[ContinuationScore] | LLMRequestError = await score_pairs(
                self.client, request.pairs
            )
        except LLMRequestError as err:
            scores = err
        return scored_prediction(request, scores)
