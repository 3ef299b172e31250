"""The flywheel settings the closed-loop benches share: rules-judged seeds, no LLM filter, a
symbolic plan, and training sized from the command line's batch arguments.

``bench/closed_loop.py`` (one round per budget) and ``bench/lift_experiment.py`` (configurations
across data seeds) differ only in what they pass here.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def server_settings(args: argparse.Namespace, cache_path: Path) -> dict[str, Any]:
    """``server`` and ``llm``: ``--base-url``/``--model`` when given, else the embedded server."""
    server: dict[str, Any] = (
        {"server": "external", "llm": {"base_urls": [args.base_url], "model": args.model}}
        if args.base_url
        else {"server": "embedded", "llm": {}}
    )
    server["llm"].update(
        concurrency=args.concurrency,
        timeout_s=600,
        max_retries=12,
        cache_path=str(cache_path),
    )
    return server


def loop_settings(
    args: argparse.Namespace,
    *,
    cache_path: Path,
    folder: Path,
    seeds: Iterable[Path],
    heldout: Iterable[Path],
    runs_dir: Path,
    train_dir: Path,
    feedback: dict[str, Any],
    train: dict[str, Any],
    flywheel: dict[str, Any] | None = None,
    audit_margin: float,
    generation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One flywheel run's settings.

    Args:
        args: The bench's command line (``base_url``, ``model``, ``concurrency``, ``batch_size``,
            ``micro_batch``).
        cache_path: The request cache (shared by runs that ask the same questions).
        folder: Where this run's evaluation results go.
        seeds: Evaluation files whose failures seed the plan.
        heldout: Held-out files measured before and after training.
        runs_dir: Where the run folders go.
        train_dir: Where the admitted training set goes.
        feedback: ``feedback`` settings beyond the shared ones (``budget``, ``answer_profile``...).
        train: ``train`` settings beyond the batch arithmetic (``epochs``, ``learning_rate``...).
        flywheel: ``flywheel`` settings beyond the shared ones (``rounds``, ``replay``...).
        audit_margin: The admission audit's margin above chance.
        generation: ``eval.generation`` settings (``max_tokens``...) beyond the defaults.
    """
    return {
        **server_settings(args, cache_path),
        "eval": {
            "datasets": [{"path": str(p), "judge": "rules"} for p in seeds],
            "results_dir": str(folder / "results"),
            "datasets_dir": str(folder / "none"),
            **({"generation": generation} if generation else {}),
        },
        "feedback": {
            "min_per_weakness": 4,
            "cross_check_rate": 0.0,
            "max_llm_diagnoses": 0,
            **feedback,
        },
        "filter": {
            "rubric": {"min_clarity": 1, "min_solvability": 1, "require_tom": False},
            "repair": {"attempts": 0},
            "audit": {"margin": audit_margin},
        },
        "train": {
            "batch_size": args.micro_batch,
            "gradient_accumulation": max(1, args.batch_size // args.micro_batch),
            "gradient_checkpointing": args.micro_batch < args.batch_size,
            **train,
        },
        "flywheel": {
            "runs_dir": str(runs_dir),
            "train_dir": str(train_dir),
            "train": True,
            "filter_llm": False,
            "heldout": [{"path": str(p), "judge": "rules"} for p in heldout],
            **(flywheel or {}),
        },
    }
