"""Duplicate finding within the set (exact and near) and the contamination guard's eval index.

Identity of a training item is its story *and* its question: a story usually carries several
questions, and those are not duplicates of one another. Two items are near duplicates when the
whole items match: their stories reach the Jaccard threshold, their questions ask the same
thing (the same normalized text, or the same people and numbers named in the same order with
similar words, so the mirrored "Does A think B ..." / "Does B think A ..." stay distinct, and so
do counterfactuals about different lines; and no word on which the questions differ names
something of either story, so "how does the bucket's fullness change" and "... the donation
box's fullness ..." about one story ask about two containers), and the same correct answers: a
near-identical story
with another answer is a contrast (a false-belief story and its true-belief twin, a template
filled with other objects), which training needs, not a copy. For the same reason two engine
samples (with traces) whose events differ are never near duplicates, however alike their text
(Kosinski-style controls differ from their false-belief twins by one label sentence).
Completion items, whose question is empty, compare the story's last sentence instead.

Contamination is decided on the story alone: a copied test story leaks every question about it.
A near copy reaches the Jaccard threshold on shingles *and* shares nearly all its words with
the evaluation story (:data:`COPY_VOCABULARY`): templated benchmarks (ToMi) tell different
stories in the same few sentence shapes, so two stories about other people, objects and
containers can reach the threshold on shingles alone, while a copy with a name changed keeps
nearly every word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tomflywheel._gc import frozen_heap
from tomflywheel._io import read_jsonl
from tomflywheel.config import ContaminationSettings, DedupSettings
from tomflywheel.filter.dedup._minhash import (
    _LINE_NUMBER,
    Signer,
    SimilarityIndex,
    shingle_hashes,
    text_key,
    text_tokens,
)
from tomflywheel.filter.records import has_trace
from tomflywheel.schema import Sample

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NAME_TOKEN = re.compile(r"[A-Za-z][\w'-]*|\d+|[.?!]")
"""A word or a sentence end (one character; no word contains one)."""


def prompt_part(sample: Sample) -> str:
    """The question, or for a completion item (empty question) the story's last sentence."""
    if sample.question.strip():
        return sample.question
    sentences = [s for s in _SENTENCE_END.split(sample.story.strip()) if s.strip()]
    return sentences[-1] if sentences else ""


def story_text(sample: Sample) -> str:
    """The text compared for similarity: the story, or the question when the story is empty."""
    return sample.story if sample.story.strip() else sample.question


def _names(text: str) -> tuple[str, ...]:
    """The referents a text names, in order: numbers and mid-sentence capitalized words.

    Questions that differ in these (people, places, line numbers) ask about different things.
    """
    names = []
    opens = True  # the next word starts a sentence
    for word in _NAME_TOKEN.findall(text):
        if word in ".?!":  # a sentence end
            opens = True
            continue
        if word.isdigit() or (word[0].isupper() and not opens):
            names.append(word.lower())
        opens = False
    return tuple(names)


@dataclass(frozen=True, slots=True)
class Features:
    """What duplicate finding compares of one item."""

    story_key: str
    """The normalized story (the identity of the story's similarity group)."""
    exact_key: str
    """The normalized story and prompt (exact-duplicate identity)."""
    shingles: np.ndarray
    """The story's shingle hashes."""
    prompt_key: str
    prompt: str
    """The prompt part as written (its names are read from it, only when compared)."""
    answer_key: tuple[str, ...]
    """The normalized correct answers, sorted."""
    world: Mapping[str, Any] | None = None
    """The story of an engine trace (events), when the sample has one."""


def _story_part(story: str, shingle_size: int) -> tuple[str, np.ndarray]:
    tokens = text_tokens(story)
    return " ".join(tokens), shingle_hashes(tokens, shingle_size)


def features(
    sample: Sample, shingle_size: int, story: tuple[str, np.ndarray] | None = None
) -> Features:
    """The comparison features of a sample (``story``: its story part, computed already)."""
    story_key, shingles = story or _story_part(story_text(sample), shingle_size)
    prompt = prompt_part(sample)
    prompt_key = _prompt_key(prompt)
    return Features(
        story_key=story_key,
        exact_key=f"{story_key}\x1f{prompt_key}",
        shingles=shingles,
        prompt_key=prompt_key,
        prompt=prompt,
        answer_key=_answer_key(tuple(sample.answer.correct_answers)),
        world=sample.meta["trace"]["story"] if has_trace(sample) else None,
    )


# Synthetic sets ask the same few question texts and answers over and over: normalize each once.
# The words and names are needed only for the few pairs whose stories are near-identical.
_prompt_key = lru_cache(maxsize=1 << 16)(text_key)
_prompt_names = lru_cache(maxsize=1 << 16)(_names)


@lru_cache(maxsize=1 << 16)
def _prompt_words(key: str) -> frozenset[str]:
    return frozenset(key.split())


@lru_cache(maxsize=1 << 16)
def _answer_key(answers: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({text_key(a) for a in answers}))


def same_question(left: Features, right: Features, threshold: float) -> bool:
    """Whether two prompts ask the same thing (see the module doc)."""
    if left.prompt_key == right.prompt_key:
        return True
    left_words, right_words = _prompt_words(left.prompt_key), _prompt_words(right.prompt_key)
    union = len(left_words | right_words)
    if not union or len(left_words & right_words) / union < threshold:
        return False
    return _prompt_names(left.prompt) == _prompt_names(right.prompt)


_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "do", "does", "did", "will",
    "would", "can", "could", "to", "of", "in", "on", "at", "for", "from", "by", "with", "and",
    "or", "that", "this", "it", "its", "s",
})  # fmt: skip
"""Words a rewording changes freely: a question differing only in these asks the same thing."""


@lru_cache(maxsize=1 << 12)
def _story_words(story_key: str) -> frozenset[str]:
    return frozenset(story_key.split()) - _FUNCTION_WORDS


_NOUN_AFTER = re.compile(r"\b(?:a|an|the)\s+([A-Za-z0-9][\w-]*)", re.IGNORECASE)
_NOUN_BEFORE = re.compile(r"([A-Za-z0-9][\w-]*)['’]s\b")


@lru_cache(maxsize=1 << 16)
def _question_referents(prompt: str) -> frozenset[str]:
    """Words a question uses as names of things: after an article, or owning with ``'s``."""
    found = _NOUN_AFTER.findall(prompt) + _NOUN_BEFORE.findall(prompt)
    return frozenset(word for text in found for word in text_tokens(text))


def other_referents(left: Features, right: Features) -> bool:
    """Whether two questions differ in a word that names a thing (of the story, or as a noun).

    Two questions about one story that differ there ask about different things of it (OpenToM's
    "how does bucket's fullness change" and "... a donation box's fullness ..."), never the same
    thing reworded. A word names a thing when the story uses it, or when a question puts it
    after an article or before ``'s``; differences in function words (``will``/``would``) and
    in other words (a reworded verb) are rewordings.
    """
    if left.prompt_key == right.prompt_key:
        return False
    differ = (_prompt_words(left.prompt_key) ^ _prompt_words(right.prompt_key)) - _FUNCTION_WORDS
    if not differ:
        return False
    things = _story_words(left.story_key) | _story_words(right.story_key)
    things |= _question_referents(left.prompt) | _question_referents(right.prompt)
    return bool(differ & things)


def _other_worlds(left: Features, right: Features) -> bool:
    """Whether both items are engine stories with different events (a contrast, no copy)."""
    return left.world is not None and right.world is not None and left.world != right.world


@dataclass(frozen=True, slots=True)
class Match:
    """An earlier item a candidate duplicates."""

    label: str
    """Who it is: the sample id (and ``(admitted)`` for a sample admitted by an earlier run)."""
    similarity: float
    """Story Jaccard similarity (1.0 for exact duplicates)."""


class DuplicateIndex:
    """Items by exact key and by story similarity, keyed by input position.

    Keys are input positions (0, 1, ...); samples admitted by earlier runs get negative keys, so
    they count as earlier than every candidate. Items telling the same (normalized) story form
    one group, indexed once in the LSH: a story with twelve questions costs one insert, and
    consecutive questions about one story share one query.

    Args:
        settings: Thresholds, permutations and shingle size.
    """

    def __init__(self, settings: DedupSettings) -> None:
        self.settings = settings
        self.signer = Signer(settings.num_perm, settings.seed)
        self._similar = SimilarityIndex(
            self.signer, settings.near_duplicate_threshold, margin=settings.lsh_margin
        )
        self._exact: dict[str, int] = {}
        self._labels: dict[int, str] = {}
        self._groups: dict[str, int] = {}
        self._members: list[list[tuple[int, Features]]] = []
        # A group's members by answer: a near duplicate must give the same answer, so a query
        # compares questions only with those (a story's dozen questions have a few answers).
        self._by_answer: list[dict[tuple[str, ...], list[tuple[int, Features]]]] = []
        self._last_query: tuple[str, int, list[tuple[int, float]]] | None = None
        self._prior = 0
        self._neighbours: Mapping[str, Sequence[tuple[str, float]]] = {}

    def features_many(self, samples: Sequence[Sample]) -> list[tuple[Features, np.ndarray]]:
        """Features and MinHash signatures of many samples, each distinct story done once."""
        stories: dict[str, tuple[int, tuple[str, np.ndarray]]] = {}
        feats, rows = [], []
        for sample in samples:
            text = story_text(sample)
            known = stories.get(text)
            if known is None:
                part = _story_part(text, self.settings.shingle_size)
                known = stories[text] = (len(stories), part)
            rows.append(known[0])
            feats.append(features(sample, self.settings.shingle_size, known[1]))
        signatures = self.signer.sign([shingles for _, (_, shingles) in stories.values()])
        return [(f, signatures[row]) for f, row in zip(feats, rows, strict=True)]

    def add(self, key: int, label: str, feats: Features, signature: np.ndarray) -> None:
        """Index one item (first occurrence of an exact key wins)."""
        self._labels[key] = label
        self._exact.setdefault(feats.exact_key, key)
        group = self._groups.get(feats.story_key)
        if group is None:
            group = self._groups[feats.story_key] = len(self._members)
            self._members.append([])
            self._by_answer.append({})
            self._similar.add_many([group], [feats.shingles], signature[None, :])
            self._carry_last_query(feats.story_key, group, has_shingles=len(feats.shingles) > 0)
        self._members[group].append((key, feats))
        self._by_answer[group].setdefault(feats.answer_key, []).append((key, feats))

    def _carry_last_query(self, story_key: str, group: int, *, has_shingles: bool) -> None:
        """Keep the last query's answer valid once its own story becomes a new group.

        The story's next question would query again only to find the same groups plus its own,
        at similarity 1.0 (identical shingles share every band): a story's second query, half
        of all queries, is answered here.
        """
        last = self._last_query
        if last is None or last[0] != story_key or last[1] != group:
            return
        found = [*last[2], (group, 1.0)] if has_shingles else last[2]
        self._last_query = (story_key, group + 1, sorted(found, key=lambda p: (-p[1], p[0])))

    def add_prior(self, samples: Iterable[Sample]) -> None:
        """Index samples admitted by earlier runs (earlier than every candidate)."""
        batch = list(samples)
        with frozen_heap():
            for sample, (feats, signature) in zip(batch, self.features_many(batch), strict=True):
                self._prior -= 1
                self.add(self._prior, f"{sample.id} (admitted)", feats, signature)

    def exact(self, feats: Features, *, before: int) -> Match | None:
        """The first indexed item with the same normalized story and question, if earlier."""
        key = self._exact.get(feats.exact_key)
        if key is None or key >= before:
            return None
        return Match(self._labels[key], 1.0)

    def band_keys(self, signature: np.ndarray) -> list[bytes]:
        """The LSH bucket of a story's signature in each band (see ``SimilarityIndex``)."""
        return self._similar.band_keys(signature)

    def stories(self) -> list[tuple[str, np.ndarray]]:
        """(story key, shingles) of every indexed story group, in the order they were added."""
        return [(members[0][1].story_key, members[0][1].shingles) for members in self._members]

    def set_neighbours(self, neighbours: Mapping[str, Sequence[tuple[str, float]]]) -> None:
        """Similar stories found beforehand (by a cluster), used instead of LSH queries.

        ``neighbours[story_key]`` lists every story (itself included) whose exact Jaccard with
        it reaches the threshold among those sharing an LSH bucket with it: what a query would
        find once they are indexed. Stories not in the table are still queried in the LSH.
        """
        self._neighbours = neighbours

    def _similar_groups(self, feats: Features, signature: np.ndarray) -> list[tuple[int, float]]:
        known = self._neighbours.get(feats.story_key)
        if known is not None:
            found = [(self._groups[k], sim) for k, sim in known if k in self._groups]
            return sorted(found, key=lambda pair: (-pair[1], pair[0]))
        size = len(self._members)
        if self._last_query is not None and self._last_query[:2] == (feats.story_key, size):
            return self._last_query[2]
        found = self._similar.query(feats.shingles, signature)
        self._last_query = (feats.story_key, size, found)
        return found

    def near(self, feats: Features, signature: np.ndarray, *, before: int) -> Match | None:
        """The most similar earlier item with a near story, the same question and answer.

        Exact duplicates are left to :meth:`exact`, so one copy is not reported twice.
        """
        for group, similarity in self._similar_groups(feats, signature):
            for key, other in self._by_answer[group].get(feats.answer_key, ()):
                if key >= before or other.exact_key == feats.exact_key:
                    continue
                if _other_worlds(feats, other):
                    continue
                if same_question(
                    feats, other, self.settings.question_similarity
                ) and not other_referents(feats, other):
                    return Match(self._labels[key], similarity)
        return None


def eval_files(
    eval_dir: Path, settings: ContaminationSettings, *, exclude: Iterable[Path] = ()
) -> list[Path]:
    """The evaluation JSONL files the guard protects, sorted (missing folders give none)."""
    skip = {Path(p).resolve() for p in exclude}
    names = set(settings.datasets) if settings.datasets is not None else None
    found: set[Path] = set()
    if eval_dir.is_dir():
        found |= {p for p in eval_dir.glob("*.jsonl") if names is None or p.stem in names}
    for extra in settings.extra_paths:
        found |= set(extra.rglob("*.jsonl")) if extra.is_dir() else {extra}
    return sorted(p for p in found if p.resolve() not in skip)


COPY_VOCABULARY = 0.75
"""Least Jaccard similarity of two stories' vocabularies (:func:`vocabulary`) for one to copy
the other. On ToMi's test split, copies with one agent renamed, one container swapped or one
sentence inserted keep at least 0.80; distinct val and test stories whose shingles reach 0.40
share at most 0.71, and two stories with other people and containers at a shingle Jaccard of
0.50 share 0.73."""
_UNIT = re.compile(r"[^\W_]+(?:_[^\W_]+)*")
_STORY_ARTICLES = frozenset({"a", "an", "the"})


def vocabulary(story: str) -> frozenset[str]:
    """A story's words and names, a name written with ``_`` as one (``green_bucket``).

    A renamed or swapped name changes one element, so a copy keeps nearly all of them.
    """
    text = _LINE_NUMBER.sub("", story)  # "3 Aria moved ...": numbered lines, as text_tokens
    return frozenset(w for w in _UNIT.findall(text.lower()) if w not in _STORY_ARTICLES)


class ContaminationIndex:
    """Distinct evaluation stories in one LSH index, built once per run.

    Args:
        settings: Threshold, permutations and shingle size.
    """

    def __init__(self, settings: DedupSettings) -> None:
        self.settings = settings
        self.signer = Signer(settings.num_perm, settings.seed)
        self._index = SimilarityIndex(
            self.signer, settings.contamination_threshold, margin=settings.lsh_margin
        )
        self._labels: list[str] = []
        self._words: list[frozenset[str]] = []
        self.files: list[Path] = []

    @classmethod
    def build(cls, settings: DedupSettings, files: Sequence[Path]) -> ContaminationIndex:
        """Index the distinct stories of these files (each labelled by its first sample).

        Raises:
            DataError: A file is not valid JSONL.
        """
        index = cls(settings)
        seen: set[str] = set()
        shingle_sets = []
        for path in files:
            index.files.append(path)
            for record in read_jsonl(path):
                story = str(record.get("story") or "") or str(record.get("question") or "")
                key = text_key(story)
                if not key or key in seen:
                    continue
                seen.add(key)
                index._labels.append(f"{path.stem}:{record.get('id')}")
                index._words.append(vocabulary(story))
                shingle_sets.append(shingle_hashes(text_tokens(story), settings.shingle_size))
        index._index.add_many(list(range(len(shingle_sets))), shingle_sets)
        return index

    def __len__(self) -> int:
        return len(self._labels)

    def match(self, sample: Sample) -> Match | None:
        """The evaluation story this sample's story near-copies, most similar first.

        A copy reaches the shingle threshold and shares :data:`COPY_VOCABULARY` of its words.
        """
        story = story_text(sample)
        shingles = shingle_hashes(text_tokens(story), self.settings.shingle_size)
        found = self._index.query(shingles)
        if not found:
            return None
        words = vocabulary(story)
        for key, similarity in found:
            other = self._words[key]
            union = len(words | other)
            if union and len(words & other) / union >= COPY_VOCABULARY:
                return Match(self._labels[key], similarity)
        return None
