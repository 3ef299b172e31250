"""Duplicates and contamination on real ToMi text: MinHash LSH candidates, exact confirmation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from datasketch import LeanMinHash, MinHash, MinHashLSH
from tests.filter.conftest import candidate, context, sample, tomi_samples

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.datasets import load_benchmark
from tomflywheel.filter import (
    CHECKS,
    ContaminationIndex,
    ContaminationSettings,
    DedupSettings,
    DuplicateIndex,
    eval_files,
)
from tomflywheel.filter.dedup import (
    Signer,
    SimilarityIndex,
    features,
    jaccard,
    same_question,
    shingle_hashes,
    text_tokens,
)
from tomflywheel.schema import CheckStatus, Sample
from tomflywheel.world import generate


@pytest.fixture(scope="module")
def tomi_test(benchmarks: Path) -> list[Sample]:
    return load_benchmark("tomi", benchmarks / "tomi" / "tomi_balanced_story_types")


@pytest.fixture(scope="module")
def eval_dir(tomi_test: list[Sample], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("datasets")
    write_jsonl_atomic(folder / "tomi.jsonl", tomi_test)
    return folder


def rename_agent(story: str) -> str:
    """A light edit: the first agent gets another name throughout, lines get numbers."""
    agent = re.search(r"(\w+) entered", story).group(1)
    lines = story.replace(agent, "Zelda").splitlines()
    return "\n".join(f"{n} {line}" for n, line in enumerate(lines, start=1))


def swap_container(story: str) -> str:
    """A light edit: one container mention replaced."""
    container = re.search(r"in the (\w+_\w+)\.", story).group(1)
    return story.replace(container, "red_envelope", 1)


def indexed(samples: list[Sample], settings: DedupSettings | None = None) -> DuplicateIndex:
    index = DuplicateIndex(settings or DedupSettings())
    for position, (feats, signature) in enumerate(index.features_many(samples)):
        index.add(position, samples[position].id, feats, signature)
    return index


def check(name: str, item: Sample, index: DuplicateIndex, position: int):
    return CHECKS.get(name)(candidate(item, position), context(duplicates=index))


def test_signatures_are_datasketch_minhashes():
    hashes = shingle_hashes(text_tokens("Aria entered the front_yard. Aiden entered it."), 2)
    reference = MinHash(num_perm=64, seed=7, hashfunc=int, scheme="affine32")
    reference.update_batch([int(h) for h in hashes])
    assert np.array_equal(Signer(64, 7).sign([hashes])[0], reference.hashvalues)


def test_the_lsh_proposes_what_datasketch_lsh_proposes():
    # The index keeps datasketch's banding in plain dicts: the same buckets, hence the same
    # candidates and, after exact confirmation, the same matches.
    originals = list(dict.fromkeys(s.story for s in generate("tomi", n=60, seed=3)))
    copies = [story.replace(" the ", " a ", 1) + " It was late." for story in originals[::3]]
    stories = originals + copies
    shingles = [shingle_hashes(text_tokens(story), 5) for story in stories]
    signer = Signer(128, 1)
    signatures = signer.sign(shingles)
    index = SimilarityIndex(signer, 0.8, margin=0.1)
    index.add_many(list(range(len(stories))), shingles, signatures)
    reference = MinHashLSH(threshold=0.7, num_perm=128)
    minhashes = [LeanMinHash(seed=1, hashvalues=row, scheme="affine32") for row in signatures]
    for key, minhash in enumerate(minhashes):
        reference.insert(key, minhash)
    matches = 0
    for key, minhash in enumerate(minhashes):
        proposed = reference.query(minhash)
        expected = sorted(
            ((k, jaccard(shingles[key], shingles[k])) for k in proposed),
            key=lambda pair: (-pair[1], pair[0]),
        )
        expected = [pair for pair in expected if pair[1] >= 0.8]
        assert index.query(shingles[key], signatures[key]) == expected
        assert index.band_keys(signatures[key]) == [
            reference._H(minhash.hashvalues[start:end]) for start, end in reference.hashranges
        ]
        matches += len(expected) - 1
    assert matches >= 2 * len(copies)  # each copy and its original find each other


def test_tokens_ignore_line_numbers_case_punctuation_and_articles():
    assert text_tokens("3 The apple is in the green_bucket.") == text_tokens(
        "the Apple is in green bucket"
    )


def test_line_numbers_go_on_every_line_while_numbers_inside_a_line_stay():
    story = "1 Aria entered the den.\n  2 Owen saw 3 apples.\n\t10 Aria left."
    assert text_tokens(story) == [
        "aria",
        "entered",
        "den",
        "owen",
        "saw",
        "3",
        "apples",
        "aria",
        "left",
    ]
    assert text_tokens(" 7 Owen left") == ["owen", "left"]
    assert text_tokens("Owen counted 7 apples") == ["owen", "counted", "7", "apples"]


def test_jaccard_is_exact():
    left, right = np.array([1, 2, 3], np.uint32), np.array([2, 3, 4, 5], np.uint32)
    assert jaccard(left, right) == 2 / 5


def test_a_lightly_edited_copy_of_a_tomi_story_is_a_near_duplicate(tomi_test):
    original = tomi_test[0]
    copy = original.model_copy(update={"id": "copy", "story": swap_container(original.story)})
    index = indexed([original])
    result = check("near_duplicate", copy, index, position=1)
    assert result.reason == "near_duplicate"
    assert re.fullmatch(r"near copy of tomi-test-000000 \(story Jaccard 0\.\d\d\)", result.detail)


def test_another_question_about_the_same_story_is_no_duplicate(tomi_test):
    # ToMi asks six questions per story: they share the story and are all kept.
    same_story = [s for s in tomi_test if s.story == tomi_test[0].story]
    assert len(same_story) == 6
    index = indexed(same_story[:1])
    for position, item in enumerate(same_story[1:], start=1):
        assert check("near_duplicate", item, index, position).status is CheckStatus.PASSED
        assert check("exact_duplicate", item, index, position).status is CheckStatus.PASSED


def test_mirrored_second_order_questions_are_no_duplicates(tomi_test):
    # "Where does A think that B searches" and "... B think that A ..." share every word.
    pair = [
        s
        for s in tomi_test
        if s.story == tomi_test[0].story and s.meta["question_type"].startswith("second_order")
    ]
    assert len(pair) == 2
    index = indexed(pair[:1])
    assert check("near_duplicate", pair[1], index, position=1).status is CheckStatus.PASSED


def test_a_reformatted_copy_is_an_exact_duplicate_not_also_a_near_one(tomi_test):
    original = tomi_test[0]
    numbered = "\n".join(
        f"{n} {line.upper()}" for n, line in enumerate(original.story.splitlines(), 1)
    )
    copy = original.model_copy(update={"id": "copy", "story": numbered})
    index = indexed([original])
    exact = check("exact_duplicate", copy, index, position=1)
    assert (exact.reason, exact.detail) == ("exact_duplicate", "same text as tomi-test-000000")
    assert check("near_duplicate", copy, index, position=1).status is CheckStatus.PASSED


def test_only_earlier_items_count(tomi_test):
    index = indexed([tomi_test[0], tomi_test[0].model_copy(update={"id": "later"})])
    # The first occurrence is kept: nothing before position 0 matches.
    assert check("exact_duplicate", tomi_test[0], index, position=0).status is CheckStatus.PASSED


def test_contamination_catches_lightly_edited_tomi_stories(tomi_test, eval_dir):
    index = ContaminationIndex.build(DedupSettings(), eval_files(eval_dir, ContaminationSettings()))
    assert len(index) == 999  # distinct stories of the test split, indexed once
    ctx = context(contamination=index)
    for edit in (rename_agent, swap_container):
        for original in tomi_test[:60:6]:
            copy = original.model_copy(update={"id": "synthetic-1", "story": edit(original.story)})
            result = CHECKS.get("contamination")(candidate(copy), ctx)
            assert result.reason == "contamination", (edit.__name__, original.id)
            assert result.detail.startswith(f"story copies evaluation item tomi:{original.id} ")


def test_engine_stories_in_tomi_style_are_not_contaminated(eval_dir):
    index = ContaminationIndex.build(DedupSettings(), eval_files(eval_dir, ContaminationSettings()))
    ctx = context(contamination=index)
    results = [CHECKS.get("contamination")(candidate(s), ctx) for s in tomi_samples(40, seed=9)]
    assert {r.status for r in results} == {CheckStatus.PASSED}


def test_eval_files_follow_the_settings(tmp_path):
    for stem in ("tomi", "hitom"):
        (tmp_path / f"{stem}.jsonl").write_text("", encoding="utf-8")
    extra = tmp_path / "extra" / "more.jsonl"
    extra.parent.mkdir()
    extra.write_text("", encoding="utf-8")
    only_tomi = ContaminationSettings(datasets=["tomi"], extra_paths=[extra.parent])
    assert eval_files(tmp_path, only_tomi) == [extra, tmp_path / "tomi.jsonl"]
    assert eval_files(tmp_path, ContaminationSettings(), exclude=[tmp_path / "tomi.jsonl"]) == [
        tmp_path / "hitom.jsonl"
    ]
    assert eval_files(tmp_path / "missing", ContaminationSettings()) == []


def test_a_near_copy_with_another_answer_is_a_contrast_not_a_duplicate(tomi_test):
    # A false-belief story and its true-belief twin: near-identical text, different answers.
    original = tomi_test[0]
    twin = original.model_copy(
        update={
            "id": "twin",
            "story": swap_container(original.story),
            "answer": original.answer.model_copy(update={"correct_answers": ["red_envelope"]}),
        }
    )
    assert (
        check("near_duplicate", twin, indexed([original]), position=1).status is CheckStatus.PASSED
    )


def test_engine_controls_with_other_events_are_not_near_duplicates():
    # Kosinski controls differ from their false-belief twins by one label sentence.
    items = list(generate("kosinski", n=3, seed=2, controls=True))
    index = DuplicateIndex(DedupSettings())
    results = []
    for position, (feats, signature) in enumerate(index.features_many(items)):
        results.append(index.near(feats, signature, before=position))
        index.add(position, items[position].id, feats, signature)
    assert results == [None] * len(items)
    # Without traces, the same texts are near duplicates: the events made the difference.
    plain = [s.model_copy(update={"meta": {"dataset": "kosinski"}}) for s in items]
    flagged = 0
    index = DuplicateIndex(DedupSettings())
    for position, (feats, signature) in enumerate(index.features_many(plain)):
        flagged += index.near(feats, signature, before=position) is not None
        index.add(position, plain[position].id, feats, signature)
    assert flagged > 0


def test_questions_about_different_lines_are_different_questions():
    base = "Suppose Mila had exited at line 3. Is the corn common knowledge among Chloe and Olivia?"
    other = base.replace("line 3", "line 6")
    story = "1 Mila, Chloe and Olivia entered the study.\n2 The corn is in the red_box."
    left = features(sample(story=story, question=base), 2)
    right = features(sample(story=story, question=other), 2)
    assert not same_question(left, right, threshold=0.1)
    assert same_question(left, features(sample(story=story, question=base + " "), 2), 0.9)


def _near_matches(items: list[Sample]) -> list[object]:
    index = DuplicateIndex(DedupSettings())
    found = []
    for position, (feats, signature) in enumerate(index.features_many(items)):
        match = index.exact(feats, before=position) or index.near(feats, signature, before=position)
        found.append(match)
        if match is None:
            index.add(position, items[position].id, feats, signature)
    return found


def test_a_storys_later_questions_reuse_its_query_with_the_same_answers(monkeypatch):
    stories = list(generate("tomi", n=30, seed=4))
    reworded = {s.id: s.story.replace(" moved ", " carried ") for s in stories[::5]}
    copies = [
        s.model_copy(update={"id": f"copy-{s.id}", "story": reworded[s.id]}) for s in stories[::5]
    ]
    items = stories + copies
    queries = []
    real_query = SimilarityIndex.query

    def counted(self, shingles, signature=None):
        queries.append(1)
        return real_query(self, shingles, signature)

    monkeypatch.setattr(SimilarityIndex, "query", counted)
    carried = _near_matches(items)
    carried_queries = len(queries)
    queries.clear()
    monkeypatch.setattr(DuplicateIndex, "_carry_last_query", lambda *args, **kwargs: None)
    fresh = _near_matches(items)
    assert carried == fresh
    assert sum(m is not None for m in fresh) >= len(copies)
    assert carried_queries < len(queries)


def test_opentom_questions_about_other_containers_of_one_story_are_no_duplicates(tmp_path):
    # Bug: "how does the fridge's fullness change" and "... treasure_chest's fullness ..." about
    # one story, with one answer, were rejected as near copies of each other.
    from tests.datasets.opentom_files import write_opentom

    samples = load_benchmark("opentom", write_opentom(tmp_path / "opentom_data"))
    fullness = [s for s in samples if s.meta["question_family"] == "fullness"]
    assert len(fullness) == 16
    index = DuplicateIndex(DedupSettings())
    flagged = []
    for position, (feats, signature) in enumerate(index.features_many(samples)):
        if index.near(feats, signature, before=position) is not None:
            flagged.append(samples[position].id)
        index.add(position, samples[position].id, feats, signature)
    assert flagged == []


def test_a_reworded_question_about_the_same_thing_is_still_a_near_duplicate(tomi_test):
    original = tomi_test[1]  # "Where will Aria look for the grapefruit?"
    reworded = original.model_copy(
        update={
            "id": "reworded",
            "story": swap_container(original.story),
            "question": original.question.replace("will", "would"),
        }
    )
    index = indexed([original])
    result = check("near_duplicate", reworded, index, position=1)
    assert (result.reason, result.detail.split(" (")[0]) == (
        "near_duplicate",
        f"near copy of {original.id}",
    )


# Two different ToMi stories (another second agent, another first container) whose 2-word
# shingles reach a Jaccard of exactly 0.50, the contamination threshold: before the vocabulary
# test, the guard called the one a copy of the other (issue 52, ToMi val against test).
EVAL_STORY = (
    "Ella entered the lounge.\nMila entered the lounge.\nThe lettuce is in the green_bucket.\n"
    "Mila exited the lounge.\nElla moved the lettuce to the blue_bathtub."
)
OTHER_STORY = (
    "Ella entered the lounge.\nNathan entered the lounge.\nThe lettuce is in the red_box.\n"
    "Nathan exited the lounge.\nElla moved the lettuce to the blue_bathtub."
)


def test_two_different_tomi_stories_at_the_threshold_are_no_contamination(tmp_path):
    shingles = [shingle_hashes(text_tokens(s), 2) for s in (EVAL_STORY, OTHER_STORY)]
    assert jaccard(*shingles) == 0.5  # reaches the threshold on shingles alone
    write_jsonl_atomic(tmp_path / "tomi.jsonl", [sample(story=EVAL_STORY, sample_id="test-1")])
    settings = DedupSettings()
    assert settings.contamination_threshold == 0.5  # the documented threshold is kept
    index = ContaminationIndex.build(settings, [tmp_path / "tomi.jsonl"])
    ctx = context(contamination=index)
    other = sample(story=OTHER_STORY, sample_id="val-1")
    assert CHECKS.get("contamination")(candidate(other), ctx).status is CheckStatus.PASSED
    for edit in (rename_agent, swap_container):  # copies of it are still caught
        copy = sample(story=edit(EVAL_STORY), sample_id="copy")
        assert CHECKS.get("contamination")(candidate(copy), ctx).reason == "contamination"
