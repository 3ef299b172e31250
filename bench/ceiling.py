"""The ceiling: what N training items of each kind buy SmolLM2-135M-Instruct, scored on dev.

The base model is fine-tuned (SFT, one epoch, the recipe below) on N items of each data source
and scored on the dev split with metrics no shortcut can pass (``tomflywheel.audit``'s
``shortcut_scores``: belief-balanced accuracy, story-level and paired accuracy, the margin over
the best heuristic, each heuristic's score beside it), by generation and by log-prob:

- ``tomi-train``: ToMi's *train* split, belief questions balanced between false belief
  (``*_tom``) and true belief (``*_no_tom``), world questions (memory, reality) as a third,
  drawn item by item (its 896 false-belief items stop it at 2,688);
- ``engine``: ``datasets generate tomi --controls`` (ToMi's surface: no line numbers), whole
  stories with their true-belief twins;
- ``flywheel``: the flywheel's targeted synthesis: the base model's failures on 120 ToMi *val*
  seed items (outside dev) diagnosed, a plan with budget N, the engine's stories filtered and
  admitted, whole stories kept until N. Its sentences use the benchmark's wording, as the
  engine source's do (``feedback.diversity: 0``), so the two differ in what is drawn only.

N = 250, 1,000, 4,000 and 16,000 (``--sizes``); three training seeds where N <= 1,000 (each seed
also draws its own data), one above.

Mechanisms (``--mechanisms``, at ``--mechanism-size`` items, three seeds, after that size's
points): the engine source's very data and seeds trained another way, or the same stories
labelled or asked another way, so each differs from ``engine`` in one thing, paired by seed:
``pairs`` (a story and its true-belief twin in one batch: ``train.group_by: family``),
``shuffled`` (examples shuffled one by one, unpacked: what grouping a story's questions
changes), ``mixed-formats`` (a quarter of the open questions asked with lettered options),
``tomi-profile`` (the stories answered by ToMi's own labelling convention) and ``balanced``
(the same generator's stories, items taken a third each false-belief, true-belief and world, as
``tomi-train`` is: a plain draw is ~22% false and ~52% true belief).

Dev sets (``bench/lift_experiment.py``'s dev split, whole stories so story-level accuracy
exists): ToMi val's dev third (``--tomi-stories`` stories, every question of each), Hi-ToM's dev
third (whole stories, all orders) and BigToM's dev templates (forward and backward belief, each
true/false-belief twin pair whole).

Every finished point (source, N, seed) is appended to ``<out>.jsonl`` as it completes, and
``<out>.txt`` (the curves, the data-efficiency ratio, each heuristic's scores) is rewritten from
it; a rerun skips the points already there, so a stopped run loses at most the point it was
on. Models are deleted once scored (``--keep-models`` keeps them).

    python bench/ceiling.py                                     # everything, hours on 2 cores
    python bench/ceiling.py --sources engine --sizes 250,1000   # a part
    # another base (on a GPU: docs/training.md, "The ceiling on a larger model")
    python bench/ceiling.py --base /models/Qwen2.5-0.5B-Instruct \
        --out bench/results/ceiling_qwen --work /tmp/ceiling_qwen

Over 400 lines: the sources, the points and the curves' summary are one experiment.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from lift_experiment import bigtom_twins, by_story, thirds
from loop_settings import server_settings
from provenance import command, commit, machine_load
from tomflywheel._io import JsonlAppender, atomic_write_text, iter_jsonl, write_jsonl_atomic
from tomflywheel._rng import rng_for
from tomflywheel.artifacts import Experiment
from tomflywheel.audit import audit_item, shortcut_scores
from tomflywheel.config import parse_settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.evaluation import run_evaluation
from tomflywheel.feedback._surface import Surface, adopt_surface
from tomflywheel.flywheel import first_verdicts, run_flywheel, with_model
from tomflywheel.llm import ensure_default_model, shared_servers
from tomflywheel.schema import Sample, read_samples
from tomflywheel.stats import mean_interval
from tomflywheel.train import train_model, weights_sha256
from tomflywheel.world.generators import generate

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
TOMI = BENCHMARKS / "tomi" / "tomi_balanced_story_types"
SOURCES = ("tomi-train", "engine", "flywheel")
RECIPE: dict[str, Any] = {
    "epochs": 1.0,
    "batch_size": 8,
    "learning_rate": 5e-5,
    "max_length": 640,
    "precision": "auto",
    "group_by": "story",
    "packing": "prefix",
}
"""The SFT recipe of every point: the flywheel's defaults (bf16 autocast where the CPU has it,
one epoch, lr 5e-5, batch 8), a story's questions trained together in packed rows."""
METRICS = ("belief_balanced", "convention_free", "story_level", "accuracy", "paired")
MECHANISMS: dict[str, dict[str, Any]] = {
    "pairs": {"train": {"group_by": "family"}},
    "shuffled": {"train": {"group_by": "none", "packing": "none"}},
    "mixed-formats": {"choice_share": 0.25},
    "tomi-profile": {"profile": "tomi"},
    "balanced": {"balanced": True},
}
"""How each mechanism differs from the ``engine`` source: training settings, or its data."""


# ---- data --------------------------------------------------------------------------------


def belief_kind(sample: Sample) -> str:
    """``false``, ``true`` (ToMi's ``*_tom`` / ``*_no_tom`` belief questions) or ``world``."""
    question_type = str(sample.meta.get("question_type"))
    if question_type in ("memory", "reality"):
        return "world"
    return "true" if question_type.endswith("_no_tom") else "false"


def tomi_train_stream(seed: int) -> list[Sample]:
    """ToMi train items in a seeded order taking false, true and world questions in turn."""
    kinds: dict[str, list[Sample]] = {"false": [], "true": [], "world": []}
    for sample in load_benchmark("tomi", TOMI, split="train"):
        kinds[belief_kind(sample)].append(sample)
    for name, items in kinds.items():
        rng_for("ceiling-tomi-train", f"{seed}:{name}").shuffle(items)
    rounds = min(len(items) for items in kinds.values())
    return [kinds[name][i] for i in range(rounds) for name in ("false", "true", "world")]


def whole_stories(samples: Iterable[Sample], n: int) -> list[Sample]:
    """The first ``n`` samples (stories come whole, twins included, but for the last)."""
    return list(samples)[:n]


def engine_items(n: int, seed: int, *, profile: str = "default") -> list[Sample]:
    """``n`` engine items: ToMi-style stories with their twins, ToMi's surface, in story order."""
    stories = math.ceil(n / 6) + 10
    made = generate("tomi", n=stories, seed=1000 + seed, controls=True, profile=profile)
    return whole_stories(made, n)


def balanced_engine_items(n: int, seed: int) -> list[Sample]:
    """``n`` engine items a third each false-belief, true-belief and world questions, as
    ``tomi-train`` is drawn: the engine's stories in order, each kind taken until its third is
    full (a plain draw is ~22% false, ~52% true belief)."""
    made = generate("tomi", n=math.ceil(2 * n / 6) + 20, seed=1000 + seed, controls=True)
    quota = {"false": n // 3, "true": n // 3, "world": n - 2 * (n // 3)}
    taken = []
    for sample in made:
        kind = belief_kind(sample)
        if quota[kind]:
            quota[kind] -= 1
            taken.append(sample)
    if any(quota.values()):
        raise SystemExit(f"balanced engine draw n={n} seed={seed}: short of {quota}")
    return taken


def mechanism_items(mechanism: str, n: int, seed: int, work: Path, args: Any) -> list[Sample]:
    """The engine source's items as a mechanism changes them (or unchanged)."""
    change = MECHANISMS[mechanism]
    if change.get("balanced"):
        return balanced_engine_items(n, seed)
    if "profile" in change:
        return engine_items(n, seed, profile=change["profile"])
    items = list(read_samples(draw("engine", n, seed, work, args)))
    if "choice_share" in change:
        mixed = Surface(numbered=False, answer_format="open", choice_share=change["choice_share"])
        items = [adopt_surface(sample, mixed) for sample in items]
    return items


def base_model(args: argparse.Namespace) -> Path:
    """The model every point starts from: ``--base``, else the bundled SmolLM2-135M."""
    return args.base or ensure_default_model()


@functools.cache
def base_name(folder: Path) -> str:
    """The served name of a ``--base`` folder: its weights' hash, computed once per run."""
    return f"ceiling-base-{weights_sha256(folder)[:12]}"


def served_base(args: argparse.Namespace) -> dict[str, Any]:
    """``embedded``: the ``--base`` model under a name of its weights, ``--server-arg``s."""
    embedded: dict[str, Any] = {}
    if args.base:
        embedded.update(model=str(args.base), served_model_name=base_name(args.base))
    if args.server_arg:
        embedded["extra_args"] = list(args.server_arg)
    return {"embedded": embedded} if embedded else {}


def flywheel_items(n: int, seed: int, work: Path, args: argparse.Namespace) -> list[Sample]:
    """The flywheel's admitted items for budget ``n`` on data seed ``seed``'s seed slice."""
    folder = work / "flywheel" / f"n{n}_s{seed}"
    seeds_file = folder / "tomi_seed.jsonl"
    if not seeds_file.exists():
        write_jsonl_atomic(seeds_file, seed_slice(seed))
    settings = {
        **server_settings(args, work / "requests.sqlite"),
        **served_base(args),
        "eval": {
            "datasets": [{"path": str(seeds_file), "judge": "rules"}],
            "results_dir": str(folder / "results"),
            "datasets_dir": str(folder / "none"),
        },
        "feedback": {
            "budget": n,
            "min_per_weakness": 4,
            "cross_check_rate": 0.0,
            "max_llm_diagnoses": 0,
            "seed": 100 * seed,
            # the engine source's phrasing: the two differ in what is drawn, not in wording
            "diversity": 0.0,
        },
        "filter": {
            "rubric": {"min_clarity": 1, "min_solvability": 1, "require_tom": False},
            "repair": {"attempts": 0},
        },
        "flywheel": {
            "runs_dir": str(folder),
            "train_dir": str(folder / "train"),
            "train": False,
            "filter_llm": False,
        },
    }
    result = run_flywheel(parse_settings(yaml.safe_dump(settings)), run_dir=folder / "run")
    admitted = sorted((folder / "train").glob("*.jsonl"))
    if not admitted:
        raise SystemExit(f"flywheel n={n} seed={seed}: nothing admitted ({result.run_dir})")
    return whole_stories(read_samples(admitted[0]), n)


def seed_slice(seed: int) -> list[Sample]:
    """120 ToMi val items outside dev (whole stories), the data seed's own chunk."""
    val = by_story(load_benchmark("tomi", TOMI, split="val"), "tomi-val")
    pool = val[len(val) // 3 :]
    chunk = len(pool) // 3
    stories = pool[seed * chunk : (seed + 1) * chunk]
    return [sample for story in stories for sample in story][:120]


def draw(source: str, n: int, seed: int, work: Path, args: argparse.Namespace) -> Path:
    """The training file of one point (written once)."""
    path = work / "data" / f"{source}_n{n}_s{seed}.jsonl"
    if path.exists():
        return path
    if source == "tomi-train":
        items = tomi_train_stream(seed)[:n]
    elif source == "engine":
        items = engine_items(n, seed)
    elif source.startswith("engine+"):
        items = mechanism_items(source.removeprefix("engine+"), n, seed, work, args)
    else:
        items = flywheel_items(n, seed, work, args)
    write_jsonl_atomic(path, items)
    return path


# ---- dev sets ----------------------------------------------------------------------------


def dev_sets(work: Path, args: argparse.Namespace) -> dict[str, Path]:
    """The dev split's sets, every story whole (written once)."""
    val = by_story(load_benchmark("tomi", TOMI, split="val"), "tomi-val")
    hitom = by_story(load_benchmark("hitom", BENCHMARKS / "hitom" / "Hi-ToM_data.json"), "hitom")
    bigtom = by_story(load_benchmark("bigtom", BENCHMARKS / "bigtom"), "bigtom")
    sets = {
        "tomi_dev": [s for story in val[: len(val) // 3][: args.tomi_stories] for s in story],
        "hitom_dev": [s for story in thirds(hitom)[1][: args.hitom_stories] for s in story],
        "bigtom_dev": bigtom_twins(bigtom[: len(bigtom) // 2], 4 * args.bigtom_templates),
    }
    paths = {}
    for name, samples in sets.items():
        if samples:
            paths[name] = work / "dev" / f"{name}.jsonl"
            if not paths[name].exists():
                write_jsonl_atomic(paths[name], samples)
    return paths


# ---- one point ---------------------------------------------------------------------------


def eval_settings(work: Path, dev: dict[str, Path], args: argparse.Namespace) -> Any:
    """Settings that evaluate the dev sets by generation and log-prob."""
    datasets = [{"path": str(p), "judge": "rules"} for p in dev.values()]
    datasets += [
        {"path": str(p), "name": f"{n}_logprob", "judge": "logprob"} for n, p in dev.items()
    ]
    settings = {
        **server_settings(args, work / "requests.sqlite"),
        **served_base(args),
        "eval": {"datasets": datasets, "results_dir": str(work / "eval")},
        "train": {**RECIPE},
    }
    return parse_settings(yaml.safe_dump(settings))


def score(exp_dir: Path, items: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every dev set's shortcut-proof scores in one evaluated experiment."""
    experiment = Experiment(exp_dir)
    out = {}
    for samples_path in sorted(exp_dir.glob("*/samples.jsonl")):
        label = samples_path.parent.name
        source = label.removesuffix("_logprob")
        samples = list(read_samples(samples_path))
        if source not in items:
            items[source] = {s.id: audit_item(s) for s in samples}
        right = first_verdicts(experiment, label)
        out[label] = shortcut_scores(samples, right, items=items[source])
    return out


def run_point(
    point: dict[str, Any], work: Path, dev: dict[str, Path], args: argparse.Namespace, items: dict
) -> dict[str, Any]:
    """Train (unless the base), evaluate, score: one results record."""
    settings = eval_settings(work, dev, args)
    name = point_name(point)
    started = time.perf_counter()
    trained: dict[str, Any] = {}
    served = settings
    if point["n"]:
        data = draw(point["source"], point["n"], point["seed"], work, args)
        out = work / "models" / name
        change = MECHANISMS.get(point["source"].removeprefix("engine+"), {}).get("train", {})
        recipe = settings.train.model_copy(update={"seed": point["seed"], **change})
        result = train_model(
            data, base=base_model(args), out=out, settings=recipe,
            eval_settings=settings.eval, overwrite=True,
            on_progress=progress_line(name),
        )  # fmt: skip
        trained = {
            "items": result.samples,
            "steps": result.steps,
            "seconds": round(result.seconds, 1),
            "tokens_seen": result.tokens_seen,
            "first_loss": result.losses[0],
            "last_loss": result.losses[-1],
            "precision": result.manifest.get("precision"),
        }
        weights = weights_sha256(out)
        served = with_model(settings, out, f"ceiling-{name}-{weights[:12]}")
    trained_at = time.perf_counter()
    exp_dir = work / "eval" / name
    run_evaluation(served, exp_dir=exp_dir, on_status=status)
    record = {
        **point,
        "trained": trained,
        "eval_seconds": round(time.perf_counter() - trained_at, 1),
        "seconds": round(time.perf_counter() - started, 1),
        "commit": commit(),
        "command": command(),
        "scores": score(exp_dir, items),
    }
    if not args.keep_models:  # the server serves this one until the next is swapped in
        for folder in (work / "models").glob("*"):
            if folder.name != name:
                shutil.rmtree(folder, ignore_errors=True)
    return record


def status(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def rescored(records: list[dict[str, Any]], work: Path) -> list[dict[str, Any]]:
    """Each record with its scores computed again from its evaluation folder (where kept)."""
    items: dict[str, dict[str, Any]] = {}
    out = []
    for record in records:
        exp_dir = work / "eval" / point_name(record)
        if exp_dir.is_dir():
            record = {**record, "scores": score(exp_dir, items), "rescored_at": commit()}
        out.append(record)
    return out


def point_name(point: dict[str, Any]) -> str:
    return "base" if not point["n"] else f"{point['source']}_n{point['n']}_s{point['seed']}"


def progress_line(name: str) -> Any:
    """A plain progress line every 25 steps (the bench's output usually goes to a file)."""
    started = time.perf_counter()

    def report(done: int, total: int, loss: float) -> None:
        if done % 25 == 0 or done == total:
            rate = done / max(time.perf_counter() - started, 1e-9)
            eta = (total - done) / rate if rate else 0.0
            print(
                f"  {name}: step {done}/{total}, loss {loss:.4f}, {rate:.2f} steps/s, "
                f"ETA {eta / 60:.1f} min",
                file=sys.stderr,
                flush=True,
            )

    return report


def planned(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every point, the base model's first, then size by size (every source at one N before
    the next N), so a run stopped early has the sources side by side at the sizes it reached."""
    points = [{"source": "base", "n": 0, "seed": 0}]
    for size in args.sizes:
        for source in args.sources:
            n = size
            if source == "tomi-train" and n > args.tomi_train_max:
                n = args.tomi_train_max  # its last point: every balanced item
            seeds = range(args.small_seeds) if n <= 1000 else range(1)
            points += [{"source": source, "n": n, "seed": s} for s in seeds]
        if size == args.mechanism_size:
            points += [
                {"source": f"engine+{mechanism}", "n": size, "seed": s}
                for mechanism in args.mechanisms
                for s in range(args.small_seeds)
            ]
    unique = []
    for point in points:
        if point not in unique:
            unique.append(point)
    return unique


# ---- summary -----------------------------------------------------------------------------


def value(record: dict[str, Any], label: str, metric: str) -> float | None:
    """A record's headline number of ``metric`` on a set (``convention_free``: the
    belief-balanced accuracy without the items ToMi's labelling convention decides)."""
    scores = record["scores"].get(label) or {}
    if metric == "convention_free":
        scores = scores.get("belief_balanced") or {}
    entry = scores.get(metric)
    if entry is None:
        return None
    return entry.get("value", entry.get("accuracy")) if isinstance(entry, dict) else entry


def curve(records: list[dict[str, Any]], label: str, metric: str) -> dict[str, dict[int, list]]:
    """source -> N -> the metric of each seed."""
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        found = value(record, label, metric)
        if found is not None:
            out[record["source"]][record["n"]].append(found)
    return out


def equivalent_n(reference: dict[int, list[float]], target: float) -> str:
    """How many reference items reach ``target`` (log-linear between measured points)."""
    points = sorted((n, sum(v) / len(v)) for n, v in reference.items() if n)
    if not points:
        return "–"
    if target > max(m for _, m in points):
        return f"> {points[-1][0]}"
    if target <= points[0][1]:
        return f"<= {points[0][0]}"
    for (n1, m1), (n2, m2) in itertools.pairwise(points):
        if m1 < target <= m2 or m2 < target <= m1:
            share = (target - m1) / (m2 - m1)
            return f"{math.exp(math.log(n1) + share * (math.log(n2) - math.log(n1))):.0f}"
    return "–"


def render(records: list[dict[str, Any]], args: argparse.Namespace) -> str:
    """The curves per dev set and scoring, the heuristics, the data-efficiency ratio."""
    lines = [
        "ceiling: SmolLM2-135M-Instruct fine-tuned on N items of each source, scored on dev",
        f"command: {command()}",
        f"recipe: {json.dumps(RECIPE)}; points finished: {len(records)}; machine load "
        f"{machine_load()}",
        "commits of the points: " + ", ".join(sorted({r["commit"][:12] for r in records})),
    ]
    earlier = sorted({r["command"] for r in records if r.get("command")} - {command()})
    lines += [f"points also measured by: {line}" for line in earlier]
    labels = sorted({label for r in records for label in r["scores"]})
    for label in labels:
        lines += ["", f"== {label}"]
        lines += heuristic_lines(records, label)
        header = f"{'source':11} {'N':>6} {'seeds':>5}"
        for metric in METRICS:
            header += f" {metric[:16]:>22}"
        lines.append(header + f" {'margin vs best heur.':>22} {'train s':>8}")
        by_point = defaultdict(list)
        for record in records:
            if label in record["scores"]:
                by_point[(record["source"], record["n"])].append(record)
        for (source, n), group in sorted(
            by_point.items(), key=lambda kv: (kv[0][0] != "base", kv[0])
        ):
            row = f"{source:11} {n:>6} {len(group):>5}"
            for metric in METRICS:
                row += f" {spread([value(r, label, metric) for r in group]):>22}"
            margins = [r["scores"][label].get("margin") for r in group]
            row += f" {spread([m['lift'] if m else None for m in margins]):>22}"
            seconds = [r["trained"].get("seconds") for r in group if r["trained"]]
            row += f" {sum(seconds) / len(seconds):8.0f}" if seconds else f" {'–':>8}"
            lines.append(row)
        lines += efficiency_lines(records, label)
        lines += mechanism_lines(records, label)
    return "\n".join(lines) + "\n"


def mechanism_lines(records: list[dict[str, Any]], label: str) -> list[str]:
    """Each mechanism minus ``engine`` on the same seed and N: per seed, and their mean."""
    by_point = {(r["source"], r["n"], r["seed"]): r for r in records if label in r["scores"]}
    mechanisms = sorted({(src, n) for src, n, _ in by_point if src.startswith("engine+")})
    if not mechanisms:
        return []
    lines = ["mechanisms minus engine, same data seed and N (pts; mean [95% t CI over seeds])"]
    for source, n in mechanisms:
        cells = []
        for metric in ("belief_balanced", "convention_free", "story_level", "accuracy"):
            deltas = []
            for (src, size, seed), record in sorted(by_point.items()):
                base = by_point.get(("engine", size, seed))
                if (src, size) == (source, n) and base is not None:
                    mine, theirs = value(record, label, metric), value(base, label, metric)
                    if mine is not None and theirs is not None:
                        deltas.append(mine - theirs)
            per_seed = " ".join(f"{100 * d:+.1f}" for d in deltas)
            cells.append(f"{metric} {per_seed or '–'} → {signed(deltas)}")
        lines.append(f"  {source:22} N={n}: " + "; ".join(cells))
    return lines


def signed(values: list[float]) -> str:
    """A mean difference with its t interval over seeds, in points."""
    if not values:
        return "–"
    interval = mean_interval(values) if len(values) > 1 else None
    if interval is None:
        return f"{100 * values[0]:+.1f}"
    mean, low, high = interval
    return f"{100 * mean:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def spread(values: list[float | None]) -> str:
    """Mean over seeds with its t interval (or the single value), in percent."""
    found = [v for v in values if v is not None]
    if not found:
        return "–"
    interval = mean_interval(found)
    if interval is None or len(found) < 2:
        return f"{100 * found[0]:.1f}"
    mean, low, high = interval
    return f"{100 * mean:.1f} [{100 * low:.0f},{100 * high:.0f}]"


def heuristic_lines(records: list[dict[str, Any]], label: str) -> list[str]:
    """Each heuristic's scores on the set (from the base model's record: same items)."""
    base = next((r for r in records if r["source"] == "base"), None)
    if base is None or label not in base["scores"]:
        return []
    heuristics = base["scores"][label].get("heuristics") or {}
    lines = ["heuristics (same items):"]
    for name, scores in sorted(heuristics.items()):
        parts = [
            f"{metric} {100 * scores[metric]:.1f}"
            for metric in METRICS
            if scores.get(metric) is not None
        ]
        lines.append(f"  {name:18} " + ", ".join(parts))
    return lines


def efficiency_lines(records: list[dict[str, Any]], label: str) -> list[str]:
    """For engine and flywheel points: the in-distribution items that buy the same."""
    curves = curve(records, label, "belief_balanced")
    reference = curves.get("tomi-train")
    if not reference:
        return []
    lines = ["data efficiency (belief-balanced): in-distribution items buying the same"]
    for source in ("engine", "flywheel"):
        for n, values in sorted(curves.get(source, {}).items()):
            mean = sum(values) / len(values)
            ref = reference.get(n)
            ref_mean = sum(ref) / len(ref) if ref else 0.0
            share = f", {mean / ref_mean:.2f} of tomi-train at N={n}" if ref_mean else ""
            same = equivalent_n(reference, mean)
            lines.append(f"  {source:9} N={n:>6}: {100 * mean:.1f} ~ tomi-train N {same}{share}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sources", type=lambda t: t.split(","), default=list(SOURCES))
    parser.add_argument(
        "--sizes", type=lambda t: [int(p) for p in t.split(",")], default=[250, 1000, 4000, 16000]
    )
    parser.add_argument("--small-seeds", type=int, default=3, help="seeds where N <= 1000")
    parser.add_argument(
        "--mechanisms",
        type=lambda t: [m for m in t.split(",") if m],
        default=list(MECHANISMS),
        help=f"engine variants measured at --mechanism-size: {', '.join(MECHANISMS)}",
    )
    parser.add_argument("--mechanism-size", type=int, default=1000)
    parser.add_argument("--tomi-train-max", type=int, default=2688)
    parser.add_argument("--tomi-stories", type=int, default=120, help="ToMi dev stories")
    parser.add_argument("--hitom-stories", type=int, default=12, help="Hi-ToM dev stories")
    parser.add_argument("--bigtom-templates", type=int, default=25, help="BigToM dev templates")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--base-url", help="unused: fine-tuned models run on the embedded server")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument(
        "--base",
        type=Path,
        help="a Hugging Face model folder to start from (default: the bundled SmolLM2-135M); "
        "give it its own --out and --work",
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="one more vLLM server argument, repeatable (--server-arg=--gpu-memory-utilization "
        "--server-arg=0.4 leaves a GPU room to train beside the server)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ceiling")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ceiling"))
    parser.add_argument("--keep-models", action="store_true")
    parser.add_argument("--render", action="store_true", help="only rewrite the .txt")
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="score every finished point again from its evaluation folder under --work (no "
        "server, no training) and rewrite the results with today's metrics",
    )
    args = parser.parse_args()
    args.base_url = None  # every point's model is served by the embedded server
    unknown = set(args.sources) - set(SOURCES)
    if unknown:
        sys.exit(f"unknown --sources {sorted(unknown)}; known: {', '.join(SOURCES)}")
    if set(args.mechanisms) - set(MECHANISMS):
        sys.exit(f"unknown --mechanisms; known: {', '.join(MECHANISMS)}")
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi, Hi-ToM and BigToM files at {BENCHMARKS}")
    results = args.out.with_suffix(".jsonl")
    done = (
        [r for _, r in iter_jsonl(results, tolerate_partial_tail=True)] if results.exists() else []
    )
    if args.rescore:
        done = rescored(done, args.work)
        write_jsonl_atomic(results, done)
    if not args.render and not args.rescore:
        args.work.mkdir(parents=True, exist_ok=True)
        dev = dev_sets(args.work, args)
        items: dict[str, dict[str, Any]] = {}
        appender = JsonlAppender(results)
        finished = {point_name(r) for r in done}
        with shared_servers():
            for point in planned(args):
                if point_name(point) in finished:
                    continue
                print(f"point {point_name(point)}", file=sys.stderr, flush=True)
                record = run_point(point, args.work, dev, args, items)
                appender.append(record)
                done.append(record)
                atomic_write_text(args.out.with_suffix(".txt"), render(done, args))
    atomic_write_text(args.out.with_suffix(".txt"), render(done, args))
    print(render(done, args))


if __name__ == "__main__":
    main()
