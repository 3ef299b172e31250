"""Admission: verdicts, admitted samples and rejects on disk, resumable and never admitted twice.

Layout under the training folder::

    <name>.jsonl              admitted samples (lineage kept, ``meta.filter`` added)
    rejected/<name>.jsonl     rejected candidates: the verdict, with every reason and attempt
    verdicts/<name>.jsonl     every verdict (the log admission is replayed from)
    manifest.json             counts per check and reason, repairs, inputs, config, lineage

A verdict is appended to the log first, then its sample to the admitted or rejected file; a run
killed in between finishes that admission when the store is next opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tomflywheel._io import JsonlAppender, read_jsonl
from tomflywheel.errors import ConfigError
from tomflywheel.schema import QualityDecision, QualityVerdict, Sample


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
        self._files: dict[Path, JsonlAppender] = {}

    def _append(self, path: Path, record: QualityVerdict | Sample) -> None:
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
        """Read what earlier runs left, finishing any admission a kill interrupted."""
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
        missing = []
        for verdict in self.verdicts():
            key = (verdict.sample_id, verdict.input_hash)
            state.decided.add(key)
            accepted = verdict.decision is QualityDecision.ACCEPTED
            if (accepted and verdict.input_hash not in inputs) or (
                not accepted and key not in rejected
            ):
                missing.append(verdict)
        for verdict in missing:
            self._admit(verdict, state)
        return state

    def write(self, verdict: QualityVerdict, state: StoreState) -> None:
        """Log a verdict, then admit or reject its candidate."""
        self._append(self.verdicts_path, verdict)
        state.decided.add((verdict.sample_id, verdict.input_hash))
        self._admit(verdict, state)

    def _admit(self, verdict: QualityVerdict, state: StoreState) -> None:
        if verdict.decision is QualityDecision.ACCEPTED:
            sample = admitted_sample(verdict, self.name)
            self._append(self.admitted_path, sample)
            state.admitted.append(sample)
            state.admitted_inputs.add(verdict.input_hash)
        else:
            self._append(self.rejected_path, verdict)
