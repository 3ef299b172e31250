"""Which judge a dataset gets: by the task its samples belong to, whatever the file is called."""

from __future__ import annotations

from pathlib import Path

from tomflywheel.config import DatasetRef, Settings
from tomflywheel.datasets import task_for_sample
from tomflywheel.evaluation import judge_for, select_datasets
from tomflywheel.evaluation._select import missing_dataset_note
from tomflywheel.schema import Answer, Sample


def _tomi_file(path: Path) -> Path:
    """Two samples of the ToMi task (``meta.dataset: tomi``), whose default judge is hybrid."""
    samples = [
        Sample(
            id=f"t{i}",
            story="Ann put the ball in the box. Ann left. Bob moved the ball to the bag.",
            question="Where will Ann look for the ball?",
            answer=Answer(correct_answers=["box"], wrong_answers=["bag"]),
            meta={"dataset": "tomi"},
        )
        for i in range(2)
    ]
    path.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    return path


def _settings(judges: dict[str, str], datasets: list[DatasetRef] | None = None) -> Settings:
    settings = Settings()
    update: dict[str, object] = {"judges": judges}
    if datasets is not None:
        update["datasets"] = datasets
    return settings.model_copy(update={"eval": settings.eval.model_copy(update=update)})


def test_a_renamed_file_is_judged_as_its_task_is_configured(tmp_path):
    path = _tomi_file(tmp_path / "tomi_test.jsonl")
    # Without a config entry the ToMi task's own default applies: the setting below must change it.
    assert select_datasets(_settings({}), [str(path)])[0].judge == "hybrid"
    (loaded,) = select_datasets(_settings({"tomi": "rules"}), [str(path)])
    assert (loaded.ref.label, loaded.task.name, loaded.judge) == ("tomi_test", "tomi", "rules")


def test_an_entry_for_the_file_itself_wins_over_its_task(tmp_path):
    path = _tomi_file(tmp_path / "tomi_test.jsonl")
    settings = _settings({"tomi": "rules", "tomi_test": "logprob"})
    assert select_datasets(settings, [str(path)])[0].judge == "logprob"


def test_a_reference_naming_its_judge_wins_over_the_task_entry(tmp_path):
    # The flywheel's log-prob copy of a held-out set names its judge on the reference; the
    # task-wide entry must not turn it back into rules.
    path = _tomi_file(tmp_path / "heldout.jsonl")
    ref = DatasetRef(path=path, name="heldout_logprob", judge="logprob")
    assert select_datasets(_settings({"tomi": "rules"}, [ref]), None)[0].judge == "logprob"


def test_example_and_evaluation_share_one_lookup(tmp_path):
    path = _tomi_file(tmp_path / "renamed.jsonl")
    sample = Sample.model_validate_json(path.read_text(encoding="utf-8").splitlines()[0])
    task = task_for_sample(sample)
    judges = {"tomi": "rules"}
    (loaded,) = select_datasets(_settings(judges), [str(path)])
    assert judge_for(judges, task, "renamed") == loaded.judge == "rules"
    assert judge_for({}, task, "renamed") == "hybrid"


def test_a_missing_fetchable_dataset_says_how_to_fetch_it(tmp_path, caplog):
    present = _tomi_file(tmp_path / "present.jsonl")
    refs = [DatasetRef(path=present), DatasetRef(path=tmp_path / "hitom.jsonl", optional=True)]
    assert [d.ref.label for d in select_datasets(_settings({}, refs), None)] == ["present"]
    assert (
        f"optional dataset {tmp_path / 'hitom.jsonl'} is not there: skipped (get it with: "
        f"tomflywheel datasets fetch hitom --datasets-dir {tmp_path})"
    ) in caplog.text


def test_a_missing_dataset_without_a_source_gets_no_fetch_hint():
    assert missing_dataset_note(Path("datasets/mine.jsonl")) == (
        "optional dataset datasets/mine.jsonl is not there: skipped"
    )
    assert missing_dataset_note(Path("datasets/tomi.jsonl")).endswith(
        "(get it with: tomflywheel datasets fetch tomi)"
    )
