"""The judge registry: every task names a registered method; options come from the judge itself."""

import pytest

from tomflywheel.asking import JUDGES, JudgeContext, build_judge
from tomflywheel.config import DatasetRef, EvalSettings, LogprobSettings, Settings
from tomflywheel.datasets import TASKS, get_task
from tomflywheel.errors import ConfigError
from tomflywheel.evaluation import run_evaluation


@pytest.mark.parametrize("task", TASKS.names())
def test_every_registered_task_names_a_registered_judge(task):
    assert get_task(task).judge in JUDGES


def test_rules_options_come_from_the_settings_and_the_task():
    strict = EvalSettings(strict_matching=True)
    judge = build_judge("rules", strict, JudgeContext(), get_task("tomi"))
    assert judge.ref.args == {"strict": True, "partial": True}
    # tgtom's own scorer gives no partial credit: the task switches prefix/suffix matches off.
    judge = build_judge("hybrid", EvalSettings(), JudgeContext(), get_task("tgtom"))
    assert judge.ref.args == {"strict": False, "partial": False}


def test_logprob_options_come_from_the_settings():
    settings = EvalSettings(logprob=LogprobSettings(normalize="mean"))
    assert build_judge("logprob", settings, JudgeContext()).ref.args == {"normalize": "mean"}


def test_an_unknown_judge_fails_before_any_request(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": "a", "story": "s", "question": "q", "answer": {"correct_answers": ["x"]},'
        ' "meta": {"dataset": "tomi"}}\n',
        encoding="utf-8",
    )
    settings = Settings(
        server="external",
        llm={"base_urls": ["http://127.0.0.1:9/v1"], "model": "m"},
        eval={"datasets": [DatasetRef(path=data, judge="jugde")], "results_dir": tmp_path / "r"},
    )
    with pytest.raises(ConfigError, match="unknown judge method 'jugde'"):
        run_evaluation(settings, exp_dir=tmp_path / "exp")
