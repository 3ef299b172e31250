"""Which model a round evaluates, and the held-out sets measured around training."""

from __future__ import annotations

import json
from pathlib import Path

from tomflywheel.config import DatasetRef, Settings
from tomflywheel.flywheel._manifest import RunManifest


def served_model(settings: Settings) -> str:
    """The model name requests carry."""
    if settings.server == "external":
        return str(settings.llm.model)
    return settings.embedded.served_model_name


def with_model(settings: Settings, model_dir: Path, name: str) -> Settings:
    """Settings that serve ``model_dir`` on the embedded server under its own name.

    The name must be new: the request cache keys on it, so answers of the base model are never
    taken for the fine-tuned one's.
    """
    embedded = settings.embedded.model_copy(update={"model": model_dir, "served_model_name": name})
    return settings.model_copy(update={"server": "embedded", "embedded": embedded})


def last_trained(manifest: RunManifest, k: int) -> tuple[Path, str] | None:
    """The folder and served name of the last model a round before ``k`` trained."""
    for earlier in range(k - 1, 0, -1):
        trained = manifest.done(earlier, "train")
        if trained is not None:
            return Path(trained.outputs["model_dir"]), trained.outputs["served_name"]
    return None


def round_model(settings: Settings, manifest: RunManifest, k: int) -> Settings:
    """Settings of round ``k``'s evaluated model: the last model an earlier round trained."""
    found = last_trained(manifest, k)
    return settings if found is None else with_model(settings, *found)


def has_choices(path: Path) -> bool:
    """Whether a dataset's first sample has options or candidates (log-prob scoring needs them)."""
    with path.open(encoding="utf-8") as handle:
        first = json.loads(handle.readline() or "{}")
    return bool(
        first.get("answer", {}).get("wrong_answers") or first.get("meta", {}).get("candidates")
    )


def heldout_refs(settings: Settings) -> list[DatasetRef]:
    """The held-out sets, plus a log-prob copy of each that can be scored that way."""
    refs = [ref for ref in settings.flywheel.heldout if ref.path.exists() or not ref.optional]
    if not settings.flywheel.logprob_heldout:
        return refs
    extra = [
        ref.model_copy(update={"name": f"{ref.label}_logprob", "judge": "logprob"})
        for ref in refs
        if ref.path.exists() and has_choices(ref.path)
    ]
    return [*refs, *extra]
