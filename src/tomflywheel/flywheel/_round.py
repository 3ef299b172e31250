"""A round's plan as data: the model it serves, the sets it measures, what the filter guards.

Round ``k`` evaluates the last model an earlier round trained (the configured one at first),
synthesizes with its own seed, measures the held-out sets around training, and admits nothing
that overlaps an evaluated or held-out set. :func:`plan_round` decides all of that once, from
the settings and the manifest; each stage takes the plan, and :func:`stage_settings` is the one
place a stage's settings are derived from it.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from tomflywheel.config import DatasetRef, Settings
from tomflywheel.flywheel._manifest import RunManifest


class ServedModel(BaseModel):
    """A model as requests name it, and the folder the embedded server loads it from."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The served name; the request cache keys on it."""
    folder: Path | None = None
    """A fine-tuned model's folder; ``None``: the configured server's own model."""


class RoundPlan(BaseModel):
    """What round ``k`` runs against, decided before it starts."""

    model_config = ConfigDict(frozen=True)

    round: int
    model: ServedModel
    """The model the round evaluates (and measures before training)."""
    base: ServedModel
    """The configured model: trained models are named after it."""
    seed: int
    """The synthesis seed (``feedback.seed + k - 1`` with ``flywheel.reseed``)."""
    measure: tuple[DatasetRef, ...]
    """The evaluated sets."""
    heldout: tuple[DatasetRef, ...]
    """The held-out sets, each with its log-prob copy where it can be scored that way."""
    guarded: tuple[Path, ...]
    """The files the contamination guard protects: every evaluated and held-out set."""


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


def last_trained(manifest: RunManifest, k: int) -> ServedModel | None:
    """The last model a round before ``k`` trained."""
    for earlier in range(k - 1, 0, -1):
        trained = manifest.stages(earlier).train
        if trained is not None:
            return ServedModel(name=trained.outputs.served_name, folder=trained.outputs.model_dir)
    return None


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


def guarded_eval_paths(settings: Settings) -> list[Path]:
    """The files the contamination guard must protect: every evaluation and held-out set."""
    refs = [*settings.eval.datasets, *settings.flywheel.heldout]
    return sorted({ref.path for ref in refs if ref.path.exists()})


def plan_round(settings: Settings, manifest: RunManifest, k: int) -> RoundPlan:
    """Round ``k``'s plan: its model, seed, evaluated and held-out sets, guarded files."""
    base = ServedModel(name=served_model(settings))
    seed = settings.feedback.seed + (k - 1 if settings.flywheel.reseed else 0)
    return RoundPlan(
        round=k,
        model=last_trained(manifest, k) or base,
        base=base,
        seed=seed,
        measure=tuple(settings.eval.datasets),
        heldout=tuple(heldout_refs(settings)) if settings.flywheel.train else (),
        guarded=tuple(guarded_eval_paths(settings)),
    )


def stage_settings(
    settings: Settings,
    plan: RoundPlan,
    *,
    model: ServedModel | None = None,
    datasets: tuple[DatasetRef, ...] | None = None,
) -> Settings:
    """The settings a stage of the round runs with: the run's, as the plan says.

    Serves ``model`` (default: the round's), evaluates ``datasets`` (default: the round's
    evaluated sets) and synthesizes with the round's seed.
    """
    served = model or plan.model
    if served.folder is not None:
        settings = with_model(settings, served.folder, served.name)
    return settings.model_copy(
        update={
            "eval": settings.eval.model_copy(update={"datasets": list(datasets or plan.measure)}),
            "feedback": settings.feedback.model_copy(update={"seed": plan.seed}),
        }
    )


def guarded_settings(settings: Settings, plan: RoundPlan) -> Settings:
    """:func:`stage_settings` for the filter: the round's files added to the guarded ones."""
    settings = stage_settings(settings, plan)
    contamination = settings.filter.contamination
    guarded = sorted({*contamination.extra_paths, *plan.guarded})
    update = {"contamination": contamination.model_copy(update={"extra_paths": guarded})}
    return settings.model_copy(update={"filter": settings.filter.model_copy(update=update)})
