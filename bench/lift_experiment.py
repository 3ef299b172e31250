"""The lift experiment: does the closed loop lift belief tracking, over data seeds and rounds?

SmolLM2-135M-Instruct (the embedded server, or ``--base-url`` for the base model). One named
configuration (``--config``; ``--set key=value`` overrides a setting and names the result
after it) runs for ``--data-seeds`` data seeds. Each data seed is its own flywheel run of the
configuration's rounds: evaluate its seed slice (ToMi *val* stories; Hi-ToM seed stories on
request), diagnose, synthesize with its own synthesis seed, admit (shortcut balance), train
(``replay``: the base model on everything admitted so far; ``continue``: the last model on the
round's new data) and measure the held-out sets before and after.

Three disjoint splits, by story, drawn once with seeded shuffles:

- **seed**: ToMi val stories not in dev (one chunk per data seed), Hi-ToM's seed third;
- **dev** (``--split dev``, where settings are chosen): the other third of ToMi val's
  stories, Hi-ToM's dev third, half of BigToM's templates, half of OpenToM's stories;
- **test** (``--split test``, read once per named configuration): ToMi test, Hi-ToM's test
  third, BigToM's other templates, OpenToM's other stories. A second test read of the same
  name is refused unless ``--force``; reads are listed in ``<out>/test_reads.jsonl``.

Held-out sets keep every question of each chosen story: ToMi (whole stories, six questions
each), Hi-ToM (whole stories, orders 0-4), BigToM forward and backward belief (each template's
false-belief story beside its true-belief twin; transfer), OpenToM coarse and fine location,
first and second order (transfer; needs its files under ``--opentom``). Each set's rows
(``lift_tables.py``) lead with what no shortcut passes: belief-balanced accuracy (the headline),
story-level and paired accuracy; then all items, targets, controls and each question type. A
row gives the base model's and the round's figure, the paired lift against the base and the
previous round with 95% intervals clustered by story, the reality-bias rate, the
true-location / first-location / last-named baselines and the best heuristic on that figure;
the mean over data seeds comes with a t interval. The script writes
``<out>/lift_<split>_<name>.json`` and ``.txt`` itself: command, commit, seeds, sizes,
configuration, wall times, training drops.

    python bench/lift_experiment.py --split dev --config default            # 3 seeds, 1 round
    python bench/lift_experiment.py --split dev --config rounds3-replay
    python bench/lift_experiment.py --split dev --config default --set budget=250
    python bench/lift_experiment.py --split test --config <the one dev chose>

Over 400 lines: the splits, the configurations and the guarded test read are one experiment.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

import yaml

from lift_tables import HeldoutSet, across_seeds, label_rows, render_rows, render_summary
from loop_settings import loop_settings
from provenance import command, commit
from tomflywheel._io import atomic_write_json, atomic_write_text, write_jsonl_atomic
from tomflywheel._rng import rng_for
from tomflywheel.artifacts import Experiment
from tomflywheel.audit import is_control
from tomflywheel.config import DEFAULT_LORA_LR, AuditSettings, EvalSettings, parse_settings
from tomflywheel.datasets import load_benchmark
from tomflywheel.flywheel import load_manifest, run_flywheel
from tomflywheel.progress import line_progress
from tomflywheel.schema import Sample

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
DIRECTIONS = ("forward", "backward")


@dataclass(frozen=True)
class Config:
    """One configuration under test: what ``--config`` names and ``--set`` overrides."""

    budget: int = 250
    epochs: float = 1.0
    steps: int = 0
    """Optimizer steps of every round's training, overriding ``epochs`` (0: epochs decide)."""
    learning_rate: float = 5e-5
    audit_margin: float = AuditSettings().margin
    rounds: int = 1
    mode: Literal["replay", "continue"] = "replay"
    """``replay``: retrain the base on everything admitted; ``continue``: the last model."""
    replay_share: float = 1.0
    """Share of earlier rounds' data in a round's training (``flywheel.replay``)."""
    answer_profile: Literal["principled", "benchmark"] = "principled"
    max_controls_per_target: float = 1.0
    """Cap on the synthesis budget for control failures, per target sample
    (``feedback.max_controls_per_target``)."""
    rationale: bool = False
    """Teach the trace's rationale before the answer (``train.rationale``)."""
    generation_max_tokens: int = EvalSettings().generation.max_tokens
    """Reply budget of every evaluation by generation (``eval.generation.max_tokens``): a model
    taught rationales needs room to reason before its ``Answer:`` line."""
    seed_items: int = 120
    """ToMi val seed items per data seed (half targets, half controls)."""
    hitom_seed_items: int = 0
    max_length: int = 640
    """Longest training sample in tokens; longer ones are dropped and counted."""
    hitom_chapters: int = 0
    """Chapters of the Hi-ToM-style stories synthesized (``feedback.generator_params``); 0: the
    generator's own 1-3. One chapter fits the 640-token training limit; three do not."""
    method: Literal["sft", "grpo", "sft-grpo"] = "sft"
    """How the round trains (``train.method``); GRPO with ``train.grpo``'s defaults."""
    grpo_beta: float = 0.0
    """GRPO's KL weight to the starting model (``train.grpo.beta``; 0: no reference model)."""
    grpo_learning_rate: float = 0.0
    """GRPO's own peak learning rate (``train.grpo.learning_rate``; 0: ``learning_rate``, which
    the SFT stage of ``sft-grpo`` keeps either way)."""
    grpo_prompts: Literal["all", "targets", "balanced"] = "all"
    """GRPO's prompts (``train.grpo.prompts``): every admitted sample, the targets only, or the
    targets and as many controls (true beliefs first)."""
    training_seed_offset: int = 0
    """Added to the data seed for ``train.seed``: the same admitted data, another data order
    (how much of a lift is the training's luck, not the data's)."""
    validation_share: float = 0.0
    """Share of the admitted stories held out for a validation loss (``train.validation_share``)."""
    early_stopping: int = 0
    """Validations without a lower loss before SFT stops (``train.early_stopping``); 0: none."""
    fresh_prompts: int = 0
    """Fresh engine stories per round for GRPO, beside the admitted (``flywheel.fresh_prompts``)."""
    curriculum: Literal["none", "orders"] = "none"
    """SFT's order within an epoch (``train.curriculum``): ``orders`` teaches world questions,
    then first-order beliefs, then second-order ones."""
    lora: bool = False
    """LoRA adapters (``train.lora``, its default rank) instead of a full fine-tune."""
    precision: Literal["auto", "fp32", "bf16-mixed"] = "fp32"
    """SFT's compute precision (``train.precision``). fp32 here, where the trainer's ``auto`` is
    bf16 autocast for SFT on a CPU with native bf16: every table recorded before
    ``default+precision=bf16-mixed`` trained in fp32, and a rerun of a configuration must
    train as its table did."""
    fused_optimizer: bool = False
    """AdamW's fused kernel (``train.fused_optimizer``, the trainer's default). Off here: every
    run recorded so far used the per-tensor kernels, and a rounding-level change in training
    moves a small model's lift as another data order does, so the tables stay comparable."""
    attention: Literal["auto", "sdpa", "eager"] = "sdpa"
    """Training's attention kernel (``train.attention``). PyTorch's fused SDPA here, which every
    recorded table trained with; the trainer's ``auto`` picks eager attention for short SFT
    examples on a CPU (the same values to rounding, and faster there)."""
    group_by: Literal["none", "story", "family"] = "none"
    """SFT's order by unit (``train.group_by``): a story's questions together, or a story and
    its true-belief twin together (a minimal pair in one batch)."""
    packing: Literal["none", "prefix"] = "none"
    """A story's questions in one packed row (``train.packing``): the same values, fewer tokens."""
    match_surface: bool = True
    """Synthesized samples take the surface of the set they answer (``feedback.match_surface``:
    line numbers, lettered options)."""
    diversity: float = 0.3
    """Share of synthesized sentences in non-benchmark phrasings (``feedback.diversity``)."""
    choice_share: float = 0.0
    """Share of open synthesized questions asked with lettered options anyway
    (``feedback.choice_share``): answer formats mixed, so that none collapses."""


STORIES = Config(
    budget=2000,
    precision="auto",
    fused_optimizer=True,
    attention="auto",
    group_by="story",
    packing="prefix",
)
"""The candidate default: today's trainer, a story's questions packed together, budget 2,000."""

CONFIGURATIONS: dict[str, Config] = {
    "default": Config(),
    "rounds3-replay": Config(rounds=3),
    "rounds3-continue": Config(rounds=3, mode="continue", replay_share=0.0),
    # Replay with the steps of round 1 (46 on data seed 0): more rounds, not more training.
    "rounds3-replay-steps46": Config(rounds=3, steps=46),
    # ... and with every round's beliefs balanced exactly (later rounds' data drifted toward
    # true-location answers within the default margin).
    "rounds3-replay-steps46-margin0": Config(rounds=3, steps=46, audit_margin=0.0),
    "budget500": Config(budget=500),
    "budget1000-margin0": Config(budget=1000, audit_margin=0.0),
    "epochs2": Config(epochs=2.0),
    "epochs3-early-stop": Config(epochs=3.0, validation_share=0.1, early_stopping=2),
    "lr2e-5": Config(learning_rate=2e-5),
    "lr1e-4": Config(learning_rate=1e-4),
    "rationale": Config(rationale=True),
    "curriculum-orders": Config(curriculum="orders"),
    "rationale-gen256": Config(rationale=True, generation_max_tokens=256),
    "hitom-seeds": Config(hitom_seed_items=100, max_length=2048),
    # Hi-ToM failures answered by one-chapter stories, inside the default length limit.
    "hitom-seeds-short": Config(hitom_seed_items=100, hitom_chapters=1),
    "grpo": Config(method="grpo"),
    "sft-grpo": Config(method="sft-grpo"),
    "sft-grpo-kl": Config(method="sft-grpo", grpo_beta=0.04),
    "sft-grpo-fresh": Config(method="sft-grpo", fresh_prompts=250),
    # GRPO after SFT on the false-belief targets only (the mix is mostly controls).
    "sft-grpo-targets": Config(method="sft-grpo", grpo_prompts="targets"),
    "sft-grpo-balanced": Config(method="sft-grpo", grpo_prompts="balanced"),
    # ... anchored: a KL penalty to the SFT model and a policy-gradient learning rate (on the
    # balanced mix at SFT's rate the policy drifted to one location heuristic or the other).
    "sft-grpo-balanced-anchored": Config(
        method="sft-grpo", grpo_prompts="balanced", grpo_beta=0.04, grpo_learning_rate=1e-5
    ),
    # The default round trained faster: LoRA at its own default rate under bf16 autocast.
    "lora-bf16": Config(lora=True, precision="bf16-mixed", learning_rate=DEFAULT_LORA_LR),
    # The trainer as it runs by default now (bf16 autocast on this CPU, fused AdamW, its own
    # attention choice), a story's questions together in packed rows, a budget in the thousands.
    "stories": STORIES,
    # ... with each false-belief story and its true-belief twin in one batch (minimal pairs).
    "pairs": replace(STORIES, group_by="family"),
    # ... with a quarter of the open questions asked with lettered options (formats mixed).
    "stories-mixed-formats": replace(STORIES, choice_share=0.25),
    # ... with examples shuffled one by one, as before (what grouping by story changes).
    "shuffled": replace(STORIES, group_by="none", packing="none"),
}
"""Named configurations; the dev split chooses among them before the test split is read."""


def configuration(name: str, sets: list[str]) -> tuple[str, Config]:
    """The named configuration with ``key=value`` overrides, and the name of the result."""
    if name not in CONFIGURATIONS:
        sys.exit(f"unknown --config {name!r}; known: {', '.join(CONFIGURATIONS)}")
    config = CONFIGURATIONS[name]
    known = {f.name for f in fields(Config)}
    hints = get_type_hints(Config)
    choices = {key: get_args(hints[key]) for key in known if get_origin(hints[key]) is Literal}
    changes: dict[str, Any] = {}
    for item in sets:
        key, _, value = item.partition("=")
        if key not in known:
            sys.exit(f"--set {item}: no setting {key!r}; settings: {', '.join(sorted(known))}")
        current = getattr(config, key)
        if isinstance(current, bool):
            changes[key] = value.lower() in ("1", "true", "yes")
        elif isinstance(current, str):
            if value not in choices[key]:
                sys.exit(f"--set {item}: {key} is one of {', '.join(choices[key])}")
            changes[key] = value
        else:
            changes[key] = type(current)(value)
    suffix = "".join(f"+{k}={v}" for k, v in sorted(changes.items()))
    return name + suffix, replace(config, **changes)


# ---- splits --------------------------------------------------------------------------------


def by_story(samples: list[Sample], purpose: str) -> list[list[Sample]]:
    """Samples grouped by story (first appearance order), the groups in a seeded order."""
    groups: dict[str, list[Sample]] = {}
    for sample in samples:
        groups.setdefault(str(sample.meta.get("story_id", sample.story)), []).append(sample)
    ordered = list(groups.values())
    rng_for("lift-split", purpose).shuffle(ordered)
    return ordered


def balanced(stories: list[list[Sample]], n: int) -> list[Sample]:
    """Whole stories' items in order until ``n // 2`` targets and ``n - n // 2`` controls."""
    wanted = {False: n // 2, True: n - n // 2}  # by is_control
    chosen = []
    for story in stories:
        for sample in story:
            if wanted[control := is_control(sample)]:
                wanted[control] -= 1
                chosen.append(sample)
        if not any(wanted.values()):
            break
    return chosen


def whole_stories(stories: list[list[Sample]], n: int) -> list[Sample]:
    """Whole stories (every order of a Hi-ToM story) until at least ``n`` items."""
    chosen: list[Sample] = []
    for story in stories:
        if len(chosen) >= n:
            break
        chosen.extend(story)
    return chosen


def bigtom_twins(templates: list[list[Sample]], n: int) -> list[Sample]:
    """Forward and backward belief of whole templates until ``n`` items: each template's
    false-belief story (a target) beside its true-belief twin (a control), so paired accuracy
    exists."""
    chosen: list[Sample] = []
    for template in templates:
        if len(chosen) >= n:
            break
        for sample in template:
            meta = sample.meta
            belief = meta.get("variable") == "belief" and meta.get("init_belief") == 0
            if belief and not meta.get("control") and meta.get("direction") in DIRECTIONS:
                chosen.append(sample)
    return chosen


def thirds(stories: list[list[Sample]]) -> tuple[list[list[Sample]], ...]:
    """Seed, dev and test thirds of a list of stories."""
    k = len(stories) // 3
    return stories[:k], stories[k : 2 * k], stories[2 * k :]


def opentom_halves(path: Path | None) -> tuple[list[list[Sample]], list[list[Sample]]] | None:
    """OpenToM's location questions by story, dev and test halves (``None``: no files)."""
    if path is None or not path.exists():
        return None
    samples = [
        s
        for s in load_benchmark("opentom", path)
        if str(s.meta.get("question_family", "")).startswith("location")
    ]
    stories = by_story(samples, "opentom")
    return stories[: len(stories) // 2], stories[len(stories) // 2 :]


def write_splits(work: Path, args: argparse.Namespace, config: Config) -> dict[str, Any]:
    """Seed files per data seed and the held-out files of ``args.split``, written once."""
    tomi = BENCHMARKS / "tomi" / "tomi_balanced_story_types"
    val = by_story(load_benchmark("tomi", tomi, split="val"), "tomi-val")
    dev_stories, pool = val[: len(val) // 3], val[len(val) // 3 :]
    hitom_seed, hitom_dev, hitom_test = thirds(
        by_story(load_benchmark("hitom", BENCHMARKS / "hitom" / "Hi-ToM_data.json"), "hitom")
    )
    bigtom = by_story(load_benchmark("bigtom", BENCHMARKS / "bigtom"), "bigtom")
    opentom = opentom_halves(args.opentom)
    half = len(bigtom) // 2
    if args.split == "dev":
        heldout = {
            "tomi_dev": whole_stories(dev_stories, args.tomi),
            "hitom_dev": whole_stories(hitom_dev, args.hitom),
            "bigtom_dev": bigtom_twins(bigtom[:half], args.bigtom),
            "opentom_dev": whole_stories(opentom[0], args.opentom_items) if opentom else [],
        }
    else:
        test = by_story(load_benchmark("tomi", tomi, split="test"), "tomi-test")
        heldout = {
            "tomi_test": whole_stories(test, args.tomi),
            "hitom_test": whole_stories(hitom_test, args.hitom),
            "bigtom_test": bigtom_twins(bigtom[half:], args.bigtom),
            "opentom_test": whole_stories(opentom[1], args.opentom_items) if opentom else [],
        }
    paths: dict[str, Any] = {"heldout": {}, "seeds": {}}
    for name, samples in heldout.items():
        if samples:  # a size of 0 (or OpenToM without its files) leaves the set out
            paths["heldout"][name] = work / "heldout" / f"{name}.jsonl"
            write_jsonl_atomic(paths["heldout"][name], samples)
    chunk = len(pool) // args.data_seeds
    for seed in range(args.data_seeds):
        files = {
            "tomi_seed": balanced(pool[seed * chunk : (seed + 1) * chunk], config.seed_items),
            "hitom_seed": whole_stories(
                hitom_seed[seed :: args.data_seeds], config.hitom_seed_items
            )
            if config.hitom_seed_items
            else [],
        }
        for name, samples in files.items():
            if samples:
                path = work / f"seed_{seed}" / f"{name}.jsonl"
                paths["seeds"].setdefault(seed, {})[name] = path
                write_jsonl_atomic(path, samples)
    paths["sizes"] = {name: len(s) for name, s in heldout.items()}
    paths["opentom"] = "absent" if opentom is None else str(args.opentom)
    return paths


# ---- settings and runs ---------------------------------------------------------------------


def settings_yaml(
    work: Path, seed: int, paths: dict[str, Any], config: Config, args: argparse.Namespace
) -> str:
    """One data seed's flywheel settings."""
    folder = work / f"seed_{seed}"
    settings = loop_settings(
        args,
        cache_path=work / "requests.sqlite",
        folder=folder,
        seeds=paths["seeds"][seed].values(),
        heldout=paths["heldout"].values(),
        runs_dir=folder,
        train_dir=folder / "train",
        feedback={
            "budget": config.budget,
            "answer_profile": config.answer_profile,
            "generator_params": {"hitom": {"chapters": [config.hitom_chapters]}}
            if config.hitom_chapters
            else {},
            "max_controls_per_target": config.max_controls_per_target,
            "seed": 100 * seed,  # each round adds one (flywheel.reseed)
            "match_surface": config.match_surface,
            "diversity": config.diversity,
            "choice_share": config.choice_share,
        },
        train={
            "method": config.method,
            "grpo": {
                "beta": config.grpo_beta,
                "prompts": config.grpo_prompts,
                "learning_rate": config.grpo_learning_rate or None,
            },
            "epochs": config.epochs,
            "steps": config.steps or None,
            "max_length": config.max_length,
            "learning_rate": config.learning_rate,
            "rationale": config.rationale,
            "seed": seed + config.training_seed_offset,
            "validation_share": config.validation_share,
            "early_stopping": config.early_stopping or None,
            "save_steps": args.save_steps,
            "fused_optimizer": config.fused_optimizer,
            "curriculum": config.curriculum,
            "lora": {"enabled": config.lora},
            "precision": config.precision,
            "attention": config.attention,
            "group_by": config.group_by,
            "packing": config.packing,
        },
        flywheel={
            "rounds": config.rounds,
            "replay": config.replay_share,
            "continue_training": config.mode == "continue",
            "fresh_prompts": config.fresh_prompts,
        },
        audit_margin=config.audit_margin,
        generation={"max_tokens": config.generation_max_tokens},
    )
    return yaml.safe_dump(settings)


def round_rows(
    run_dir: Path, k: int, held: dict[str, HeldoutSet]
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]] | None]:
    """Every held-out row of round ``k`` of one data seed's run.

    With an SFT stage measured on its own (``sft-grpo``), also its rows against the base
    (``sft``) and the final model's against it (``grpo_vs_sft``), paired on the same items.
    """
    exp = {
        "base": Experiment(run_dir / "round_1" / "heldout_before"),
        "previous": Experiment(run_dir / f"round_{k}" / "heldout_before"),
        "after": Experiment(run_dir / f"round_{k}" / "heldout_after"),
    }
    sft = run_dir / f"round_{k}" / "heldout_sft"
    stage = Experiment(sft) if sft.is_dir() else None
    rows: list[dict[str, Any]] = []
    stage_rows: dict[str, list[dict[str, Any]]] = {"sft": [], "grpo_vs_sft": []}
    for samples_path in sorted(exp["after"].root.glob("*/samples.jsonl")):
        label = samples_path.parent.name
        source = label.removesuffix("_logprob")
        if source not in held:
            held[source] = HeldoutSet.read(samples_path)
        rows.extend(label_rows(held[source], label, exp["base"], exp["previous"], exp["after"]))
        if stage is not None:
            base = exp["base"]
            stage_rows["sft"] += label_rows(held[source], label, base, base, stage)
            stage_rows["grpo_vs_sft"] += label_rows(held[source], label, stage, stage, exp["after"])
    return rows, stage_rows if stage is not None else None


def run_seed(
    work: Path, seed: int, paths: dict[str, Any], config: Config, args: argparse.Namespace
) -> dict[str, Any]:
    """One data seed: its flywheel run, then rows per round, wall times and drops."""
    settings = parse_settings(settings_yaml(work, seed, paths, config, args))
    started = time.perf_counter()
    result = run_flywheel(
        settings,
        run_dir=work / f"seed_{seed}" / "run",
        on_status=_status,
        progress=line_progress(_status),  # a line every ~30 s: training steps, held-out passes
    )
    wall = time.perf_counter() - started
    manifest = load_manifest(result.run_dir)
    held: dict[str, HeldoutSet] = {}
    rounds = []
    for summary in result.rounds:
        k = summary.round
        record = manifest.round(k)
        trained = summary.trained.as_json() if summary.trained else {}
        audit = summary.admission_audit.admitted if summary.admission_audit else None
        rows, stage_rows = round_rows(result.run_dir, k, held)
        rounds.append(
            {
                "round": k,
                "rows": rows,
                "sft_stage": stage_rows,
                "admitted": summary.filter.admitted,
                "trained": {
                    key: trained.get(key)
                    for key in (
                        "steps",
                        "samples",
                        "too_long",
                        "mix",
                        "first_loss",
                        "last_loss",
                        "first_reward",
                        "last_reward",
                        "validation",
                    )
                },
                "admission_audit": {
                    "flagged": audit.flagged if audit else [],
                    "families": audit.families if audit else {},
                },
                "seconds": {name: round(s.seconds, 1) for name, s in record.stages.items()},
            }
        )
    return {
        "seed": seed,
        "run_dir": str(result.run_dir),
        "seconds": round(wall, 1),
        "rounds": rounds,
    }


def _status(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


# ---- the guarded test read and the results -------------------------------------------------


def guard_test_read(out: Path, name: str, work: Path, seeds: list[int], force: bool) -> None:
    """Refuse a second test read of one configuration's data seeds; record this one.

    A read of data seeds not read before (the seeds a session ran out before) is allowed; so is
    resuming an unfinished read in the same work folder. Records are appended, one line each.
    """
    reads = out / "test_reads.jsonl"
    earlier = [
        json.loads(line) for line in reads.read_text(encoding="utf-8").splitlines() if line
    ] if reads.exists() else []  # fmt: skip
    mine = [r for r in earlier if r["config"] == name]
    finished = {r["work"] for r in mine if r.get("finished")}
    reported = seeds_reported(out / f"lift_test_{name}.json")
    blocking = [
        r
        for r in mine
        if not r.get("finished")  # a start record; a record without seeds read those reported
        and set(r.get("seeds", reported)) & set(seeds)
        and (r["work"] != str(work) or r["work"] in finished)
    ]
    if blocking and not force:
        sys.exit(
            f"the test split was already read for {name!r} ({blocking[0]['started']}, "
            f"{blocking[0]['work']}, data seeds {sorted(set(blocking[0].get('seeds', reported)))}"
            "): choose on dev, or pass --force to read it again"
        )
    record = {"config": name, "started": _now(), "work": str(work), "commit": commit()}
    with reads.open("a", encoding="utf-8") as handle:
        line = {**record, "seeds": seeds, "forced": bool(blocking)}
        handle.write(json.dumps(line) + "\n")


def finish_test_read(out: Path, name: str, work: Path, seeds: list[int]) -> None:
    """Mark the test read of ``name`` finished."""
    with (out / "test_reads.jsonl").open("a", encoding="utf-8") as handle:
        line = {"config": name, "finished_at": _now(), "work": str(work), "finished": True}
        handle.write(json.dumps({**line, "seeds": seeds}) + "\n")


def seeds_reported(path: Path) -> list[int]:
    """The data seeds a results file holds (none when it does not exist)."""
    if not path.exists():
        return []
    return [seed["seed"] for seed in json.loads(path.read_text(encoding="utf-8"))["seeds"]]


def with_earlier_seeds(path: Path, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` joined with the other data seeds of an earlier results file of its name.

    Used when ``--seeds`` runs some of the data seeds: the earlier file's seeds stay, each with
    the command and commit that measured it (``earlier``), and the mean covers them all. The
    configuration and the held-out sizes must match, or the seeds are not one experiment (a
    setting the earlier file predates counts as its default).
    """
    if not path.exists():
        return result
    earlier = json.loads(path.read_text(encoding="utf-8"))
    # A setting added after the earlier run kept the behaviour of its default.
    earlier["config"] = asdict(Config()) | earlier["config"]
    if earlier["config"]["precision"] == "auto":  # recorded before auto meant bf16 on a CPU
        earlier["config"]["precision"] = "fp32"
    for key in ("config", "sizes", "opentom"):
        if earlier[key] != result[key]:
            sys.exit(
                f"{path}: its {key} {earlier[key]} differs from this run's {result[key]}; "
                "write the run elsewhere (--out) or run every data seed"
            )
    mine = {seed["seed"] for seed in result["seeds"]}
    kept = [seed for seed in earlier["seeds"] if seed["seed"] not in mine]
    if not kept:
        return result
    reads = [
        *earlier.get("earlier", []),
        {key: earlier[key] for key in ("command", "commit", "finished", "seconds")}
        | {"seeds": [seed["seed"] for seed in kept]},
    ]
    seeds = sorted([*kept, *result["seeds"]], key=lambda seed: seed["seed"])
    return {
        **result,
        "earlier": reads,
        "seeds": seeds,
        "summary": last_round_summary(seeds),
        "sft_stage_summary": sft_stage_summary(seeds),
    }


def last_round_summary(seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each held-out row's lift in the last round, over the data seeds."""
    return across_seeds([seed["rounds"][-1]["rows"] for seed in seeds])


def sft_stage_summary(seeds: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]] | None:
    """The last round's SFT stage against the base, and GRPO against it, over the data seeds
    (``None`` unless every seed measured its SFT stage)."""
    stages = [seed["rounds"][-1].get("sft_stage") for seed in seeds]
    if not stages or any(stage is None for stage in stages):
        return None
    return {key: across_seeds([stage[key] for stage in stages]) for key in ("sft", "grpo_vs_sft")}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def render(result: dict[str, Any]) -> str:
    """The results table: every seed's rounds, then the mean over seeds."""
    lines = [
        f"lift experiment {result['name']} on the {result['split']} split: "
        f"{len(result['seeds'])} data seed(s), {result['config']['rounds']} round(s)",
        f"command: {result['command']}",
        f"commit: {result['commit']}; wall {result['seconds'] / 60:.1f} min; "
        f"held-out sizes {result['sizes']}; OpenToM {result['opentom']}",
        f"configuration: {json.dumps(result['config'])}",
    ]
    for read in result.get("earlier", []):
        lines.append(
            f"data seeds {read['seeds']} from an earlier read: {read['command']} "
            f"(commit {read['commit']}, finished {read['finished']})"
        )
    for seed in result["seeds"]:
        for entry in seed["rounds"]:
            trained = entry["trained"]
            lines += [
                "",
                f"== data seed {seed['seed']}, round {entry['round']}: admitted "
                f"{entry['admitted']}, trained {trained['steps']} steps on {trained['samples']} "
                f"samples ({trained['too_long']} dropped as too long); admission audit flags "
                f"{len(entry['admission_audit']['flagged'])}; stages "
                + ", ".join(f"{k} {v:.0f}s" for k, v in entry["seconds"].items()),
                *_validation_lines(trained.get("validation")),
                *render_rows(entry["rows"]),
            ]
            if entry.get("sft_stage"):
                lines += [
                    "",
                    "-- the SFT stage against the base",
                    *render_rows(entry["sft_stage"]["sft"]),
                ]
                lines += [
                    "",
                    "-- the GRPO stage against the SFT stage (base% is the SFT stage's)",
                    *render_rows(entry["sft_stage"]["grpo_vs_sft"]),
                ]
    lines += ["", f"== mean over data seeds, round {result['config']['rounds']}, vs base"]
    lines += render_summary(result["summary"])
    stages = result.get("sft_stage_summary")
    if stages:
        lines += [
            "",
            "== mean over data seeds: the SFT stage vs base",
            *render_summary(stages["sft"]),
        ]
        lines += ["", "== mean over data seeds: GRPO stage minus SFT stage (paired per seed)"]
        lines += render_summary(stages["grpo_vs_sft"])
    return "\n".join(lines) + "\n"


def _validation_lines(validation: dict[str, Any] | None) -> list[str]:
    """The training's validation losses, and the step its weights are from (none without)."""
    if not validation or not validation.get("losses"):
        return []
    losses = " ".join(f"{step}:{loss:.4f}" for step, loss in validation["losses"])
    stopped = "stopped early" if validation["stopped_early"] else "ran every step"
    return [
        f"validation loss on {validation['samples']} held-out samples (step:loss) {losses}; "
        f"{stopped}, weights of step {validation['weights_from_step']}"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", default="default", help="a named configuration")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a setting"
    )
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--force", action="store_true", help="read the test split again")
    parser.add_argument("--data-seeds", type=int, default=3, help="data seeds (N)")
    parser.add_argument(
        "--seeds",
        type=lambda text: [int(part) for part in text.split(",")],
        help="run only these of the N data seeds (comma-separated); the results file keeps "
        "the other seeds an earlier run of this configuration wrote",
    )
    parser.add_argument(
        "--tomi", type=int, default=720, help="held-out ToMi items (whole stories: 6 each)"
    )
    parser.add_argument("--hitom", type=int, default=200, help="held-out Hi-ToM items")
    parser.add_argument("--bigtom", type=int, default=200, help="held-out BigToM items")
    parser.add_argument("--opentom", type=Path, default=BENCHMARKS / "opentom")
    parser.add_argument("--opentom-items", type=int, default=200, help="held-out OpenToM items")
    parser.add_argument("--batch-size", type=int, default=8, help="samples per optimizer step")
    parser.add_argument("--micro-batch", type=int, default=4, help="samples per forward pass")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--base-url", help="serve the base model from this server")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--work", type=Path, help="work folder (resumes); default under /tmp")
    parser.add_argument(
        "--save-steps",
        type=int,
        help="checkpoint training every N steps, so a killed round resumes mid-training "
        "(train.save_steps; off by default, which keeps earlier work folders resumable)",
    )
    args = parser.parse_args()
    if not BENCHMARKS.is_dir():
        sys.exit(f"needs the public ToMi, Hi-ToM and BigToM files at {BENCHMARKS}")
    name, config = configuration(args.config, args.set)
    chosen = args.seeds or list(range(args.data_seeds))
    if not set(chosen) <= set(range(args.data_seeds)):
        sys.exit(f"--seeds {chosen}: data seeds are 0..{args.data_seeds - 1}")
    work = args.work or Path("/tmp") / "lift_experiment" / f"{args.split}_{name}"
    work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.split == "test":
        guard_test_read(args.out, name, work, chosen, args.force)
    started, checkout = time.perf_counter(), commit()  # the code that runs: edits later don't
    paths = write_splits(work, args, config)
    seeds = [run_seed(work, seed, paths, config, args) for seed in chosen]
    result = {
        "name": name,
        "split": args.split,
        "command": command(),
        "commit": checkout,
        "finished": _now(),
        "config": asdict(config),
        "data_seeds": args.data_seeds,
        "sizes": paths["sizes"],
        "opentom": paths["opentom"],
        "seconds": round(time.perf_counter() - started, 1),
        "seeds": seeds,
        "summary": last_round_summary(seeds),
        "sft_stage_summary": sft_stage_summary(seeds),
    }
    stem = args.out / f"lift_{args.split}_{name}"
    if args.seeds:
        result = with_earlier_seeds(stem.with_suffix(".json"), result)
    atomic_write_json(stem.with_suffix(".json"), result)
    atomic_write_text(stem.with_suffix(".txt"), render(result))
    if args.split == "test":
        finish_test_read(args.out, name, work, chosen)
    print(render(result))


if __name__ == "__main__":
    main()
