"""Repair: an LLM rewrite of a sample given its failures; the rewrite then faces every check.

The answer never changes. A sample with a trace is rewritten as a telling of the trace's events
(shown to the rewriter in plain sentences), so the rewrite is *naturalized*: its events are
extracted back and re-derived like any naturalized sample's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field, StringConstraints, create_model

from tomflywheel.config import FilterSettings
from tomflywheel.filter.llm._rubric import item_text
from tomflywheel.filter.records import Candidate, Rewrite, has_trace
from tomflywheel.schema import CheckResult, Sample
from tomflywheel.world import read_trace, render_story

_SYSTEM = (
    "You fix training items for a theory-of-mind reasoning dataset. Rewrite the story and the "
    "question so that every listed problem is gone, the wording is clear and natural, the "
    "question does not reveal its answer, and the correct answer stays exactly the same."
)


def _events_text(sample: Sample) -> str | None:
    if not has_trace(sample):
        return None
    try:
        story, _, _ = read_trace(sample.meta["trace"])
    except ValueError:
        return None
    return render_story(story, numbered=True)


def repair_messages(
    sample: Sample, failures: list[CheckResult], settings: FilterSettings
) -> list[dict[str, str]]:
    """The rewrite request: the item, its source events (if any) and every problem found."""
    parts = [item_text(sample, settings.rubric.story_chars)]
    events = _events_text(sample)
    if events is not None:
        parts.append(
            "The story must tell exactly these events, in this order, and nothing that "
            f"changes where anything is or who knows it:\n{events}"
        )
    problems = "\n".join(
        f"- {result.reason}: {result.detail}" if result.detail else f"- {result.reason}"
        for result in failures
    )
    parts.append(f"Problems found:\n{problems}")
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def rewrite_model(sample: Sample, settings: FilterSettings) -> type[Rewrite]:
    """The reply model of one rewrite, with length caps in its JSON schema.

    Story and question may grow to twice their length (within the field limits): a rewrite
    cannot balloon, and guided decoding makes even a weak model's reply end.
    """
    limits = settings.limits
    story_cap = min(limits.max_story_chars, max(400, 2 * len(sample.story)))
    question_cap = min(limits.max_question_chars, max(200, 2 * len(sample.question)))
    return create_model(
        "Rewrite",
        __base__=Rewrite,
        story=(
            Annotated[str, StringConstraints(max_length=story_cap)],
            Field(description="The rewritten story."),
        ),
        question=(
            Annotated[str, StringConstraints(max_length=question_cap)],
            Field(description="The rewritten question."),
        ),
    )


def apply_rewrite(candidate: Candidate, rewrite: Rewrite, failures: list[CheckResult]) -> Candidate:
    """The next version of a candidate: new story and question, same id, answer and lineage.

    A sample with a trace becomes ``naturalized`` (its prose is no longer the engine's);
    ``meta.repair`` records the attempt and the reasons it answered.
    """
    sample = candidate.sample
    if sample is None:
        raise ValueError("only valid samples can be repaired")
    meta: dict[str, Any] = dict(sample.meta)
    if has_trace(sample):
        meta["origin"] = "naturalized"
    history = list(meta.get("repair", {}).get("history", [])) if candidate.attempt else []
    history.append(sorted({result.reason or "" for result in failures}))
    meta["repair"] = {"attempts": candidate.attempt + 1, "history": history}
    new = sample.model_copy(
        update={"story": rewrite.story.strip(), "question": rewrite.question.strip(), "meta": meta}
    )
    sample = Sample.model_validate(new.model_dump())
    return replace(candidate, sample=sample, attempt=candidate.attempt + 1)
