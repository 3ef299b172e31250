"""Two data-parallel processes on this CPU (torchrun, gloo): the loss falls, a folder is written."""

from __future__ import annotations

import json

import pytest

from tests.train.conftest import tomi_style_samples
from tomflywheel._io import write_jsonl_atomic
from tomflywheel.config import EvalSettings
from tomflywheel.train import MANIFEST_NAME, TrainSettings, train_model

pytest.importorskip("trl")


def test_two_processes_train_together(tmp_path, tiny_model):
    data = tmp_path / "train.jsonl"
    write_jsonl_atomic(data, tomi_style_samples(8))
    calls: list[tuple[int, int, float]] = []
    settings = TrainSettings(
        steps=6, batch_size=2, learning_rate=3e-3, lr_schedule="constant", warmup_ratio=0.0,
        seed=2, max_length=384, threads=1, num_processes=2,
    )  # fmt: skip
    result = train_model(
        data, base=tiny_model, out=tmp_path / "model", settings=settings,
        eval_settings=EvalSettings(), on_progress=lambda *step: calls.append(step),
    )  # fmt: skip
    manifest = json.loads((tmp_path / "model" / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["processes"] == 2
    assert manifest["losses"] == result.losses
    assert [(done, total) for done, total, _ in calls] == [(i, 6) for i in range(1, 7)]
    # 6 steps x 2 processes x 2 samples: 3 passes over the 8 samples; the last pass learns.
    assert sum(result.losses[-2:]) < sum(result.losses[:2])
    names = {path.name for path in (tmp_path / "model").iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= names
