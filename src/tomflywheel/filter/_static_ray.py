"""The filter's record and set checks on Ray, with the local executor's exact decisions.

Workers take blocks of input lines and run everything that looks at one candidate alone: the
record checks (schema, leaks, the symbolic label verified by both verifiers), the id and
contamination checks, and the duplicate features, MinHash signature and LSH buckets. Similar
stories are then found across the cluster (:func:`similar_stories`). What depends on input
order stays on the driver and is cheap: candidates in order, the exact and near duplicate checks
against the index of the earlier ones (no LSH query: the cluster found the neighbours), and
the index itself, which later steps (the admission balance) use as the local path does.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from functools import partial

import numpy as np

from tomflywheel._gc import frozen_heap
from tomflywheel.cluster import map_blocks
from tomflywheel.config import DedupSettings
from tomflywheel.filter._pipeline import Decider, is_fatal
from tomflywheel.filter.dedup import DuplicateIndex, Features, Story, similar_stories
from tomflywheel.filter.records import Candidate, parse_candidate
from tomflywheel.schema import CheckResult

Static = tuple[int, tuple[Features, np.ndarray] | None, list[CheckResult], list[bytes] | None]
"""What a worker returns per candidate: input position, features and signature, static
results (the index checks skipped), LSH buckets of its story."""

_INDEXES: dict[str, DuplicateIndex] = {}
"""One empty index per worker process and settings: features, signatures and buckets only."""


def _index_for(settings: DedupSettings) -> DuplicateIndex:
    key = settings.model_dump_json()
    if key not in _INDEXES:
        _INDEXES[key] = DuplicateIndex(settings)
    return _INDEXES[key]


def _line(candidate: Candidate) -> str:
    """The input line again: a parsed record as JSON, an unparsable one as it was."""
    if isinstance(candidate.record, str):
        return candidate.record
    return json.dumps(candidate.record, ensure_ascii=False)


def _static_block(decider: Decider, payload: bytes) -> bytes:
    """One block on a worker: parse the lines again, run the per-candidate work."""
    lines: list[tuple[int, int, str]] = pickle.loads(payload)
    with frozen_heap():
        candidates = [parse_candidate(*line) for line in lines]
        index = _index_for(decider.context.settings.dedup)
        valid = [c for c in candidates if c.sample is not None]
        computed = index.features_many([c.sample for c in valid if c.sample is not None])
        feats = {c.index: item for c, item in zip(valid, computed, strict=True)}
        out: list[Static] = []
        for candidate in candidates:
            features = feats.get(candidate.index)
            bands = index.band_keys(features[1]) if features is not None else None
            out.append((candidate.index, features, decider.static(candidate, features), bands))
    return pickle.dumps(out)


def static_on_ray(
    candidates: list[Candidate], decider: Decider, *, block: int, partitions: int
) -> dict[int, list[CheckResult]]:
    """Record and set results of every candidate as given, building the duplicate index.

    What ``_first_pass`` does locally, result for result. Ray must be connected.

    Args:
        candidates: Every input candidate, in input order.
        decider: The run's decider; its context's duplicate index (priors added) is filled.
        block: Candidates per block.
        partitions: Partitions of the bucket shuffle.
    """
    duplicates = decider.context.duplicates
    assert duplicates is not None, "the filter run always has a duplicate index"
    worker = replace(decider, context=replace(decider.context, duplicates=None))
    lines = [(c.index, c.line, _line(c)) for c in candidates]
    payloads = [
        (n, pickle.dumps(lines[start : start + block]))
        for n, start in enumerate(range(0, len(lines), block))
    ]
    results: dict[int, Static] = {}
    for _, result in map_blocks(partial(_static_block, worker), payloads):
        for row in pickle.loads(result):
            results[row[0]] = row
    duplicates.set_neighbours(_neighbours(duplicates, results, partitions))
    statics: dict[int, list[CheckResult]] = {}
    for candidate in candidates:
        _, features, static, _ = results[candidate.index]
        static = decider.against_index(candidate, static, features)
        statics[candidate.index] = static
        if features is not None and not is_fatal(static):
            duplicates.add(candidate.index, candidate.id, *features)
    # Stories made later (the balance's complements) are not in the table: from here on the
    # index answers from its LSH, which holds every story added, as the local path does.
    duplicates.set_neighbours({})
    return statics


def _neighbours(
    duplicates: DuplicateIndex, results: dict[int, Static], partitions: int
) -> dict[str, list[tuple[str, float]]]:
    """Similar stories among the admitted samples' and the candidates' distinct stories."""
    stories: dict[str, Story] = {}
    prior = duplicates.stories()
    signatures = duplicates.signer.sign([shingles for _, shingles in prior])
    for (key, shingles), signature in zip(prior, signatures, strict=True):
        stories.setdefault(key, (key, shingles, duplicates.band_keys(signature)))
    for index in sorted(results):
        _, features, _, bands = results[index]
        if features is not None and bands is not None:
            key = features[0].story_key
            stories.setdefault(key, (key, features[0].shingles, bands))
    threshold = duplicates.settings.near_duplicate_threshold
    return similar_stories(list(stories.values()), threshold, partitions=partitions)
