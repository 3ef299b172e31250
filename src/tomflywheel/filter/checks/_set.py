"""Checks against other samples: repeated ids, exact and near duplicates, contamination."""

from __future__ import annotations

import numpy as np

from tomflywheel.filter.checks._context import CheckContext
from tomflywheel.filter.checks._registry import check, failed, passed, skipped
from tomflywheel.filter.dedup import DuplicateIndex, Features
from tomflywheel.filter.records import Candidate
from tomflywheel.schema import CheckResult


def _features(
    candidate: Candidate, context: CheckContext, index: DuplicateIndex
) -> tuple[Features, np.ndarray]:
    if context.features is not None:
        return context.features
    return index.features_many([candidate.sample])[0]  # type: ignore[list-item]


@check(
    "unique_id",
    phase="set",
    reasons={"duplicate_id": (False, "Another sample (earlier or admitted) has this id.")},
)
def unique_id_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """No earlier candidate and no admitted sample has the same id."""
    first = context.first_ids.get(candidate.id)
    if first is None or first >= candidate.index:
        return passed("unique_id")
    where = "an admitted sample" if first < 0 else f"the candidate at position {first}"
    return failed("unique_id", "duplicate_id", f"id {candidate.id!r} is already used by {where}")


@check(
    "exact_duplicate",
    phase="set",
    reasons={"exact_duplicate": (False, "Same normalized story and question as an earlier one.")},
)
def exact_duplicate_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """No earlier candidate (or admitted sample) has the same normalized story and question."""
    if candidate.sample is None or context.duplicates is None:
        return skipped("exact_duplicate", "not_applicable")
    feats, _ = _features(candidate, context, context.duplicates)
    match = context.duplicates.exact(feats, before=candidate.index)
    if match is None:
        return passed("exact_duplicate")
    return failed("exact_duplicate", "exact_duplicate", f"same text as {match.label}")


@check(
    "near_duplicate",
    phase="set",
    reasons={"near_duplicate": (False, "Near-identical story, same question as an earlier one.")},
)
def near_duplicate_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """No earlier item has a near-identical story and the same question.

    Candidates come from MinHash LSH and are confirmed by the exact shingle Jaccard similarity.
    """
    if candidate.sample is None or context.duplicates is None:
        return skipped("near_duplicate", "not_applicable")
    feats, signature = _features(candidate, context, context.duplicates)
    match = context.duplicates.near(feats, signature, before=candidate.index)
    if match is None:
        return passed("near_duplicate")
    detail = f"near copy of {match.label} (story Jaccard {match.similarity:.2f})"
    return failed("near_duplicate", "near_duplicate", detail)


@check(
    "contamination",
    phase="set",
    reasons={"contamination": (False, "The story near-copies an evaluation story.")},
)
def contamination_check(candidate: Candidate, context: CheckContext) -> CheckResult:
    """The story is not a (near) copy of any story of the guarded evaluation sets."""
    if candidate.sample is None or context.contamination is None:
        return skipped("contamination", "not_applicable")
    match = context.contamination.match(candidate.sample)
    if match is None:
        return passed("contamination")
    detail = f"story copies evaluation item {match.label} (Jaccard {match.similarity:.2f})"
    return failed("contamination", "contamination", detail)
