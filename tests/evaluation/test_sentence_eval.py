"""Sentence tasks end to end: UID macro-average and sweep by hand, and ``eval --backend causal``."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tomflywheel.asking import shuffle_options
from tomflywheel.asking.judge._logprob import LogprobJudge
from tomflywheel.cli import app
from tomflywheel.config import LogprobSettings
from tomflywheel.datasets import get_task, import_sentences
from tomflywheel.evaluation import compute_metrics
from tomflywheel.schema import Prediction

ITEMS = [
    # UID a: 3 items, UID b: 1 item; sentences made up, the first one right.
    ("a", ["The cat sat.", "The cat sang."], [" sat.", " sang."]),
    ("a", ["A dog ran.", "A dog ran ran."], ["A dog ran.", "A dog ran ran."]),
    ("a", ["The mat is red.", "The mat is loud."], [" red.", " loud."]),
    ("b", ["Birds fly.", "Birds flies."], ["Birds fly.", "Birds flies."]),
]


def write_items(path: Path) -> Path:
    lines = [
        json.dumps({"sentences": s, "completions": c, "label": 0, "UID": uid})
        for uid, s, c in ITEMS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_uid_macro_average_and_the_sweep_on_known_scores(tmp_path):
    samples = list(import_sentences(write_items(tmp_path / "items.jsonl")))
    # (gold score, wrong score): gold probabilities at T=1 are 0.75, 0.25, 0.9 and 0.2.
    known = [(0.0, -math.log(3)), (-math.log(3), 0.0), (0.0, -math.log(9)), (-math.log(4), 0.0)]
    predictions, judgments = [], []
    for sample, (gold, wrong) in zip(samples, known, strict=True):
        shuffled = shuffle_options(sample)
        scores = [gold if letter in shuffled.gold_letters else wrong for letter in "AB"]
        prediction = Prediction(
            sample_id=sample.id,
            mode="logprob",
            endpoint="causal",
            options=shuffled.options,
            option_map=shuffled.option_map,
            gold_letters=shuffled.gold_letters,
            option_logprobs=scores,
            option_token_counts=[1, 1],
        )
        predictions.append(prediction)
        judgments.append(asyncio.run(LogprobJudge()(sample, prediction)))
    metrics = compute_metrics(
        label="items",
        task=get_task("sentences"),
        samples=samples,
        predictions=predictions,
        judgments=judgments,
        logprob=LogprobSettings(min_temperature=1.0, max_temperature=1.0, temperature_step=1.0),
    )
    by_uid = metrics["groups"]["UID"]
    assert (by_uid["a"]["correct"], by_uid["a"]["n"]) == (2, 3)
    assert (by_uid["b"]["correct"], by_uid["b"]["n"]) == (0, 1)
    assert metrics["overall"]["accuracy"] == 0.5  # micro: 2 of 4
    assert metrics["macro_accuracy"] == {"by": "UID", "n_groups": 2, "accuracy": 0.3333}
    sweep = metrics["logprob_sweep"]
    assert sweep["macro_by"] == "UID"
    assert sweep["argmax_accuracy"] == 0.3333
    # Expected accuracy at T=1: mean over UIDs of ((0.75 + 0.25 + 0.9) / 3, 0.2).
    assert sweep["temperatures"] == [{"temperature": 1.0, "accuracy": 0.4167}]


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer GPT-2 with a word-level tokenizer, weights from a seeded generator."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    words = sorted({w.strip(".").lower() for _, s, _ in ITEMS for t in s for w in t.split()})
    vocab = {
        w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *words])
    }
    tokenizer = transformers.BertTokenizerFast(vocab=vocab)
    config = transformers.GPT2Config(
        vocab_size=len(vocab),
        n_positions=32,
        n_embd=16,
        n_layer=2,
        n_head=2,
        bos_token_id=vocab["[CLS]"],
        eos_token_id=vocab["[SEP]"],
    )
    model = transformers.GPT2LMHeadModel(config)
    generator = torch.Generator().manual_seed(99)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def serverless_config(tmp_path: Path, extra: str = "") -> Path:
    """A config whose server address is dead: a run must not need it."""
    config = tmp_path / "config.yaml"
    config.write_text(
        "server: external\n"
        "llm: {base_urls: ['http://127.0.0.1:9/v1'], model: none}\n"
        f"eval: {{results_dir: '{tmp_path / 'results'}'}}\n" + extra,
        encoding="utf-8",
    )
    return config


def test_eval_with_the_causal_backend_needs_no_server(tmp_path, tiny_gpt2):
    items = write_items(tmp_path / "items.jsonl")
    config = serverless_config(tmp_path)
    exp = tmp_path / "exp"
    args = ["eval", "-c", str(config), "-d", str(items), "--exp-dir", str(exp)]
    args += ["--backend", "causal", "--model", str(tiny_gpt2), "--save-predictions"]
    args += [
        "--min-temperature",
        "0.5",
        "--max-temperature",
        "1.5",
        "--temperature-interval",
        "0.5",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    folder = exp / "items"
    predictions = [
        json.loads(line) for line in (folder / "prediction.jsonl").read_text().splitlines()
    ]
    assert [p["endpoint"] for p in predictions] == ["causal"] * 4
    assert all(p["error"] is None and len(p["option_logprobs"]) == 2 for p in predictions)
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["n_judgments"] == 4
    assert [t["temperature"] for t in metrics["logprob_sweep"]["temperatures"]] == [0.5, 1.0, 1.5]
    by_uid = json.loads((folder / "predictions_by_uid.json").read_text())
    assert sorted(by_uid) == ["a", "b"]
    assert [len(by_uid[u]["predictions"]) for u in ("a", "b")] == [3, 1]
    correct = sum(p["correct"] for u in by_uid.values() for p in u["predictions"])
    assert correct == metrics["overall"]["correct"]
    for row in by_uid["a"]["predictions"]:
        # The chosen completion is the one with the higher score, in the sentences' order.
        assert row["pred_index"] == max(range(2), key=lambda i: (row["scores"][i], -i))
    report = (folder / "uid_report.md").read_text()
    assert "| a | 3 |" in report and "macro-average (2 UID)" in report
    # A second run resumes: nothing left to score.
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "predicted 0 new, 4 already done" in again.output + again.stderr
    assert len((folder / "prediction.jsonl").read_text().splitlines()) == 4


@pytest.mark.vllm
def test_the_server_backend_scores_each_sentence_after_its_own_prefix(tmp_path, vllm_base_url):
    from tests.evaluation.conftest import external_settings
    from tomflywheel.artifacts import read_predictions
    from tomflywheel.config import DatasetRef
    from tomflywheel.evaluation import run_evaluation

    # Items whose completions follow a prefix (the server cannot score a text's first token).
    path = tmp_path / "prefixed.jsonl"
    lines = [
        json.dumps({"sentences": s, "completions": c, "label": 0, "UID": uid})
        for uid, s, c in ITEMS
        if not s[0].startswith(c[0])
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = external_settings(vllm_base_url, tmp_path, datasets=[DatasetRef(path=path)])
    summary = run_evaluation(settings, exp_dir=tmp_path / "exp")
    predictions = read_predictions(summary.experiment.predictions("prefixed"))
    assert [p.endpoint for p in predictions] == ["completions", "completions"]
    assert all(p.error is None for p in predictions)
    # " sat." / " sang.": each option's tokens are its completion's, after its own prefix.
    assert all(c >= 1 for p in predictions for c in p.option_token_counts or [])
    assert summary.datasets[0].metrics["macro_accuracy"]["by"] == "UID"


def test_eval_logs_its_metrics_to_tensorboard_when_asked(tmp_path, tiny_gpt2):
    from tests.test_tracking import read_scalars

    items = write_items(tmp_path / "items.jsonl")
    config = serverless_config(
        tmp_path, f"tracking: {{to: tensorboard, dir: '{tmp_path / 'tb'}'}}\n"
    )
    exp = tmp_path / "exp"
    args = ["eval", "-c", str(config), "-d", str(items), "--exp-dir", str(exp)]
    result = CliRunner().invoke(app, [*args, "--backend", "causal", "--model", str(tiny_gpt2)])
    assert result.exit_code == 0, result.output
    metrics = json.loads((exp / "items" / "metrics.json").read_text())
    logged = read_scalars(tmp_path / "tb")
    assert logged["eval/items/overall/accuracy"] == [(0, metrics["overall"]["accuracy"])]
    assert logged["eval/items/n_judgments"] == [(0, 4.0)]
    assert not any(tag.startswith("eval/items/usage") for tag in logged)
