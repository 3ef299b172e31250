"""The feedback stage on an experiment folder: mine, diagnose, profile, plan, synthesize, export.

Everything goes under ``<exp>/feedback/``: ``diagnoses.jsonl`` (appended, resumable),
``error_profile.json``, ``plan.json``, ``candidates.jsonl`` (normalized samples with lineage)
and its exports ``candidates.chat.jsonl`` and ``candidates.sharegpt.json``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tomflywheel._io import atomic_write_json, write_jsonl_atomic
from tomflywheel.artifacts import Experiment, load_saved_datasets
from tomflywheel.audit import surface_profile
from tomflywheel.cluster import ray_session
from tomflywheel.config import LLMSettings, Settings
from tomflywheel.datasets import task_for_sample
from tomflywheel.feedback._adversarial import adversarial_select
from tomflywheel.feedback._diagnose import plan_diagnoses, read_diagnoses, run_diagnoses
from tomflywheel.feedback._exports import export_chat_jsonl, export_sharegpt
from tomflywheel.feedback._free_form import free_form_stories, pick_cases
from tomflywheel.feedback._mining import BadCase, mine_bad_cases
from tomflywheel.feedback._naturalize import chosen_for_naturalization, naturalize
from tomflywheel.feedback._plan import SynthesisPlan, build_plan
from tomflywheel.feedback._profile import error_profile
from tomflywheel.feedback._roles import sample_role
from tomflywheel.feedback._surface import surface_of
from tomflywheel.feedback._synthesize import synthesize
from tomflywheel.feedback._synthesize_ray import synthesize_on_ray
from tomflywheel.llm import ContentClient, StructureClient, llm_endpoint
from tomflywheel.progress import ProgressFactory
from tomflywheel.schema import Diagnosis, Sample


@dataclass
class FeedbackSummary:
    """What the feedback stage found and made."""

    folder: Path
    cases: dict[str, int] = field(default_factory=dict)
    """Bad cases by reason."""
    diagnosed_now: int = 0
    profile: dict[str, Any] = field(default_factory=dict)
    plan: SynthesisPlan | None = None
    candidates: dict[str, int] = field(default_factory=dict)
    """Candidates by origin."""
    notes: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def feedback_dir(exp_dir: Path) -> Path:
    """``<exp>/feedback``."""
    return Path(exp_dir) / "feedback"


def run_feedback(
    settings: Settings,
    exp_dir: Path,
    *,
    diagnose: bool = True,
    synthesize_candidates: bool = True,
    progress: ProgressFactory | None = None,
    on_status: Callable[[str], None] | None = None,
) -> FeedbackSummary:
    """Run the feedback stage on an experiment; finished diagnoses are kept, so it resumes.

    The LLM server is started only when LLM work is pending (diagnoses of unparseable stories,
    cross-checks, adversarial selection, naturalization or free-form stories).
    """
    folder = feedback_dir(exp_dir)
    folder.mkdir(parents=True, exist_ok=True)
    summary = FeedbackSummary(folder=folder)
    config = settings.feedback
    cases = mine_bad_cases(exp_dir, unsure_margin=config.unsure_margin)
    summary.cases = dict(sorted(Counter(c.reason for c in cases).items()))
    diagnoses_path = folder / "diagnoses.jsonl"
    done = {(d.dataset, d.sample_id, d.trial) for d in read_diagnoses(diagnoses_path)}
    pending = [c for c in cases if c.key not in done] if diagnose else []
    plans = plan_diagnoses(pending, config, llm_available=True)
    llm_work = any(p.ask_llm for p in plans) or (
        synthesize_candidates and (config.adversarial or config.naturalize or config.free_form)
    )
    if llm_work:
        with llm_endpoint(settings, on_status) as llm:
            asyncio.run(
                _with_llm(
                    settings, llm, exp_dir, cases, plans, summary, progress, synthesize_candidates
                )
            )
    else:
        asyncio.run(
            _with_llm(
                settings, None, exp_dir, cases, plans, summary, progress, synthesize_candidates
            )
        )
    return summary


async def _with_llm(
    settings: Settings,
    llm: LLMSettings | None,
    exp_dir: Path,
    cases: list[BadCase],
    plans: list,  # type: ignore[type-arg]
    summary: FeedbackSummary,
    progress: ProgressFactory | None,
    synthesize_candidates: bool,
) -> None:
    client = ContentClient(llm) if llm is not None else None
    structure = StructureClient.from_settings(client) if client is not None else None
    try:
        folder = summary.folder
        if plans:
            summary.diagnosed_now = await _diagnose(plans, folder, structure, progress)
        keys = {c.key for c in cases}
        diagnoses = [
            d
            for d in read_diagnoses(folder / "diagnoses.jsonl")
            if (d.dataset, d.sample_id, d.trial) in keys
        ]
        summary.profile = error_profile(diagnoses)
        atomic_write_json(folder / "error_profile.json", summary.profile)
        summary.files += [folder / "diagnoses.jsonl", folder / "error_profile.json"]
        if synthesize_candidates:
            await _synthesize(settings, exp_dir, cases, diagnoses, client, structure, summary)
    finally:
        if client is not None:
            summary.usage = client.stats.as_dict()
            await client.close()


async def _diagnose(plans, folder, structure, progress) -> int:  # type: ignore[no-untyped-def]
    concurrency = structure.content.concurrency if structure else 1
    if progress is None:
        return await run_diagnoses(
            plans, folder / "diagnoses.jsonl", structure=structure, concurrency=concurrency
        )
    with progress("diagnose", skipped=0) as update:
        return await run_diagnoses(
            plans,
            folder / "diagnoses.jsonl",
            structure=structure,
            concurrency=concurrency,
            on_progress=update,
        )


async def _synthesize(
    settings: Settings,
    exp_dir: Path,
    cases: list[BadCase],
    diagnoses: list[Diagnosis],
    client: ContentClient | None,
    structure: StructureClient | None,
    summary: FeedbackSummary,
) -> None:
    config = settings.feedback
    folder = summary.folder
    saved = load_saved_datasets(Experiment(Path(exp_dir)))
    tasks = {d.label: d.task.name for d in saved}
    profiles = {d.label: surface_profile(d.samples) for d in saved}
    plan = build_plan(
        diagnoses,
        tasks,
        config,
        case_ids={c.key: c.case_id for c in cases},
        roles={c.key: sample_role(c.sample) for c in cases},
        surfaces={
            label: surface_of(p, choice_share=config.choice_share)
            for label, p in profiles.items()
            if p is not None
        },
    )
    summary.plan = plan
    atomic_write_json(folder / "plan.json", plan.model_dump(mode="json"))
    candidates: list[Sample]
    if config.adversarial and client is not None:
        candidates, report = await adversarial_select(
            plan,
            client,
            settings.eval,
            pool=config.adversarial_pool,
            request_budget=config.adversarial_requests,
            with_rationale=config.rationale,
        )
        summary.notes.append(
            f"adversarial: asked {report.asked}, failed {report.failed}, kept {report.kept}"
        )
    elif settings.executor == "ray":
        candidates = _synthesize_on_ray(settings, plan, summary)
    else:
        candidates = synthesize(plan, with_rationale=config.rationale)
    if config.naturalize and client is not None:
        chosen = chosen_for_naturalization(candidates, config.naturalize_fraction, config.seed)
        natural, failures = await naturalize(
            chosen, client, seed=config.seed, max_tokens=config.naturalize_max_tokens
        )
        candidates += natural
        failed = ", ".join(f"{n} {reason}" for reason, n in sorted(failures.items()))
        note = f"naturalized {len(natural)} of {len(chosen)}"
        summary.notes.append(note + (f" (failed: {failed})" if failed else ""))
    if config.free_form and structure is not None:
        by_key = {(d.dataset, d.sample_id, d.trial): d for d in diagnoses}
        picked = pick_cases(cases, by_key, config.free_form_count, config.seed)
        free, failures = await free_form_stories(
            picked,
            by_key,
            structure,
            plan_id=plan.plan_id,
            seed=config.seed,
            max_tokens=config.free_form_max_tokens,
        )
        candidates += free
        summary.notes.append(f"free-form {len(free)} ({failures} failed)")
    summary.candidates = dict(
        sorted(Counter(str(c.meta.get("origin")) for c in candidates).items())
    )
    paths = (
        folder / "candidates.jsonl",
        folder / "candidates.chat.jsonl",
        folder / "candidates.sharegpt.json",
    )
    write_jsonl_atomic(paths[0], candidates)
    tasked = [(candidate, task_for_sample(candidate)) for candidate in candidates]
    export_chat_jsonl(tasked, paths[1], settings.eval, with_rationale=config.rationale)
    export_sharegpt(tasked, paths[2], settings.eval, with_rationale=config.rationale)
    summary.files += [folder / "plan.json", *paths]


def _synthesize_on_ray(
    settings: Settings, plan: SynthesisPlan, summary: FeedbackSummary
) -> list[Sample]:
    """Symbolic synthesis on Ray (resumable block by block); the local executor's bytes."""
    with ray_session(settings.ray):
        candidates, blocks = synthesize_on_ray(
            plan,
            summary.folder,
            block=settings.ray.synthesis_block,
            with_rationale=settings.feedback.rationale,
        )
    summary.notes.append(
        f"ray: {blocks.total} synthesis blocks, {blocks.computed} computed, "
        f"{blocks.reused} reused from an earlier run"
    )
    return candidates
