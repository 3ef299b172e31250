"""The licence of every benchmark tomflywheel imports, as its authors state it, and training terms.

One row per dataset name (``meta.dataset``): the licence line and where it is stated, the id a
Hugging Face card uses for it, and whether the authors allow training on the data. Three ask
that their data never be used for training (OpenToM's README, ToMBench's and FANToM's): a
training set built from them is refused unless the user overrides it knowingly. Read from the
benchmarks' ``SOURCE.md`` files and, for OpenToM, its README (``docs/importers.md``); a
dataset not listed here has a licence tomflywheel does not know, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Training = Literal["allowed", "forbidden", "not stated"]
"""What the authors say about training on the data."""


@dataclass(frozen=True, slots=True)
class License:
    """One benchmark's licence and terms."""

    dataset: str
    """The dataset name (``meta.dataset``) it covers; names starting ``<dataset>_`` too."""
    stated: str
    """The licence as the authors state it (``CC BY-NC 4.0``)."""
    where: str
    """Where it is stated (repository and file)."""
    card_id: str
    """The Hugging Face card's ``license:`` value (``cc-by-nc-4.0``; ``other``, ``unknown``)."""
    training: Training
    """Whether the authors allow training on the data."""
    terms: str = ""
    """The authors' own words restricting use, quoted, when they give any."""

    @property
    def line(self) -> str:
        """The licence line as written on a card or in an error: licence, where, terms."""
        text = f"{self.stated} ({self.where})"
        return f"{text}; {self.terms}" if self.terms else text


_NO_FILE = "no licence file"
LICENSES: dict[str, License] = {
    entry.dataset: entry
    for entry in (
        License("tomi", "CC BY-NC 4.0", "facebookresearch/ToMi README and LICENSE",
                "cc-by-nc-4.0", "allowed", "non-commercial use only"),
        License("tomi_2cand", _NO_FILE, "YassineJamaa/ToM-LargeModel (after Sap et al. 2022)",
                "unknown", "not stated"),
        License("hitom", "Apache-2.0", "ying-hui-he/Hi-ToM_dataset LICENSE", "apache-2.0",
                "allowed"),
        License("bigtom", "MIT", "cicl-stanford/procedural-evals-tom and Walter0807/RepBelief "
                "LICENSE", "mit", "allowed"),
        License("socialiqa", "not stated for the data", "AllenAI dev split vendored by "
                "cicl-stanford/procedural-evals-tom", "unknown", "not stated"),
        License("tombench", "MIT", "zhchen18/ToMBench LICENSE", "mit", "forbidden",
                "the README asks that ToMBench be used for evaluation only, never for training"),
        License("emobench", "MIT", "Sahandfer/EmoBench LICENSE", "mit", "allowed"),
        License("kosinski", _NO_FILE, "joel-wu/how-large-language-models-encode-theory-of-mind",
                "unknown", "not stated"),
        License("adv_csfb", _NO_FILE, "salavi/Clever_Hans_or_N-ToM", "unknown", "not stated"),
        License("tgtom", "not stated", "singularity4/TemporalGraph-ToM (no LICENSE, README "
                "silent)", "unknown", "not stated"),
        License("fantom", "MIT", "skywalker023/fantom LICENSE", "mit", "forbidden",
                'the README: "The samples in FANToM should only be used for evaluation '
                'purposes."'),
        License("opentom", "CC BY-NC 4.0", "seacowx/OpenToM README", "cc-by-nc-4.0",
                "forbidden", 'the README: "It shall not be used for training or fine-tuning"'),
    )
}  # fmt: skip
"""Every benchmark whose licence tomflywheel knows, by dataset name."""

GENERATED_SUFFIX = "_synth"
"""Dataset names of samples tomflywheel's generators wrote end so: no benchmark text is in them."""


def license_of(dataset: str) -> License | None:
    """The licence of a dataset name: its own row, else the longest name it starts with + ``_``.

    None for a generated dataset (``*_synth``) and for a dataset tomflywheel does not know.
    """
    if dataset.endswith(GENERATED_SUFFIX):
        return None
    names = [name for name in LICENSES if dataset == name or dataset.startswith(name + "_")]
    return LICENSES[max(names, key=len)] if names else None


def training_forbidden(datasets: Iterable[str]) -> dict[str, License]:
    """The datasets among ``datasets`` whose authors forbid training, with their licences."""
    found = {name: license_of(name) for name in sorted(set(datasets))}
    return {
        name: entry
        for name, entry in found.items()
        if entry is not None and entry.training == "forbidden"
    }
