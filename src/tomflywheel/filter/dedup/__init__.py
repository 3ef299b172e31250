"""Near-duplicate and contamination guards: MinHash LSH over stories and prompts.

``_minhash`` holds the signatures and the LSH index; :class:`DuplicateIndex` and
:class:`ContaminationIndex` compare a candidate with earlier items and with the evaluation
sets; ``similar_stories`` finds the near pairs of a whole set on Ray.

May import: ``records`` (the order is in ``filter/__init__.py``).
"""

from tomflywheel.filter.dedup._dedup import (
    COPY_VOCABULARY,
    ContaminationIndex,
    DuplicateIndex,
    Features,
    eval_files,
    features,
    other_referents,
    same_question,
    vocabulary,
)
from tomflywheel.filter.dedup._dedup_ray import Story, similar_stories
from tomflywheel.filter.dedup._minhash import (
    Signer,
    SimilarityIndex,
    jaccard,
    shingle_hashes,
    text_key,
    text_tokens,
)

__all__ = [
    "COPY_VOCABULARY",
    "ContaminationIndex",
    "DuplicateIndex",
    "Features",
    "Signer",
    "SimilarityIndex",
    "Story",
    "eval_files",
    "features",
    "jaccard",
    "other_referents",
    "same_question",
    "shingle_hashes",
    "similar_stories",
    "text_key",
    "text_tokens",
    "vocabulary",
]
