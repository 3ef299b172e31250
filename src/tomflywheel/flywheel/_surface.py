"""Does a round's training data look like the sets it is measured on? Its surface, compared."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tomflywheel.artifacts import SurfaceCheck, SurfaceProfileRecord
from tomflywheel.audit import SurfaceProfile, surface_gaps, surface_profile
from tomflywheel.schema import read_samples


def surface_check(data: Path | None, exp_dirs: Iterable[Path]) -> SurfaceCheck | None:
    """The training data's surface, each measured set's, and the gaps between them.

    ``data`` is what the round trained on (or admitted); ``exp_dirs`` are the experiments that
    measure it (the round's evaluation, the held-out sets). A set scored by log-prob as well is
    compared once (its ``_logprob`` copy shows the same items). ``None`` without data.
    """
    if data is None or not Path(data).exists():
        return None
    profile = surface_profile(read_samples(data))
    if profile is None:
        return None
    measured: dict[str, SurfaceProfile] = {}
    for exp_dir in exp_dirs:
        for path in sorted(Path(exp_dir).glob("*/samples.jsonl")):
            label = path.parent.name
            if label.endswith("_logprob") or label in measured:
                continue
            found = surface_profile(read_samples(path))
            if found is not None:
                measured[label] = found
    return SurfaceCheck(
        data=Path(data),
        profile=SurfaceProfileRecord.model_validate(profile.as_dict()),
        measured={
            label: SurfaceProfileRecord.model_validate(found.as_dict())
            for label, found in sorted(measured.items())
        },
        gaps=surface_gaps(profile, measured),
    )
