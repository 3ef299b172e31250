"""Every reader names file, line and byte offset of a non-UTF-8 byte; partial inputs are refused.

Each case copies only the files its importer needs into tmp_path and puts one Latin-1 byte
(``é`` as 0xE9, alone: never valid UTF-8) into one line of one of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.datasets.conftest import copy_tree, edit_lines
from tests.datasets.opentom_files import write_opentom
from tomflywheel.config import load_settings
from tomflywheel.datasets import IMPORTERS
from tomflywheel.datasets._bigtom import CONDITIONS
from tomflywheel.errors import DataError

LATIN_1 = b"\xe9"


def corrupt(path: Path, line: int) -> str:
    """Start ``line`` (1-based) with a Latin-1 byte; the message the readers must give.

    The start of a line is always a character boundary, so the byte is the first bad one even
    in Chinese text (inside a multi-byte character, the error would start one byte earlier).
    """
    lines = path.read_bytes().splitlines(keepends=True)
    offset = sum(len(before) for before in lines[: line - 1])
    lines[line - 1] = LATIN_1 + lines[line - 1]
    path.chmod(0o644)
    path.write_bytes(b"".join(lines))
    return f"{path}:{line}: not UTF-8 (byte offset {offset})"


@dataclass(frozen=True)
class Case:
    """One importer input: files copied from the benchmarks, the source given, the bad line."""

    importer: str
    copied: tuple[str, ...]
    """Paths under the benchmark folder, copied to the same place under tmp_path."""
    source: str
    """What the importer is given, under tmp_path."""
    corrupted: str
    """The file that gets the bad byte, under tmp_path."""
    line: int
    options: tuple[tuple[str, str], ...] = ()


TOMI = "tomi/tomi_balanced_story_types/fb_all_test"
BIGTOM_FIRST = f"bigtom/conditions/{CONDITIONS[0]}/stories.csv"
CASES = [
    Case("tomi", (f"{TOMI}.txt", f"{TOMI}.trace"), f"{TOMI}.txt", f"{TOMI}.txt", 2),
    Case("tomi", (f"{TOMI}.txt", f"{TOMI}.trace"), f"{TOMI}.txt", f"{TOMI}.trace", 3),
    Case(
        "tomi_2cand", ("tomi/ToMi-finalNeuralTOM.csv",), "tomi", "tomi/ToMi-finalNeuralTOM.csv", 3
    ),
    Case("bigtom", ("bigtom/conditions",), "bigtom", BIGTOM_FIRST, 2),
    Case("bigtom", ("bigtom/bigtom.csv",), "bigtom/bigtom.csv", "bigtom/bigtom.csv", 2),
    Case("hitom", ("hitom/Hi-ToM_data.json",), "hitom", "hitom/Hi-ToM_data.json", 5),
    Case(
        "tombench",
        ("tombench/data",),
        "tombench",
        "tombench/data/False Belief Task.jsonl",
        2,
        (("language", "zh"),),
    ),
    Case(
        "socialiqa",
        ("socialiqa/dev.jsonl", "socialiqa/dev-labels.lst"),
        "socialiqa",
        "socialiqa/dev.jsonl",
        2,
    ),
    Case(
        "socialiqa",
        ("socialiqa/dev.jsonl", "socialiqa/dev-labels.lst"),
        "socialiqa",
        "socialiqa/dev-labels.lst",
        4,
    ),
    Case(
        "fantom",
        ("fantom/fantom_v1.first2sets.json",),
        "fantom",
        "fantom/fantom_v1.first2sets.json",
        3,
    ),
    Case(
        "kosinski",
        ("kosinski_tom/ToM_tasks.json",),
        "kosinski_tom",
        "kosinski_tom/ToM_tasks.json",
        3,
    ),
    Case(
        "adv_csfb",
        ("kosinski_tom/adv_csfb",),
        "kosinski_tom/adv_csfb",
        "kosinski_tom/adv_csfb/unexpected_transfer.jsonl",
        2,
    ),
    Case("tgtom", ("tgtom",), "tgtom", "tgtom/causal_beliefs_v10.jsonl", 2),
    Case("emobench_eu", ("emobench/data/EU.jsonl",), "emobench", "emobench/data/EU.jsonl", 2),
    Case("emobench_ea", ("emobench/data/EA.jsonl",), "emobench", "emobench/data/EA.jsonl", 2),
]


def _case_id(case: Case) -> str:
    return f"{case.importer}-{Path(case.corrupted).name}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_latin_1_byte_is_named_by_file_line_and_offset(case, benchmarks, tmp_path, fails_cleanly):
    for copied in case.copied:
        copy_tree(benchmarks / copied, tmp_path / copied)
    expected = corrupt(tmp_path / case.corrupted, case.line)
    error = fails_cleanly(case.importer, tmp_path / case.source, **dict(case.options))
    assert str(error) == expected


def test_a_latin_1_byte_in_an_opentom_file(tmp_path, fails_cleanly):
    folder = write_opentom(tmp_path / "opentom_data")
    expected = corrupt(folder / "meta_data.json", 4)
    assert str(fails_cleanly("opentom", folder)) == expected


MAPPING = """\
name: toy_bench
fields: {story: context, question: q, correct: gold}
"""


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_a_latin_1_byte_in_mapped_data(suffix, tmp_path, fails_cleanly):
    mapping = tmp_path / "map.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    data = tmp_path / f"data.{suffix}"
    if suffix == "jsonl":
        rows = [{"context": f"Story {i}.", "q": "Where?", "gold": "box"} for i in range(3)]
        data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    else:
        data.write_text("context,q,gold\nStory 1.,Where?,box\nStory 2.,Where?,box\n", "utf-8")
    expected = corrupt(data, 2)
    assert str(fails_cleanly("mapping", data, mapping=mapping)) == expected


def test_a_latin_1_byte_in_the_mapping_file(tmp_path, fails_cleanly):
    mapping = tmp_path / "map.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    data = tmp_path / "data.jsonl"
    data.write_text('{"context": "S.", "q": "Where?", "gold": "box"}\n', encoding="utf-8")
    expected = corrupt(mapping, 2)
    assert str(fails_cleanly("mapping", data, mapping=mapping)) == expected


def test_a_latin_1_byte_in_a_config_file(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("server: external\nllm:\n  model: caf\n", encoding="utf-8")
    expected = corrupt(config, 3)
    with pytest.raises(DataError) as info:
        load_settings(config)
    assert str(info.value) == expected


SENTENCE_RECORDS = {
    "sentences": {
        "sentences": ["The cat sat.", "The cat sit."],
        "completions": [" sat.", " sit."],
        "label": 0,
        "UID": "agreement",
    },
    "blimp": {"sentence_good": "A b.", "sentence_bad": "B a.", "UID": "x", "pair_id": 0},
    "ewok": {
        "Domain": "social-properties",
        "ContextType": "short",
        "ContextDiff": "antonym",
        "TargetDiff": "property",
        "Context1": "Ali is kind.",
        "Context2": "Ali is cruel.",
        "Target1": "Ali helps.",
        "Target2": "Ali hurts.",
    },
    "entity_tracking": {"input_prefix": "Box 0 contains", "options": [" a.", " b."], "numops": 0},
}


@pytest.mark.parametrize("importer", sorted(SENTENCE_RECORDS))
def test_a_latin_1_byte_in_a_sentence_task_file(importer, tmp_path, fails_cleanly):
    data = tmp_path / "regular.jsonl"
    data.write_text((json.dumps(SENTENCE_RECORDS[importer]) + "\n") * 2, encoding="utf-8")
    expected = corrupt(data, 2)
    assert str(fails_cleanly(importer, data)) == expected


def test_every_importer_has_a_latin_1_case():
    covered = {case.importer for case in CASES} | {"opentom", "mapping", *SENTENCE_RECORDS}
    assert covered == set(IMPORTERS.names())


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tomflywheel", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        env={**os.environ, "COLUMNS": "400"},
    )


def test_the_cli_names_a_latin_1_byte_without_a_traceback(benchmarks, tmp_path):
    folder = tmp_path / "tomi"
    folder.mkdir()
    for suffix in (".txt", ".trace"):
        shutil.copyfile(benchmarks / f"{TOMI}{suffix}", folder / f"fb_all_test{suffix}")
    expected = corrupt(folder / "fb_all_test.trace", 7)
    result = _cli("datasets", "import", "tomi", str(folder), cwd=tmp_path)
    assert result.returncode == 1
    assert f"error: {expected}" in result.stderr
    assert "Traceback" not in result.stderr and "UnicodeDecodeError" not in result.stderr
    assert not (tmp_path / "datasets").exists()


def test_the_cli_names_a_latin_1_byte_in_the_config(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("server: external\nllm:\n  model: caf\n", encoding="utf-8")
    expected = corrupt(config, 3)
    result = _cli("eval", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 1
    assert f"error: {expected}" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_empty_bigtom_condition_is_refused(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "bigtom" / "conditions", tmp_path / "conditions")
    path = folder / "1_backward_belief_false_control" / "stories.csv"
    path.write_text("", encoding="utf-8")
    assert str(fails_cleanly("bigtom", folder)) == f"{path}: 0 stories, expected 200"


def test_a_short_bigtom_template_is_refused(benchmarks, tmp_path, fails_cleanly):
    path = copy_tree(benchmarks / "bigtom" / "bigtom.csv", tmp_path / "bigtom.csv")
    edit_lines(path, lambda lines: lines[:150])
    assert str(fails_cleanly("bigtom", path)) == f"{path}: 150 stories, expected 200"


def test_a_blank_bigtom_story_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "bigtom" / "conditions", tmp_path / "conditions")
    path = folder / CONDITIONS[3] / "stories.csv"
    edit_lines(path, lambda lines: [*lines[:6], " ;" + lines[6].split(";", 1)[1], *lines[7:]])
    assert str(fails_cleanly("bigtom", folder)) == f"{path}:7: story: empty"


def test_a_blank_bigtom_question_is_named(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "bigtom" / "conditions", tmp_path / "conditions")
    path = folder / CONDITIONS[0] / "stories.csv"

    def blank_question(lines: list[str]) -> list[str]:
        story, _, *answers = lines[1].split(";")
        return [lines[0], ";".join([story, "", *answers]), *lines[2:]]

    edit_lines(path, blank_question)
    assert str(fails_cleanly("bigtom", folder)) == f"{path}:2: question: empty"


def test_a_blank_mapped_story_names_the_source_field(tmp_path, fails_cleanly):
    mapping = tmp_path / "map.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    data = tmp_path / "data.csv"
    data.write_text("context,q,gold\nStory 1.,Where?,box\n  ,Where?,box\n", encoding="utf-8")
    assert str(fails_cleanly("mapping", data, mapping=mapping)) == f"{data}:3: context: empty"


def test_a_blank_mapped_question_names_the_source_field(tmp_path, fails_cleanly):
    mapping = tmp_path / "map.yaml"
    mapping.write_text(MAPPING, encoding="utf-8")
    data = tmp_path / "data.jsonl"
    data.write_text('{"context": "S.", "q": " ", "gold": "box"}\n', encoding="utf-8")
    assert str(fails_cleanly("mapping", data, mapping=mapping)) == f"{data}:1: q: empty"


def test_an_empty_tombench_task_file_beside_good_ones_is_refused(
    benchmarks, tmp_path, fails_cleanly
):
    folder = copy_tree(benchmarks / "tombench" / "data", tmp_path / "data")
    path = folder / "Hidden Emotions.jsonl"
    path.write_text("\n", encoding="utf-8")
    message = f"{path}: no records (every ToMBench task file has some)"
    assert str(fails_cleanly("tombench", folder)) == message


def test_an_empty_adv_csfb_file_is_refused(benchmarks, tmp_path, fails_cleanly):
    folder = copy_tree(benchmarks / "kosinski_tom" / "adv_csfb", tmp_path / "adv_csfb")
    path = folder / "unexpected_contents.jsonl"
    path.write_text("", encoding="utf-8")
    message = f"{path}: no records (both Adv-CSFB files have stories)"
    assert str(fails_cleanly("adv_csfb", folder)) == message
