"""Dataset statistics: sample counts and meta distributions, plus story figures from traces."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the pydantic schema is a tenth of a second to import
    from tomflywheel.schema import Sample


META_FIELDS = (
    "dataset",
    "split",
    "question_type",
    "order",
    "story_type",
    "control",
    "targeted",
    "chain_depth",
    "deception",
    "variant",
    "condition",
    "ability",
)
"""``meta`` fields whose distribution is reported when present."""


@dataclass(slots=True)
class DatasetStats:
    """Counts and distributions over a set of samples."""

    samples: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    """QA kinds: open, single_choice, multi_choice."""
    meta: dict[str, Counter[str]] = field(default_factory=dict)
    """Distribution of each meta field present."""
    traced: int = 0
    """Samples that carry ``meta.trace``."""
    stories: int = 0
    """Distinct traced stories."""
    agents: list[int] = field(default_factory=list)
    """Agents per traced story."""
    events: list[int] = field(default_factory=list)
    """Events per traced story."""
    event_types: Counter[str] = field(default_factory=Counter)
    """Events by type, over distinct traced stories."""
    chain_depths: Counter[str] = field(default_factory=Counter)
    """Chain depth of each traced question (beliefs, intents, common-knowledge groups)."""
    targeted: dict[str, list[int]] = field(default_factory=dict)
    """Question type -> [targeted, total] for samples that record ``targeted``."""


def _label(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    return str(value)


def dataset_stats(samples: Iterable[Sample]) -> DatasetStats:
    """Count samples and meta distributions; for traced samples also stories and events."""
    stats = DatasetStats()
    seen: set[str] = set()
    for sample in samples:
        stats.samples += 1
        stats.kinds[sample.kind.value] += 1
        meta = sample.meta
        for name in META_FIELDS:
            if name in meta:
                stats.meta.setdefault(name, Counter())[_label(meta[name])] += 1
        if isinstance(meta.get("targeted"), bool):
            tally = stats.targeted.setdefault(str(meta.get("question_type")), [0, 0])
            tally[0] += int(meta["targeted"])
            tally[1] += 1
        trace = meta.get("trace")
        if not isinstance(trace, dict):
            continue
        stats.traced += 1
        question = trace.get("question", {})
        depth = len(question.get("chain") or question.get("group") or ())
        stats.chain_depths[str(depth)] += 1
        story = trace.get("story", {})
        key = json.dumps(story, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        stats.stories += 1
        stats.agents.append(len(story.get("agents", ())))
        stats.events.append(len(story.get("events", ())))
        for event in story.get("events", ()):
            stats.event_types[str(event.get("type"))] += 1
    return stats
