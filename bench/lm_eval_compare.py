"""Evaluation against lm-evaluation-harness: the same ToMi questions, scored on the same server.

Both arms are the whole processes a user would run against one OpenAI-compatible server,
alternating over ``--rounds`` so a drift in the server's speed hits both:

- **ours**: ``tomflywheel eval`` on a dataset judged by ``logprob`` (every option scored by
  log-prob, then rules, metrics and the experiment's files), with a fresh request cache;
- **lm-eval**: ``lm-eval run --model local-completions`` on a task this script writes from
  the very (context, option) pairs our scoring sends (``target_delimiter: ""``), uncached.

Prints each arm's mean wall time and items/s, the ratio (lm-eval's time over ours; the goal
is >= 1.2) and both accuracies, which must agree up to tokenization at the context/option
boundary (lm-eval tokenizes the two apart, we send the text whole). lm-eval is not a
dependency of this project: ``--lm-eval`` names its executable (installed with
``pip install 'lm_eval[api]' transformers``, best in a virtual environment of its own); without
it only our arm runs and the output says that no ratio was measured.

    python bench/lm_eval_compare.py --lm-eval /tmp/lmeval-venv/bin/lm-eval
    python bench/lm_eval_compare.py --base-url http://127.0.0.1:8199/v1 --lm-eval lm-eval

The table goes to ``bench/results/lm_eval.txt`` (``--out``) under the command and commit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from logprob_scoring import TOMI, scoring_pairs
from provenance import ROOT, recorded
from serving import add_server_arguments, served
from tomflywheel.datasets import load_benchmark
from tomflywheel.llm import ensure_default_model
from tomflywheel.schema import Sample

TASK = "tomflywheel_tomi"


def write_inputs(samples: list[Sample], work: Path) -> tuple[Path, Path, int]:
    """Our dataset file, lm-eval's task folder built from the same scoring pairs, the options."""
    ours = work / "tomi_items.jsonl"
    ours.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    docs = []
    for sample in samples:
        pairs = scoring_pairs(sample)
        options = [option for _, option in pairs]
        gold = [o.strip() for o in options].index(sample.answer.correct_answers[0])
        docs.append({"context": pairs[0][0], "choices": options, "gold": gold})
    task_dir = work / "lm_eval_task"
    task_dir.mkdir()
    data = task_dir / "docs.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    task = {
        "task": TASK,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "context",
        "doc_to_choice": "choices",
        "doc_to_target": "gold",
        "target_delimiter": "",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
    }
    (task_dir / f"{TASK}.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    return ours, task_dir, sum(len(d["choices"]) for d in docs)


def run_ours(base_url: str, model: str, data: Path, out: Path, concurrency: int) -> float:
    """``tomflywheel eval`` as a process; returns the accuracy it wrote."""
    config = out / "config.yaml"
    settings = {
        "server": "external",
        "llm": {
            "base_urls": [base_url],
            "model": model,
            "concurrency": concurrency,
            "cache_path": str(out / "requests.sqlite"),
        },
        "eval": {"datasets": [{"path": str(data), "judge": "logprob"}]},
    }
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    exp = out / "exp"
    stages = ["--stage", "predict", "--stage", "judge", "--stage", "metric"]
    _run(
        [
            sys.executable,
            "-m",
            "tomflywheel",
            "eval",
            "-c",
            str(config),
            "--exp-dir",
            str(exp),
            *stages,
        ],
        out,
    )
    [metrics] = sorted(exp.glob("*/metrics.json"))
    return float(json.loads(metrics.read_text(encoding="utf-8"))["overall"]["accuracy"])


def run_lm_eval(base_url: str, task_dir: Path, out: Path, args: argparse.Namespace) -> float:
    """``lm-eval run`` with ``local-completions`` as a process; returns its accuracy."""
    model_args = ",".join(
        [
            f"model={args.model}",
            f"base_url={base_url}/completions",
            "tokenizer_backend=huggingface",
            f"tokenizer={args.tokenizer or ensure_default_model()}",
            f"num_concurrent={args.concurrency}",
            "max_retries=3",
        ]
    )
    _run(
        [
            args.lm_eval,
            "run",
            "--model",
            "local-completions",
            "--model_args",
            model_args,
            "--tasks",
            TASK,
            "--include_path",
            str(task_dir),
            "--output_path",
            str(out / "lm_eval.json"),
        ],
        out,
        env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"},
    )
    [written] = sorted(out.glob("lm_eval*.json"))  # the path is a prefix: lm_eval_<time>.json
    return float(json.loads(written.read_text(encoding="utf-8"))["results"][TASK]["acc,none"])


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-25:])
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{tail}")


def measure(base_url: str, model: str, args: argparse.Namespace) -> None:
    """Alternate the arms over the rounds; print the table."""
    samples = load_benchmark("tomi", args.tomi, split="test")[: args.n]
    arms = ["ours", "lm-eval"] if args.lm_eval else ["ours"]
    walls: dict[str, list[float]] = {arm: [] for arm in arms}
    accuracy: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="lm-eval-compare-") as tmp:
        work = Path(tmp)
        data, task_dir, options = write_inputs(samples, work)
        for round_ in range(args.rounds):
            for arm in arms if round_ % 2 == 0 else arms[::-1]:
                out = work / f"{arm}-{round_}"
                out.mkdir()
                started = time.perf_counter()
                if arm == "ours":
                    accuracy[arm] = run_ours(base_url, model, data, out, args.concurrency)
                else:
                    accuracy[arm] = run_lm_eval(base_url, task_dir, out, args)
                walls[arm].append(time.perf_counter() - started)
                print(f"  round {round_ + 1} {arm}: {walls[arm][-1]:.1f} s", flush=True)
    load = os.getloadavg()
    print(
        f"{len(samples)} ToMi test items ({options} options), {args.rounds} alternated rounds, "
        f"concurrency {args.concurrency}, "
        f"load average after {load[0]:.2f} on {os.cpu_count()} CPUs"
    )
    for arm in arms:
        mean = sum(walls[arm]) / len(walls[arm])
        print(
            f"{arm:8s} {mean:7.1f} s per run  {len(samples) / mean:6.2f} items/s  "
            f"accuracy {100 * accuracy[arm]:.1f}%"
        )
    if not args.lm_eval:
        print("lm-eval not given (--lm-eval): only ours ran, no ratio measured")
        return
    ratio = sum(walls["lm-eval"]) / sum(walls["ours"])
    print(f"ours is {ratio:.2f}x lm-eval's speed (wall time ratio; goal >= 1.2)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_server_arguments(parser)
    parser.add_argument("--lm-eval", help="lm-eval's executable (default: on PATH, if any)")
    parser.add_argument(
        "--tokenizer", help="the served model's Hugging Face folder (default: the bundled model)"
    )
    parser.add_argument("--tomi", type=Path, default=TOMI / "tomi_balanced_story_types")
    parser.add_argument("--n", type=int, default=200, help="ToMi test items")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/lm_eval.txt")
    args = parser.parse_args()
    args.lm_eval = args.lm_eval or shutil.which("lm-eval")
    title = "evaluation against lm-evaluation-harness, as whole processes"
    with recorded(args.out, title), served(args) as base_url:
        measure(base_url, args.model, args)


if __name__ == "__main__":
    main()
