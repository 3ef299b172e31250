"""LSH buckets grouped on Ray find exactly the similar stories the in-memory index finds."""

from __future__ import annotations

import pytest

from tests.feedback.test_plan_and_synthesis import TASKS, _diagnoses
from tomflywheel.config import DedupSettings, FeedbackSettings, RaySettings
from tomflywheel.feedback import build_plan, synthesize
from tomflywheel.filter import DuplicateIndex
from tomflywheel.filter.dedup import shingle_hashes, similar_stories, text_key, text_tokens

pytestmark = pytest.mark.ray


def _stories() -> list[str]:
    """Distinct engine stories, then planted near copies of every fifth (a word or two edited)."""
    samples = synthesize(build_plan(_diagnoses(), TASKS, FeedbackSettings(budget=600)))
    stories = list(dict.fromkeys(s.story for s in samples))
    planted = [
        story.replace(" the ", " a ", 1) + (" It was late." if n % 2 else "")
        for n, story in enumerate(stories[::5])
    ]
    return stories + planted + [""]


def test_ray_buckets_find_the_pairs_the_in_memory_lsh_finds(ray_cluster: RaySettings):
    settings = DedupSettings()
    index = DuplicateIndex(settings)
    texts = list(dict.fromkeys(_stories()))
    keys = [text_key(t) for t in texts]
    shingles = [shingle_hashes(text_tokens(t), settings.shingle_size) for t in texts]
    signatures = index.signer.sign(shingles)
    lsh = index._similar  # the in-memory index the filter queries
    lsh.add_many(list(range(len(texts))), shingles, signatures)
    expected = {
        keys[row]: sorted((keys[k], sim) for k, sim in lsh.query(shingles[row], signatures[row]))
        for row in range(len(texts))
    }
    stories = [
        (keys[row], shingles[row], index.band_keys(signatures[row])) for row in range(len(texts))
    ]
    found = similar_stories(stories, settings.near_duplicate_threshold, partitions=2)
    assert {key: sorted(near) for key, near in found.items()} == expected
    pairs = sum(len(near) - 1 for near in expected.values() if near)
    assert pairs >= len(texts) // 6  # the planted copies (both directions) and any natural ones
    assert expected[""] == []
