"""Admission: verdicts, admitted samples and rejects on disk, resumable and never admitted twice.

Layout under the training folder::

    <name>.jsonl              admitted samples (lineage kept, ``meta.filter`` added)
    rejected/<name>.jsonl     rejected candidates: the verdict, with every reason and attempt
    verdicts/<name>.jsonl     every verdict (the log admission is replayed from)
    manifest.json             counts per check and reason, repairs, inputs, config, lineage

A verdict is appended to the log first. A rejection goes to the rejected file at once; an
acceptance waits until every candidate of the run is decided, because admission balances the
whole set (``_balance.py``): a sample the balance drops gets a second, superseding verdict
(rejected, ``shortcut_balance``). The last verdict of a candidate is the one that counts. A run
killed before admission finds its accepted candidates pending when the store is next opened,
and admits (balances) them then.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tomflywheel._io import JsonlAppender, read_jsonl, repair_partial_tail
from tomflywheel.errors import ConfigError
from tomflywheel.filter.admit._balance import BalanceOutcome
from tomflywheel.schema import CheckResult, CheckStatus, QualityDecision, QualityVerdict, Sample


def admitted_sample(verdict: QualityVerdict, name: str) -> Sample:
    """The sample as admitted: the final version with ``meta.filter`` (provenance) added."""
    if verdict.sample is None:
        raise ValueError(f"{verdict.sample_id}: an accepted verdict needs its sample")
    meta = dict(verdict.sample.meta)
    meta["filter"] = {
        "name": name,
        "input_hash": verdict.input_hash,
        "origin": verdict.origin,
        "repairs": len(verdict.attempts) - 1,
        "config_hash": verdict.config_hash,
    }
    return verdict.sample.model_copy(update={"meta": meta})


@dataclass
class StoreState:
    """What earlier runs left for one training set name."""

    decided: set[tuple[str, str]] = field(default_factory=set)
    """``(sample id, input hash)`` of every candidate already decided (logged or rejected)."""
    admitted: list[Sample] = field(default_factory=list)
    """The admitted samples, in file order."""
    admitted_inputs: set[str] = field(default_factory=set)
    """Input hashes of the admitted samples (``meta.filter.input_hash``)."""
    pending: list[QualityVerdict] = field(default_factory=list)
    """Accepted verdicts not admitted yet (waiting for the balance), in log order."""


def _check_name(name: str) -> str:
    if not name or name.startswith(".") or any(ch in name for ch in "/\\\x00"):
        raise ConfigError(f"invalid training set name {name!r} (a plain file stem is needed)")
    return name


class TrainStore:
    """The files of one training set name under a training folder.

    Args:
        train_dir: The training folder (``train_datasets``).
        name: The training set name (file stem).

    Raises:
        ConfigError: The name is not a plain file stem.
    """

    def __init__(self, train_dir: Path, name: str) -> None:
        self.train_dir = Path(train_dir)
        self.name = _check_name(name)
        self.admitted_path = self.train_dir / f"{name}.jsonl"
        self.rejected_path = self.train_dir / "rejected" / f"{name}.jsonl"
        self.verdicts_path = self.train_dir / "verdicts" / f"{name}.jsonl"
        self.manifest_path = self.train_dir / "manifest.json"
        self.audit_path = self.train_dir / "audit" / f"{name}.jsonl"
        self._files: dict[Path, JsonlAppender] = {}

    def _append(self, path: Path, record: QualityVerdict | Sample | dict[str, Any]) -> None:
        if path not in self._files:
            self._files[path] = JsonlAppender(path)
        self._files[path].append(record)

    def close(self) -> None:
        """Close the files opened for appending."""
        for appender in self._files.values():
            appender.close()
        self._files.clear()

    def __enter__(self) -> TrainStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def verdicts(self) -> Iterator[QualityVerdict]:
        """Every verdict logged so far, in order."""
        if self.verdicts_path.exists():
            yield from read_jsonl(self.verdicts_path, QualityVerdict, tolerate_partial_tail=True)

    def load(self) -> StoreState:
        """Read what earlier runs left, finishing any admission a kill interrupted.

        A last line a kill left without its newline is settled in every file first (a whole
        record gets its newline back, a cut one is removed), whether or not this run appends to
        that file: ``wc -l`` and every reader then count each record once.
        """
        for path in (self.admitted_path, self.rejected_path, self.verdicts_path, self.audit_path):
            repair_partial_tail(path)
        admitted = (
            list(read_jsonl(self.admitted_path, Sample, tolerate_partial_tail=True))
            if self.admitted_path.exists()
            else []
        )
        rejected: set[tuple[str, str]] = set()
        if self.rejected_path.exists():
            for record in read_jsonl(self.rejected_path, tolerate_partial_tail=True):
                rejected.add((str(record.get("sample_id")), str(record.get("input_hash"))))
        inputs = {str(s.meta.get("filter", {}).get("input_hash")) for s in admitted}
        state = StoreState(decided=set(rejected), admitted=admitted, admitted_inputs=inputs)
        last: dict[tuple[str, str], QualityVerdict] = {}
        for verdict in self.verdicts():
            last.pop((verdict.sample_id, verdict.input_hash), None)
            last[(verdict.sample_id, verdict.input_hash)] = verdict
        for key, verdict in last.items():
            state.decided.add(key)
            if verdict.decision is not QualityDecision.ACCEPTED:
                if key not in rejected:
                    self._append(self.rejected_path, verdict)
            elif verdict.input_hash not in inputs:
                state.pending.append(verdict)
        return state

    def write(self, verdict: QualityVerdict, state: StoreState, *, admit_now: bool = False) -> None:
        """Log a verdict; a rejection is filed at once, an acceptance waits (``pending``).

        ``admit_now``: admit an acceptance at once (a complement the balance already counted).
        """
        self._append(self.verdicts_path, verdict)
        state.decided.add((verdict.sample_id, verdict.input_hash))
        if verdict.decision is not QualityDecision.ACCEPTED:
            self._append(self.rejected_path, verdict)
        elif admit_now:
            self.admit(verdict, state)
        else:
            state.pending.append(verdict)

    def record_balance(self, outcome: BalanceOutcome) -> None:
        """Append what one admission balance did to ``audit/<name>.jsonl`` (for the manifest)."""
        self._append(
            self.audit_path,
            {
                "before": outcome.before,
                "after": outcome.after,
                "dropped": outcome.dropped,
                "complements": [sample.id for sample in outcome.complements],
                "unresolved": outcome.unresolved,
                "enforced": outcome.enforced,
            },
        )

    def admit(self, verdict: QualityVerdict, state: StoreState) -> None:
        """Admit an accepted candidate (after the balance)."""
        sample = admitted_sample(verdict, self.name)
        self._append(self.admitted_path, sample)
        state.admitted.append(sample)
        state.admitted_inputs.add(verdict.input_hash)

    def supersede(self, verdict: QualityVerdict, reason: str, detail: str) -> QualityVerdict:
        """Log and file a rejection that overrides an acceptance (the balance dropped it)."""
        attempts = list(verdict.attempts)
        last = attempts[-1]
        checks = [
            *last.checks,
            CheckResult(
                check="admission_balance",
                status=CheckStatus.FAILED,
                reason=reason,
                detail=detail,
                repairable=False,
            ),
        ]
        attempts[-1] = last.model_copy(update={"checks": checks})
        rejected = verdict.model_copy(
            update={
                "decision": QualityDecision.REJECTED,
                "reasons": [reason],
                "attempts": attempts,
            }
        )
        self._append(self.verdicts_path, rejected)
        self._append(self.rejected_path, rejected)
        return rejected
