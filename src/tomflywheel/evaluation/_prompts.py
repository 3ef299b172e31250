"""Turn a sample into what is sent: chat messages or a prompt, from the configured templates."""

from __future__ import annotations

from dataclasses import dataclass

from tomflywheel.config import EvalSettings
from tomflywheel.evaluation._shuffle import ShuffledOptions, format_options
from tomflywheel.schema import QAKind, Sample


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """One request's content."""

    messages: list[dict[str, str]] | None
    """Chat messages (chat endpoint)."""
    prompt: str | None
    """Prompt text (completions endpoint)."""


def _fill(template: str, sample: Sample, options: str = "") -> str:
    # str.replace, not str.format: dataset text may contain braces.
    return (
        template.replace("{story}", sample.story)
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
) -> str:
    """The user text for a sample: open, choice, multi-choice or completion template."""
    templates = settings.templates
    if completion:
        template = templates.completion if endpoint == "completions" else templates.completion_chat
        # A completion prompt must end exactly where the model continues: no stripping.
        return template.replace("{story}", sample.story).replace("{question}", sample.question)
    if shuffled is None:
        return _fill(templates.open, sample)
    template = templates.multi_choice if sample.kind is QAKind.MULTI_CHOICE else templates.choice
    return _fill(template, sample, format_options(shuffled.options))


def render_prompt(
    sample: Sample,
    *,
    completion: bool,
    shuffled: ShuffledOptions | None,
    settings: EvalSettings,
    endpoint: str,
) -> RenderedPrompt:
    """Messages (chat) or prompt text (completions) for one sample."""
    text = render_user_text(
        sample, completion=completion, shuffled=shuffled, settings=settings, endpoint=endpoint
    )
    if endpoint == "completions":
        return RenderedPrompt(messages=None, prompt=text)
    messages = (
        [{"role": "system", "content": settings.system_prompt}] if settings.system_prompt else []
    )
    messages.append({"role": "user", "content": text})
    return RenderedPrompt(messages=messages, prompt=None)


def render_logprob_context(sample: Sample, settings: EvalSettings, *, completion: bool) -> str:
    """The context after which each option is scored as a continuation."""
    if completion:
        return sample.story.rstrip()
    return _fill(settings.templates.logprob, sample)
