"""``run_filter``: the filter stage as one function, from an input JSONL to admitted data."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tomflywheel._gc import frozen_heap
from tomflywheel.cluster import ray_session
from tomflywheel.config import FilterSettings, LLMSettings, Settings, SolveSettings
from tomflywheel.datasets import training_forbidden
from tomflywheel.errors import DataError, UserInputError
from tomflywheel.filter._options import FilterRun
from tomflywheel.filter._pipeline import Decider, OrderedSink, decide_all, is_fatal
from tomflywheel.filter._static_ray import static_on_ray
from tomflywheel.filter.admit import (
    BalanceOutcome,
    CheckCount,
    JudgeCalibration,
    LabelRow,
    StoreState,
    TrainStore,
    audit_only,
    balance,
    changes_file,
    check_counts,
    judge_calibration,
    label_rows,
    reason_counts,
    reasons_by_check,
    repair_attempted,
    write_manifest,
)
from tomflywheel.filter.checks import (
    CHECKS,
    CheckContext,
    answer_profile,
    calibration_choice,
    read_engine_labels,
)
from tomflywheel.filter.dedup import ContaminationIndex, DuplicateIndex, eval_files
from tomflywheel.filter.llm import LLMWork
from tomflywheel.filter.records import Candidate, Evidence, candidate_of, read_candidates
from tomflywheel.llm import ContentClient, llm_endpoint
from tomflywheel.schema import (
    CheckResult,
    QualityAttempt,
    QualityDecision,
    QualityVerdict,
    Sample,
)
from tomflywheel.world import complement

logger = logging.getLogger(__name__)


@dataclass
class FilterSummary:
    """What one filter run did and where its files are."""

    name: str
    input_path: Path
    admitted_path: Path
    rejected_path: Path
    verdicts_path: Path
    manifest_path: Path
    config_hash: str
    candidates: int = 0
    """Records in the input."""
    already_decided: int = 0
    """Candidates an earlier run decided (skipped)."""
    already_admitted: int = 0
    """Candidates whose record an earlier run admitted from another input (skipped)."""
    verdicts: list[QualityVerdict] = field(default_factory=list)
    """This run's verdicts, in input order."""
    guarded: list[Path] = field(default_factory=list)
    """Evaluation files the contamination guard protected."""
    used_llm: bool = False
    """Whether LLM checks could run (false with ``--no-llm``)."""
    usage: dict[str, Any] = field(default_factory=dict)
    """LLM request accounting (empty when no LLM was needed)."""
    balance: BalanceOutcome | None = None
    """What the admission balance did, or (not enforced) the audit alone; None: nothing to
    admit."""
    judge: str = ""
    """The model that answers the LLM checks."""
    judge_is_evaluated: bool = False
    """The judge is the evaluated model: labels only it agrees with count as unverified."""
    solve: SolveSettings = field(default_factory=SolveSettings)
    """The judge's trials and calibration thresholds."""

    @property
    def changes_path(self) -> Path:
        """The list of every admitted label the filter changed (written when there is one)."""
        return self.admitted_path.parent / changes_file(self.name)

    @property
    def judge_calibration(self) -> JudgeCalibration | None:
        """The judge's agreement with the engine this run (None: no cross-check asked)."""
        return judge_calibration(self.verdicts, self.solve)

    @property
    def complements(self) -> int:
        """Samples the admission balance made and admitted (not in the input)."""
        return len(self.balance.complements) if self.balance is not None else 0

    @property
    def accepted_inputs(self) -> int:
        """Input candidates admitted this run (complements not counted)."""
        return self.accepted - self.complements

    @property
    def reasons_by_check(self) -> dict[str, dict[str, int]]:
        """Rejected candidates per check and reason code, this run."""
        return reasons_by_check(self.verdicts)

    @property
    def labels(self) -> list[LabelRow]:
        """Per dataset: labels verified, repaired, dropped, LLM-confirmed, unverified, and why."""
        return label_rows(
            self.verdicts,
            judge_is_evaluated=self.judge_is_evaluated,
            calibration=self.judge_calibration,
        )

    @property
    def accepted(self) -> int:
        """Candidates admitted this run."""
        return sum(v.decision is QualityDecision.ACCEPTED for v in self.verdicts)

    @property
    def rejected(self) -> int:
        """Candidates rejected this run."""
        return len(self.verdicts) - self.accepted

    @property
    def repaired(self) -> int:
        """Candidates admitted after a rewrite."""
        return sum(v.repaired for v in self.verdicts)

    @property
    def repair_attempted(self) -> int:
        """Candidates a rewrite was tried for."""
        return sum(repair_attempted(v) for v in self.verdicts)

    @property
    def checks(self) -> list[CheckCount]:
        """Pass / reject / repaired / skipped counts per check, this run."""
        return check_counts(self.verdicts)

    @property
    def reasons(self) -> dict[str, int]:
        """Rejected candidates per reason code, this run."""
        return reason_counts(self.verdicts)


def judge_of(settings: Settings) -> tuple[str, bool]:
    """The judge model's name, and whether it is the evaluated model (no ``judge.llm``)."""
    judge = settings.judge.llm
    if judge is not None:
        return judge.model, False
    if settings.server == "embedded":
        return settings.embedded.served_model_name, True
    return settings.llm.model, True


def config_hash(settings: Settings, **extra: Any) -> str:
    """A hash of everything that decides verdicts: filter settings, judge model, eval prompts."""
    model, _ = judge_of(settings)
    data = {
        "filter": settings.filter.model_dump(mode="json"),
        "model": model,
        "prompts": {
            "system": settings.eval.system_prompt,
            "templates": settings.eval.templates.model_dump(mode="json"),
        },
        **extra,
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


@contextlib.contextmanager
def judge_endpoint(
    settings: Settings, on_status: Callable[[str], None] | None
) -> Iterator[LLMSettings]:
    """The judge's LLM settings: ``judge.llm`` when set, else the (maybe embedded) main server."""
    if settings.judge.llm is not None:
        yield settings.judge.llm
        return
    with llm_endpoint(settings, on_status) as llm:
        yield llm


def _validate(filter_settings: FilterSettings) -> None:
    unknown = [name for name in filter_settings.disabled_checks if name not in CHECKS]
    if unknown:
        known = ", ".join(CHECKS.names())
        raise UserInputError(f"filter.disabled_checks: unknown check(s) {unknown} (known: {known})")
    answer_profile(filter_settings)


def _first_pass(
    candidates: list[Candidate], decider: Decider, duplicates: DuplicateIndex
) -> dict[int, list[CheckResult]]:
    """Record and set results of every candidate as given, building the duplicate index.

    Every candidate that has no fatal failure enters the index, decided earlier or not, so a
    resumed run compares each candidate with exactly what a single run would have.
    """
    valid = [c for c in candidates if c.sample is not None]
    computed = duplicates.features_many([c.sample for c in valid if c.sample is not None])
    feats = {c.index: item for c, item in zip(valid, computed, strict=True)}
    statics = {}
    for candidate in candidates:
        results = decider.static(candidate, feats.get(candidate.index))
        statics[candidate.index] = results
        if candidate.index in feats and not is_fatal(results):
            duplicates.add(candidate.index, candidate.id, *feats[candidate.index])
    return statics


def _static_results(
    settings: Settings, candidates: list[Candidate], decider: Decider
) -> dict[int, list[CheckResult]]:
    """Record and set results of every candidate, here or on Ray (the same results)."""
    if settings.executor != "ray":
        with frozen_heap():
            return _first_pass(candidates, decider, decider.context.duplicates)  # type: ignore[arg-type]
    with ray_session(settings.ray) as ray, frozen_heap():
        partitions = max(1, int(ray.cluster_resources().get("CPU", 1)))
        return static_on_ray(
            candidates, decider, block=settings.ray.filter_block, partitions=partitions
        )


def run_filter(
    run: FilterRun,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    on_status: Callable[[str], None] | None = None,
) -> FilterSummary:
    """Check, verify, deduplicate, repair and admit the candidates of one JSONL file.

    Resumable and idempotent: candidates decided by an earlier run (same id and record) and
    records already admitted are skipped; verdicts, admitted samples and rejects are appended
    line-atomically in input order; ``manifest.json`` is rebuilt at the end.

    Args:
        run: The settings (``settings.filter``: thresholds and switches), the input, the
            training set's name and folder, the guarded evaluation sets, and the run's choices
            (LLM or not, rewrites per candidate, an empty input, a licence override).
        on_progress: Called with (decided, to decide) as candidates are decided.
        on_status: Called with one-line status messages.

    Raises:
        DataError: The input (or a guarded evaluation file) cannot be read, or holds no
            record (unless ``run.allow_empty``).
        UserInputError: Candidates of a benchmark whose licence forbids training, without
            ``run.allow_license_override`` (the message quotes the licence line).
        ConfigError: Unknown disabled check, bad name, or no usable LLM server configured.
        ServerError: The LLM server could not be started or reached.
    """
    fs = run.filter_settings
    _validate(fs)
    chash = config_hash(run.settings, use_llm=run.use_llm, repair_attempts=run.repairs)
    with TrainStore(run.train_dir, run.set_name) as store:
        summary = _new_summary(run, store, chash)
        candidates = _read_input(run, on_status)
        summary.candidates = len(candidates)
        state = store.load()
        decider = _decider(run, candidates, state, store, summary, on_status)
        statics = _static_results(run.settings, candidates, decider)
        pending = _pending(candidates, state, summary)
        logger.info("%s: %d candidates, %d to decide", store.name, len(candidates), len(pending))
        sink = OrderedSink([c.index for c in pending], lambda v: store.write(v, state), on_progress)
        summary.usage = _decide(run, decider, pending, statics, sink, on_status)
        summary.balance, changed = _admit_pending(store, state, decider, len(candidates), fs)
        decided = sink.decided_in_order()
        by_id = {verdict.sample_id: verdict for verdict in changed}
        summary.verdicts = [by_id.pop(v.sample_id, v) for v in decided] + list(by_id.values())
    write_manifest(run.train_dir, fs.solve)
    return summary


def _new_summary(run: FilterRun, store: TrainStore, chash: str) -> FilterSummary:
    """The summary of a run about to start: its files, its judge, nothing decided yet."""
    judge, judge_is_evaluated = judge_of(run.settings)
    return FilterSummary(
        name=store.name,
        input_path=run.input_path,
        admitted_path=store.admitted_path,
        rejected_path=store.rejected_path,
        verdicts_path=store.verdicts_path,
        manifest_path=store.manifest_path,
        config_hash=chash,
        used_llm=run.use_llm,
        judge=judge,
        judge_is_evaluated=judge_is_evaluated,
        solve=run.filter_settings.solve,
    )


def _read_input(run: FilterRun, on_status: Callable[[str], None] | None) -> list[Candidate]:
    """The input's candidates, their engine labels read, once the input may be filtered.

    Raises:
        DataError: The input holds no record (unless ``run.allow_empty``).
        UserInputError: Candidates of a benchmark whose licence forbids training.
    """
    candidates = list(read_candidates(run.input_path))
    if not candidates and not run.allow_empty:
        raise DataError(run.input_path, None, None, "no records to filter (the file is empty)")
    _check_licenses(run.input_path, candidates, run.allow_license_override, on_status)
    return read_engine_labels(candidates, run.filter_settings)


def _check_licenses(
    input_path: Path,
    candidates: list[Candidate],
    allowed: bool,
    on_status: Callable[[str], None] | None,
) -> None:
    """Refuse candidates of a benchmark whose authors forbid training, unless overridden.

    Raises:
        UserInputError: Such candidates without ``allowed``; names the first dataset, how many
            candidates, and its licence line.
    """
    counts = Counter(
        str(c.sample.meta.get("dataset", "")) for c in candidates if c.sample is not None
    )
    forbidden = training_forbidden(counts)
    for dataset, entry in forbidden.items():
        said = f"{counts[dataset]:,} candidates of {dataset!r}, licensed {entry.line}"
        if not allowed:
            raise UserInputError(
                f"{input_path}: {said}: its authors forbid training on it, and this builds a "
                "training set; refusing (pass --allow-license-override to proceed knowingly: "
                "the dataset card records it)"
            )
        logger.warning("%s: --allow-license-override: admitting %s", input_path, said)
        if on_status is not None:
            on_status(f"--allow-license-override: {said}; the card records the override")


def _admit_pending(
    store: TrainStore, state: StoreState, decider: Decider, next_index: int, fs: FilterSettings
) -> tuple[BalanceOutcome | None, list[QualityVerdict]]:
    """Admit the accepted candidates, balanced so no question family rewards a shortcut.

    Without ``audit.enforce`` they are admitted as they are, and the audit is only reported.

    Complements the balance proposes are checked like any candidate (record and set checks;
    they are engine stories, so no LLM check applies) and admitted only when they pass.

    Returns:
        What the balance did, and the verdicts it wrote (drops, then admitted complements).
    """
    pending, state.pending = state.pending, []
    if not pending:
        return None, []
    if not fs.audit.enforce:
        prior = list(state.admitted)
        for verdict in pending:
            store.admit(verdict, state)
        accepted = [v.sample for v in pending if v.sample is not None]
        outcome = audit_only(prior, accepted, fs.audit)
        store.record_balance(outcome)
        return outcome, []
    made: dict[str, QualityVerdict] = {}

    def passes(sample: Sample) -> bool:
        candidate = candidate_of(sample, next_index + len(made))
        duplicates = decider.context.duplicates
        features = duplicates.features_many([sample])[0] if duplicates is not None else None
        static = decider.static(candidate, features)
        results = decider.complete(candidate, static, Evidence())
        verdict = decider.verdict(candidate, candidate, [QualityAttempt(attempt=0, checks=results)])
        made[sample.id] = verdict
        accepted = verdict.decision is QualityDecision.ACCEPTED
        if accepted and duplicates is not None and features is not None:
            duplicates.add(candidate.index, candidate.id, *features)
        return accepted

    outcome = balance(
        state.admitted,
        [v.sample for v in pending if v.sample is not None],
        fs.audit,
        complement,
        passes,
    )
    changed = []
    for verdict in pending:
        why = outcome.dropped.get(verdict.sample_id)
        if why is None:
            store.admit(verdict, state)
        else:
            changed.append(store.supersede(verdict, "shortcut_balance", f"dropped: {why}"))
    for sample in outcome.complements:
        store.write(made[sample.id], state, admit_now=True)
        changed.append(made[sample.id])
    store.record_balance(outcome)
    return outcome, changed


def _pending(
    candidates: list[Candidate], state: StoreState, summary: FilterSummary
) -> list[Candidate]:
    """The candidates still to decide; counts the ones skipped in the summary."""
    pending = []
    for candidate in candidates:
        if (candidate.id, candidate.input_hash) in state.decided:
            summary.already_decided += 1
        elif candidate.input_hash in state.admitted_inputs:
            summary.already_admitted += 1
        else:
            pending.append(candidate)
    return pending


def _decide(
    run: FilterRun,
    decider: Decider,
    pending: list[Candidate],
    statics: dict[int, list[CheckResult]],
    sink: OrderedSink,
    on_status: Callable[[str], None] | None,
) -> dict[str, Any]:
    """Decide the pending candidates; the LLM requests' accounting (empty: none was needed)."""
    if not decider.wants_llm([(c, statics[c.index]) for c in pending]):
        asyncio.run(decide_all(decider, pending, statics, sink, llm=None))
        return {}
    with judge_endpoint(run.settings, on_status) as llm_settings:
        return asyncio.run(_decide_with_llm(decider, pending, statics, sink, llm_settings, run))


async def _decide_with_llm(
    decider: Decider,
    pending: list[Candidate],
    statics: dict[int, list[CheckResult]],
    sink: OrderedSink,
    llm_settings: LLMSettings,
    run: FilterRun,
) -> dict[str, Any]:
    async with ContentClient(llm_settings) as client:
        work = LLMWork(client, run.filter_settings, run.settings.eval)
        await decide_all(decider, pending, statics, sink, llm=work)
        return client.stats.as_dict()


def _decider(
    run: FilterRun,
    candidates: list[Candidate],
    state: StoreState,
    store: TrainStore,
    summary: FilterSummary,
    on_status: Callable[[str], None] | None,
) -> Decider:
    """The checks' context (duplicate and contamination indexes, the judge) and its decider.

    Records ``summary.guarded``: the evaluation files the contamination guard protects.
    """
    fs = run.filter_settings
    inputs = {c.input_hash for c in candidates}
    prior = [s for s in state.admitted if s.meta.get("filter", {}).get("input_hash") not in inputs]
    first_ids = {sample.id: -1 for sample in prior}
    for candidate in candidates:
        first_ids.setdefault(candidate.id, candidate.index)
    duplicates = DuplicateIndex(fs.dedup)
    duplicates.add_prior(prior)
    contamination = None
    if "contamination" not in fs.disabled_checks:
        files = eval_files(run.eval_dir, fs.contamination, exclude=[store.admitted_path])
        contamination = ContaminationIndex.build(fs.dedup, files)
        summary.guarded = files
        if on_status is not None:
            on_status(f"contamination guard: {len(contamination):,} stories in {len(files)} files")
    calibrates = run.use_llm and not summary.judge_is_evaluated
    context = CheckContext(
        settings=fs,
        use_llm=run.use_llm,
        duplicates=duplicates,
        contamination=contamination,
        first_ids=first_ids,
        judge=summary.judge,
        judge_is_evaluated=summary.judge_is_evaluated,
        calibration_ids=calibration_choice(candidates, fs.solve.calibration_items)
        if calibrates
        else frozenset(),
    )
    return Decider(context, run.repairs, summary.config_hash, str(run.input_path))
