"""LLM naturalization: templated stories rewritten as fluent prose, with fresh names.

Agent names are replaced first, symbolically and consistently (story, question, answers and the
trace's events), from a seeded pool; then the LLM rewrites the templated sentences as prose and
is told to keep every event. The candidate keeps the (renamed) source events in ``meta.trace``
and is marked ``origin: naturalized``: the filter extracts the events back from the prose and
re-derives the answer before anything is admitted.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tomflywheel._rng import rng_for
from tomflywheel.errors import LLMRequestError
from tomflywheel.llm import ContentClient, run_batch
from tomflywheel.schema import Answer, Sample
from tomflywheel.world import rationale

NAME_POOL = (
    "Maya", "Jonah", "Priya", "Tomas", "Leila", "Oscar", "Nadia", "Felix", "Ines", "Rafael",
    "Hana", "Marco", "Zara", "Diego", "Yuki", "Omar", "Clara", "Emil", "Sofia", "Kwame",
    "Lena", "Arjun", "Rosa", "Anton", "Mira", "Tariq", "Greta", "Bruno", "Ayla", "Viktor",
    "Nora", "Samir", "Elif", "Pavel", "Ruth", "Jasper", "Noor", "Luca", "Freya", "Idris",
)  # fmt: skip

REWRITE_SYSTEM = (
    "You rewrite short templated stories as fluent, natural prose. Keep every event in the same "
    "order, with the same people, objects, containers and places, written exactly as given "
    "(keep underscores). Do not add, drop or change any event. Reply with the story only."
)


def _story_key(sample: Sample) -> str:
    return hashlib.sha256(sample.story.encode("utf-8")).hexdigest()[:16]


def chosen_for_naturalization(
    samples: Sequence[Sample], fraction: float, seed: int
) -> list[Sample]:
    """A seeded share of the symbolic samples, whole stories at a time."""
    return [
        s
        for s in samples
        if s.meta.get("origin") == "symbolic"
        and rng_for("naturalize", f"{seed}:{_story_key(s)}").random() < fraction
    ]


def _deep_rename(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_deep_rename(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _deep_rename(v, mapping) for k, v in value.items()}
    return value


def rename_agents(sample: Sample, seed: int) -> tuple[Sample, dict[str, str]]:
    """The sample with its agents renamed everywhere (text, answers and trace events)."""
    trace = sample.meta.get("trace") or {}
    agents = list((trace.get("story") or {}).get("agents") or [])
    pool = [name for name in NAME_POOL if name not in agents]
    rng_for("naturalize-names", f"{seed}:{_story_key(sample)}").shuffle(pool)
    mapping = dict(zip(agents, pool, strict=False))
    if not mapping:
        return sample, {}
    pattern = re.compile(
        r"\b(" + "|".join(map(re.escape, sorted(mapping, key=len, reverse=True))) + r")\b"
    )

    def text(value: str) -> str:
        return pattern.sub(lambda m: mapping[m.group(1)], value)

    meta = dict(sample.meta)
    meta["trace"] = _deep_rename(trace, mapping)
    renamed = sample.model_copy(
        update={
            "story": text(sample.story),
            "question": text(sample.question),
            "answer": Answer(
                correct_answers=[text(a) for a in sample.answer.correct_answers],
                wrong_answers=[text(a) for a in sample.answer.wrong_answers],
            ),
            "meta": meta,
        }
    )
    return renamed, mapping


CUT_SHORT = "cut at max_tokens"
EMPTY_REPLY = "empty reply"


def _failure_reason(result: str | LLMRequestError | None) -> str:
    """Why a rewrite gives no candidate."""
    if isinstance(result, LLMRequestError):
        return f"refused: HTTP {result.status}"
    return CUT_SHORT if result is None else EMPTY_REPLY


async def naturalize(
    samples: Sequence[Sample], client: ContentClient, *, seed: int, max_tokens: int
) -> tuple[list[Sample], Counter[str]]:
    """Rewrite each sample's story as prose.

    Returns the naturalized candidates and the failures counted by reason (a reply cut at
    ``max_tokens``, an empty reply, a refused request).
    """
    renamed = [rename_agents(sample, seed) for sample in samples]

    async def rewrite(sample: Sample) -> str | None:
        reply = await client.chat(
            [
                {"role": "system", "content": REWRITE_SYSTEM},
                {"role": "user", "content": sample.story},
            ],
            max_tokens=max_tokens,
            temperature=0.0,
        )
        return reply.text.strip() if reply.finish_reason == "stop" else None

    prose = await run_batch([r for r, _ in renamed], rewrite, concurrency=client.concurrency)
    out: list[Sample] = []
    failures: Counter[str] = Counter()
    for (sample, mapping), text in zip(renamed, prose, strict=True):
        if not isinstance(text, str) or not text:
            failures[_failure_reason(text)] += 1
            continue
        meta = dict(sample.meta)
        meta.update(origin="naturalized", needs_verification=True, naturalized_from=sample.id)
        meta["renamed"] = mapping
        meta["templated_story"] = sample.story
        if isinstance(meta.get("rationale"), str) and isinstance(meta.get("trace"), dict):
            meta["rationale"] = rationale(meta["trace"])
        out.append(
            sample.model_copy(update={"id": f"{sample.id}-nat", "story": text, "meta": meta})
        )
    return out, failures
