"""Turn a sample into what is sent: chat messages or a prompt, from the configured templates."""

from __future__ import annotations

from dataclasses import dataclass

from tomflywheel.asking._shuffle import ShuffledOptions, format_options, shown_options
from tomflywheel.config import EvalSettings
from tomflywheel.schema import QAKind, Sample
from tomflywheel.tasks import TaskSpec


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """One request's content."""

    messages: list[dict[str, str]] | None
    """Chat messages (chat endpoint)."""
    prompt: str | None
    """Prompt text (completions endpoint)."""


def completion_text(sample: Sample) -> str:
    """The text a completion task continues: the story, then the question's stem if it has one.

    Imported Kosinski items end the story where the model continues (empty question); the
    engine's own put the stem in the question ("... believes the tin is full of").
    """
    question = sample.question.strip()
    return f"{sample.story.rstrip()} {question}" if question else sample.story


def _fill(template: str, sample: Sample, options: str = "", instructions: str = "") -> str:
    # str.replace, not str.format: dataset text may contain braces.
    if instructions and "{instructions}" not in template:
        template = "{instructions}\n\n" + template
    return (
        template.replace("{instructions}", instructions)
        .replace("{story}", sample.story)
        .replace("{question}", sample.question)
        .replace("{options}", options)
        .strip()
    )


def render_user_text(
    sample: Sample,
    *,
    completion: bool,
    shuffled: ShuffledOptions | None,
    settings: EvalSettings,
    endpoint: str,
    instructions: str = "",
) -> str:
    """The user text for a sample: open, choice, multi-choice or completion template.

    A benchmark's own task note (``instructions``) goes where a template says
    ``{instructions}``, or before everything when it does not.
    """
    templates = settings.templates
    if completion:
        template = templates.completion if endpoint == "completions" else templates.completion_chat
        if instructions and "{instructions}" not in template:
            template = "{instructions}\n" + template
        # A completion prompt must end exactly where the model continues: no stripping.
        return template.replace("{instructions}", instructions).replace(
            "{story}", completion_text(sample)
        )
    if shuffled is None:
        return _fill(templates.open, sample, instructions=instructions)
    template = templates.multi_choice if sample.kind is QAKind.MULTI_CHOICE else templates.choice
    return _fill(template, sample, format_options(shuffled.options), instructions)


def render_prompt(
    sample: Sample,
    *,
    completion: bool,
    shuffled: ShuffledOptions | None,
    settings: EvalSettings,
    endpoint: str,
    instructions: str = "",
) -> RenderedPrompt:
    """Messages (chat) or prompt text (completions) for one sample."""
    text = render_user_text(
        sample,
        completion=completion,
        shuffled=shuffled,
        settings=settings,
        endpoint=endpoint,
        instructions=instructions,
    )
    if endpoint == "completions":
        return RenderedPrompt(messages=None, prompt=text)
    messages = (
        [{"role": "system", "content": settings.system_prompt}] if settings.system_prompt else []
    )
    messages.append({"role": "user", "content": text})
    return RenderedPrompt(messages=messages, prompt=None)


def render_logprob_context(
    sample: Sample, settings: EvalSettings, *, completion: bool, instructions: str = ""
) -> str:
    """The context after which each option is scored as a continuation."""
    if completion:
        text = completion_text(sample).rstrip()
        return f"{instructions}\n{text}" if instructions else text
    return _fill(settings.templates.logprob, sample, instructions=instructions)


def answer_text(sample: Sample, shuffled: ShuffledOptions | None) -> str:
    """The ideal reply to a sample: gold letter(s) for choice QA, else the first gold answer."""
    if shuffled is not None:
        return ", ".join(shuffled.gold_letters)
    return sample.answer.correct_answers[0]


def taught_rationale(task: TaskSpec, rationale: str | None) -> str | None:
    """The rationale a training reply teaches: none for completion tasks (the reply is one word)."""
    return None if task.prompt_kind == "completion" else rationale


def training_messages(
    sample: Sample, settings: EvalSettings, *, task: TaskSpec, rationale: str | None = None
) -> list[dict[str, str]]:
    """Chat messages teaching the ideal reply, prompted exactly as the evaluation prompts.

    Choice options are shuffled with the same seed as in evaluation (by sample id), so the gold
    letter in the target matches what evaluation would show.

    Args:
        sample: The training sample.
        settings: Evaluation settings (system prompt and templates).
        task: The sample's task: prompt kind and the benchmark's own task note, as in evaluation.
        rationale: A step-by-step explanation put before ``Answer: ...`` in the target (never
            for completion tasks, see :func:`taught_rationale`).
    """
    completion = task.prompt_kind == "completion"
    shuffled = shown_options(sample, completion=completion)
    rendered = render_prompt(
        sample,
        completion=completion,
        shuffled=shuffled,
        settings=settings,
        endpoint="chat",
        instructions=task.instructions,
    )
    answer = answer_text(sample, shuffled)
    taught = taught_rationale(task, rationale)
    target = f"{taught.strip()}\nAnswer: {answer}" if taught else answer
    return [*(rendered.messages or []), {"role": "assistant", "content": target}]
