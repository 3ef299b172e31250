"""Benchmark importers (from each benchmark's own files) and the task registry."""

from tomflywheel.datasets._task import (
    TASKS,
    JudgeName,
    PromptKind,
    TaskSpec,
    get_task,
    register_task,
)

__all__ = ["TASKS", "JudgeName", "PromptKind", "TaskSpec", "get_task", "register_task"]
