"""Small real-benchmark slices (imported once per session), and a dataset the tests write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomflywheel.config import Settings
from tomflywheel.datasets import import_dataset
from tomflywheel.schema import Answer, Sample

PLACES = ("kitchen", "garden", "attic", "cellar", "garage")


def write_choice_dataset(path: Path, n: int) -> Path:
    """``n`` two-option questions (judged by rules, no LLM judge): the mechanics need no benchmark.

    Each story moves a named object once, so the questions differ and every request is its own.
    """
    samples = []
    for i in range(n):
        start, end = PLACES[i % 5], PLACES[(i + 2) % 5]
        story = f"Ann put toy {i} in the {start}. Ann left. Bob moved toy {i} to the {end}."
        samples.append(
            Sample(
                id=f"q{i:03d}",
                story=story,
                question=f"Where is toy {i} now?",
                answer=Answer(correct_answers=[end], wrong_answers=[start]),
            )
        )
    path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def slices(benchmarks: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Whole benchmark files imported into a temporary folder (tests take N: a stratified slice)."""
    folder = tmp_path_factory.mktemp("datasets")
    sources = {
        "tomi": ("tomi", benchmarks / "tomi" / "tomi_balanced_story_types", {"split": "test"}),
        "hitom": ("hitom", benchmarks / "hitom" / "Hi-ToM_data.json", {}),
        "kosinski": ("kosinski", benchmarks / "kosinski_tom" / "ToM_tasks.json", {}),
    }
    paths = {}
    for label, (name, source, options) in sources.items():
        paths[label] = folder / f"{label}.jsonl"
        import_dataset(name, source, out=paths[label], **options)
    return paths


def external_settings(base_url: str, cache: Path, **eval_updates: object) -> Settings:
    """Settings that talk to the session's server, with a private cache and results folder."""
    settings = Settings.model_validate(
        {
            "server": "external",
            "llm": {
                "base_urls": [base_url],
                "model": "smollm2-135m-instruct",
                "concurrency": 8,
                "cache_path": str(cache / "requests.sqlite"),
            },
        }
    )
    evaluation = settings.eval.model_copy(update={"results_dir": cache / "results", **eval_updates})
    return settings.model_copy(update={"eval": evaluation})
