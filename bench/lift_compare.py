"""The configurations measured on one split, side by side: what the choice on dev rests on.

Reads every ``lift_<split>_<name>.json`` that ``lift_experiment.py`` wrote under ``--results``
and prints, per configuration, data seed and round, the lift against the base on the parts a
choice is made on (ToMi as a whole by log-prob; its false-belief targets and controls, by
log-prob and by generation; the other held-out sets where they were measured), each seed's
paired interval, and the mean over seeds where there are several. Belief-balanced accuracy
(the mean of the false- and true-belief parts, which every rule reading no mind scores 50 on)
leads. A second table sets each
configuration against ``--against`` (the default) on the data seeds both measured: per seed, the
difference of the last rounds' lifts (the same seed slice, synthesis and held-out set, so the
difference is paired by seed), and with several seeds their mean with a t interval over seeds.
A third table, for ``sft-grpo`` runs that measured their SFT stage, gives the GRPO stage minus
that stage: the same admitted data and SFT weights, so paired item by item.
Nothing else is computed: the figures are the experiment files' own. The tables go to
``<results>/lift_<split>_comparison.txt`` under the command and commit.

    python bench/lift_compare.py --split dev
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from provenance import recorded
from tomflywheel.stats import mean_interval

ROOT = Path(__file__).resolve().parents[1]

PARTS = (
    ("tomi_{split}_logprob", "belief-balanced", "ToMi belief-bal., log-prob"),
    ("tomi_{split}", "belief-balanced", "ToMi belief-bal., generation"),
    ("tomi_{split}", "story level", "ToMi story level, generation"),
    ("tomi_{split}_logprob", "all", "ToMi all, log-prob"),
    ("tomi_{split}_logprob", "targets", "ToMi targets, log-prob"),
    ("tomi_{split}_logprob", "controls", "ToMi controls, log-prob"),
    ("tomi_{split}", "targets", "ToMi targets, generation"),
    ("tomi_{split}", "controls", "ToMi controls, generation"),
    ("hitom_{split}_logprob", "belief-balanced", "Hi-ToM belief-bal., log-prob"),
    ("hitom_{split}_logprob", "targets", "Hi-ToM targets, log-prob"),
    ("bigtom_{split}_logprob", "all", "BigToM all, log-prob"),
    ("bigtom_{split}", "paired", "BigToM paired, generation"),
)
"""(held-out set, part, column): the parts a configuration is chosen on, the belief-balanced
accuracy first (files written before it existed show "–" there)."""


def experiments(results: Path, split: str) -> list[dict[str, Any]]:
    """The experiment files of ``split``, oldest first (by the time each finished)."""
    found = []
    for path in sorted(results.glob(f"lift_{split}_*.json")):
        if path.stem.endswith("_comparison"):
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        data["file"] = path.name
        found.append(data)
    return sorted(found, key=lambda data: data.get("finished", ""))


def _cell(row: dict[str, Any] | None) -> str:
    """``+36.0 [+15.5, +55.1]`` from an experiment row's lift against the base."""
    if row is None or row.get("vs_base") is None:
        return "–"
    lift = row["vs_base"]
    return f"{100 * lift['lift']:+.1f} [{100 * lift['low']:+.1f}, {100 * lift['high']:+.1f}]"


def _steps(trained: dict[str, Any]) -> str:
    """Steps trained, and the step the weights are from when early stopping chose one."""
    validation = trained.get("validation") or {}
    best = validation.get("weights_from_step")
    steps = str(trained.get("steps", "–"))
    return f"{steps} (weights of {best})" if validation.get("early_stopping") and best else steps


def _wanted(split: str) -> list[tuple[str, str, str]]:
    return [(label.format(split=split), part, column) for label, part, column in PARTS]


def rows_of(experiment: dict[str, Any], split: str, *, stage: str | None = None) -> list[list[str]]:
    """One line per data seed and round: the configuration, seed, round, steps and the cells.

    ``stage`` (``grpo_vs_sft``): the rows of a round's SFT stage table instead, for the rounds
    that measured one.
    """
    wanted = _wanted(split)
    lines = []
    for seed in experiment["seeds"]:
        for round_ in seed["rounds"]:
            if stage is not None and not round_.get("sft_stage"):
                continue
            rows = round_["rows"] if stage is None else round_["sft_stage"][stage]
            by_part = {(row["set"], row["part"]): row for row in rows}
            lines.append(
                [
                    experiment["name"],
                    str(seed["seed"]),
                    str(round_["round"]),
                    _steps(round_.get("trained") or {}),
                    *(_cell(by_part.get((label, part))) for label, part, _ in wanted),
                ]
            )
    return lines


def mean_row(
    experiment: dict[str, Any], split: str, *, stage: str | None = None
) -> list[str] | None:
    """The last round's mean over data seeds (with its t interval), when there are several."""
    rows = experiment["summary"] if stage is None else experiment["sft_stage_summary"][stage]
    if experiment["data_seeds"] < 2 or len(experiment["seeds"]) < 2:
        return None
    summary = {(row["set"], row["part"]): row for row in rows}
    cells = []
    for label, part, _ in _wanted(split):
        row = summary.get((label, part))
        if row is None:
            cells.append("–")
            continue
        low, high = row["ci95"] or (None, None)
        interval = f" [{100 * low:+.1f}, {100 * high:+.1f}]" if low is not None else ""
        cells.append(f"{100 * row['mean']:+.1f}{interval}")
    return [experiment["name"], "mean", str(experiment["config"]["rounds"]), "", *cells]


def _last_lifts(experiment: dict[str, Any], split: str) -> dict[int, list[float | None]]:
    """Per data seed: the last round's lift against the base on each wanted part."""
    out = {}
    for seed in experiment["seeds"]:
        by_part = {(row["set"], row["part"]): row for row in seed["rounds"][-1]["rows"]}
        lifts: list[float | None] = []
        for label, part, _ in _wanted(split):
            row = by_part.get((label, part))
            lifts.append(
                None if row is None or row.get("vs_base") is None else row["vs_base"]["lift"]
            )
        out[seed["seed"]] = lifts
    return out


def against_rows(
    experiment: dict[str, Any], reference: dict[str, Any], split: str
) -> list[list[str]]:
    """Per shared data seed, the configuration's last-round lift minus the reference's; the mean
    over seeds with its t interval when there are several."""
    mine, theirs = _last_lifts(experiment, split), _last_lifts(reference, split)
    shared = sorted(set(mine) & set(theirs))
    if not shared:
        return []
    columns: list[list[float]] = [[] for _ in _wanted(split)]
    lines = []
    for seed in shared:
        cells = []
        for column, (a, b) in enumerate(zip(mine[seed], theirs[seed], strict=True)):
            if a is None or b is None:
                cells.append("–")
                continue
            columns[column].append(a - b)
            cells.append(f"{100 * (a - b):+.1f}")
        lines.append([experiment["name"], str(seed), *cells])
    if len(shared) > 1:
        cells = []
        for values in columns:
            found = mean_interval(values) if len(values) == len(shared) else None
            cells.append(
                "–"
                if found is None
                else f"{100 * found[0]:+.1f} [{100 * found[1]:+.1f}, {100 * found[2]:+.1f}]"
            )
        lines.append([experiment["name"], "mean", *cells])
    return lines


def render(table: list[list[str]], header: list[str]) -> str:
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    lines = [header, ["-" * w for w in widths], *table]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--out", type=Path, help="default: <results>/lift_<split>_comparison.txt")
    parser.add_argument(
        "--against",
        default="default+budget=250",
        help="the configuration every other one is set against, seed by seed",
    )
    args = parser.parse_args()
    out = args.out or args.results / f"lift_{args.split}_comparison.txt"
    found = experiments(args.results, args.split)
    if not found:
        raise SystemExit(f"no lift_{args.split}_*.json under {args.results}")
    header = ["configuration", "seed", "round", "steps", *(c for _, _, c in PARTS)]
    table: list[list[str]] = []
    for experiment in found:
        table += rows_of(experiment, args.split)
        mean = mean_row(experiment, args.split)
        if mean is not None:
            table.append(mean)
    title = f"lift against the base on the {args.split} split, every configuration measured"
    with recorded(out, title):
        print("percentage points; per seed: paired 95% interval clustered by story;")
        print("mean: over data seeds, last round, t interval; –: not measured")
        print(render(table, header))
        print()
        reference = next((e for e in found if e["name"] == args.against), None)
        if reference is not None:
            versus: list[list[str]] = []
            for experiment in found:
                if experiment is not reference:
                    versus += against_rows(experiment, reference, args.split)
            print(f"last round's lift minus {args.against}'s on the same data seed (pts);")
            print("mean: over the shared data seeds, t interval")
            print(render(versus, ["configuration", "seed", *(c for _, _, c in PARTS)]))
            print()
        staged = [e for e in found if e.get("sft_stage_summary")]
        if staged:
            table = []
            for experiment in staged:
                table += rows_of(experiment, args.split, stage="grpo_vs_sft")
                mean = mean_row(experiment, args.split, stage="grpo_vs_sft")
                if mean is not None:
                    table.append(mean)
            print("sft-grpo: the GRPO stage minus its own SFT stage, paired on the same items")
            print("(the same admitted data and SFT weights; 95% interval clustered by story)")
            print(render(table, header))
            print()
        for experiment in found:
            config = json.dumps(experiment["config"])
            print(
                f"{experiment['name']}: {experiment['file']}, commit {experiment['commit'][:12]}, "
                f"{experiment['data_seeds']} data seed(s), config {config}"
            )


if __name__ == "__main__":
    main()
