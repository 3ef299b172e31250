"""``FilterRun``: what one filter run decides under, the one argument of ``run_filter``."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from tomflywheel.config import FilterSettings, Settings


class FilterRun(BaseModel):
    """What one filter run decides under: the settings, the input, and where admitted data go.

    Built once by each caller: the CLI folds its flags (``--profile``, ``--balance``,
    ``--admit-unverified``) into ``settings.filter``, the flywheel passes the round's guarded
    settings, so the filter settings have one source, ``settings.filter``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    settings: Settings
    """The configuration: ``filter`` (thresholds and switches), the LLM server, the judge model,
    the evaluation prompts, the executor."""
    input_path: Path
    """Normalized JSONL candidates (synthetic or an external set)."""
    name: str | None = None
    """Training set name (default: the input's stem)."""
    use_llm: bool = True
    """Run the LLM checks and repairs (rubric, extraction, k-solve, rewrite)."""
    repair_attempts: int | None = None
    """Rewrites per candidate (default: ``filter.repair.attempts``)."""
    train_dir: Path = Path("train_datasets")
    """Where admitted data, rejects, verdicts and the manifest go."""
    eval_dir: Path = Path("datasets")
    """The evaluation sets the contamination guard protects."""
    allow_empty: bool = False
    """Accept an input without records (a flywheel round that synthesized nothing); a user's
    empty file is refused."""
    allow_license_override: bool = False
    """Build the training set although some candidates come from a benchmark whose authors
    forbid training on it (the card says so); without it such an input is refused before
    anything is written."""

    @property
    def filter_settings(self) -> FilterSettings:
        """The filter's thresholds and switches: ``settings.filter``."""
        return self.settings.filter

    @property
    def set_name(self) -> str:
        """The training set's name: ``name``, or the input's stem."""
        return self.name or self.input_path.stem

    @property
    def repairs(self) -> int:
        """Rewrites per candidate: ``repair_attempts``, or ``filter.repair.attempts``."""
        if self.repair_attempts is None:
            return self.filter_settings.repair.attempts
        return self.repair_attempts
