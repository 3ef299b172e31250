"""TRL's ``GRPOTrainer`` for one run: the evaluation's prompts, the engine's answers as reward.

Generation (transformers' ``generate`` on this process's device), group-relative advantages,
the clipped policy loss, the optimizer, checkpoints and processes are TRL's; what stays ours is
the prompt (exactly the evaluation's) and the reward (``answer_reward``: the evaluation's rules
against the sample's engine-derived answer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transformers import PrinterCallback

from tomflywheel.config import EvalSettings, TrainSettings
from tomflywheel.datasets import task_for_sample
from tomflywheel.errors import ConfigError
from tomflywheel.train._data import PromptExample
from tomflywheel.train._model import Placement, lora_config
from tomflywheel.train._reward import answer_reward
from tomflywheel.train._trainer import Progress, RunShape, trainer_arguments

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from trl import GRPOTrainer

REWARD_NAME = "engine_answer"
"""The reward function's name: TRL logs its mean as ``rewards/engine_answer/mean``."""


def grpo_config(
    settings: TrainSettings, shape: RunShape, placement: Placement, *, output_dir: Path
) -> Any:
    """TRL's ``GRPOConfig`` for the run."""
    from trl import GRPOConfig  # imports torch, transformers, accelerate: only when a run starts

    grpo = settings.grpo
    return GRPOConfig(
        **trainer_arguments(settings, shape, placement, output_dir=output_dir),
        **vllm_arguments(settings, placement),
        num_generations=grpo.generations,
        max_completion_length=grpo.max_completion_tokens,
        temperature=grpo.temperature,
        beta=grpo.beta,
        shuffle_dataset=True,  # by the run's seed
        log_completions=False,
    )


def vllm_arguments(settings: TrainSettings, placement: Placement) -> dict[str, Any]:
    """TRL's vLLM generation arguments for ``grpo.vllm`` (none when it is off).

    Raises:
        ConfigError: vLLM generation asked for on a CPU (TRL's integration runs on CUDA).
    """
    grpo = settings.grpo
    if grpo.vllm == "off":
        return {}
    if not placement.device.startswith("cuda"):
        raise ConfigError(
            f"train.grpo.vllm: {grpo.vllm} generates on a CUDA device, and this run trains on "
            f"{placement.device}; set train.grpo.vllm: off (transformers' generate) on a CPU"
        )
    arguments: dict[str, Any] = {"use_vllm": True, "vllm_mode": grpo.vllm}
    if grpo.vllm == "colocate":
        arguments["vllm_gpu_memory_utilization"] = grpo.vllm_gpu_memory
    else:
        arguments["vllm_server_base_url"] = grpo.vllm_server
    return arguments


def reward_function(
    prompts: Sequence[PromptExample], eval_settings: EvalSettings, settings: TrainSettings
) -> Callable[..., list[float]]:
    """The reward TRL calls with a batch of replies and the ``index`` column of their prompts."""
    tasks = [task_for_sample(prompt.sample) for prompt in prompts]

    def engine_answer(completions: list[Any], index: list[int], **_: Any) -> list[float]:
        return [
            answer_reward(
                prompts[i].sample,
                _reply_text(completion),
                task=tasks[i],
                settings=eval_settings,
                grpo=settings.grpo,
            )
            for completion, i in zip(completions, index, strict=True)
        ]

    engine_answer.__name__ = REWARD_NAME
    return engine_answer


def _reply_text(completion: Any) -> str:
    """A conversational completion is a list of messages; the reply is the assistant's text."""
    if isinstance(completion, list):
        return "".join(str(message.get("content", "")) for message in completion)
    return str(completion)


def build_grpo_trainer(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[PromptExample],
    *,
    eval_settings: EvalSettings,
    settings: TrainSettings,
    shape: RunShape,
    placement: Placement,
    output_dir: Path,
    on_progress: Callable[[int, int, float], None] | None,
) -> GRPOTrainer:
    """A ``GRPOTrainer`` over ``prompts``, rewarded by the engine's answers, LoRA when enabled."""
    from trl import GRPOTrainer

    from datasets import Dataset, disable_progress_bars

    disable_progress_bars()
    dataset = Dataset.from_dict(
        {"prompt": [p.messages for p in prompts], "index": list(range(len(prompts)))}
    )
    model.config.use_cache = True  # generation reuses its key/value cache; training ignores it
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_function(prompts, eval_settings, settings),
        args=grpo_config(settings, shape, placement, output_dir=output_dir),
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_config(settings.lora) if settings.lora.enabled else None,
        callbacks=[Progress(on_progress)] if on_progress else None,
    )
    trainer.remove_callback(PrinterCallback)  # the caller draws progress; no dicts on stdout
    return trainer


def reward_records(log_history: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Per step, in order: the mean reward, its spread within groups, the mean reply length."""
    steps = sorted(
        (entry for entry in log_history if "reward" in entry and "step" in entry),
        key=lambda entry: entry["step"],
    )
    return {
        "rewards": [float(entry["reward"]) for entry in steps],
        "reward_std": [float(entry.get("reward_std", 0.0)) for entry in steps],
        "reply_tokens": [float(entry.get("completions/mean_length", 0.0)) for entry in steps],
    }
