"""``world check tomi`` on a file in the generator's format holding every newly supported form.

The stories are written from the generator's templates (``tests/world/tomi_generator.py``),
six questions each in ``tomi/story.py`` ``generate_story``'s order; the golds are what ToMi's
oracle (``tomi/oracle.py``, updated by each ``tomi/actions.py`` action) answers, worked out in
the comments. One story holds a sentence no template writes: it is counted as unparsed, with
its line, and the others are checked.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.world.tomi_generator import QUESTIONS, TEMPLATES, question_line
from tomflywheel.cli import app
from tomflywheel.datasets import load_all_splits, load_benchmark
from tomflywheel.world.checks import check_samples

T = TEMPLATES
Q = {name: template for name, (_, template) in QUESTIONS.items()}
UNKNOWN = "Oliver juggled three torches."


def _questions(obj: str, mover: str, other: str, golds: tuple[str, ...], labels: tuple[str, ...]):
    """The six (question, gold, trace type) of a story, in generate_story's order."""
    texts = (
        Q["memory"] % obj,
        Q["first_order"] % (mover, obj),
        Q["second_order"] % (mover, other, obj),
        Q["reality"] % obj,
        Q["first_order"] % (other, obj),
        Q["second_order"] % (other, mover, obj),
    )
    return list(zip(texts, golds, labels, strict=True))


def _labels(tom: tuple[bool, bool, bool, bool]) -> tuple[str, ...]:
    """Trace question types; the mover entered first, so its questions are ``_0``."""
    fo0, so0, fo1, so1 = (("tom" if t else "no_tom") for t in tom)
    return (
        "memory",
        f"first_order_0_{fo0}",
        f"second_order_0_{so0}",
        "reality",
        f"first_order_1_{fo1}",
        f"second_order_1_{so1}",
    )


STORIES = [
    # A: the mover was in the room from the start (tomi/story.py enter() -> LocationAction).
    # Emma leaves before the move: she and Oliver's model of her keep the treasure_chest.
    (
        [
            T["located"] % ("Oliver", "TV_room"),
            T["enter"] % ("Emma", "TV_room"),
            T["object"] % ("t-shirt", "treasure_chest"),
            T["exited"] % ("Emma", "TV_room"),
            T["move"] % ("Oliver", "t-shirt", "pantry"),
            T["enter"] % ("Mia", "garage"),
        ],
        _questions(
            "t-shirt",
            "Oliver",
            "Emma",
            (
                "treasure_chest",
                "pantry",
                "treasure_chest",
                "pantry",
                "treasure_chest",
                "treasure_chest",
            ),
            _labels((False, True, True, True)),
        ),
        "false_belief",
    ),
    # B: the second agent was there from the start and sees the move; a third agent enters.
    (
        [
            T["enter"] % ("Oliver", "living_room"),
            T["located"] % ("Emma", "living_room"),
            T["object"] % ("sweet_potato", "crate"),
            T["noise_likes"] % ("Emma", "t-shirt"),
            T["move"] % ("Oliver", "sweet_potato", "suitcase"),
            T["exit_1"] % ("Emma", "living_room"),
            T["enter"] % ("Mia", "living_room"),
            T["exit_2"] % ("Mia", "living_room"),
        ],
        _questions(
            "sweet_potato",
            "Oliver",
            "Emma",
            ("crate", "suitcase", "suitcase", "suitcase", "suitcase", "suitcase"),
            _labels((False, False, False, False)),
        ),
        "true_belief",
    ),
    # C: both there from the start; Emma, away during the move, peeks into the new container:
    # PeekAction sets her own belief only (nobody sees her look).
    (
        [
            T["located_pair"] % ("Oliver", "Emma", "den"),
            T["object"] % ("green_pepper", "bucket"),
            T["exited"] % ("Emma", "den"),
            T["move"] % ("Oliver", "green_pepper", "basket"),
            T["peek"] % ("Emma", "basket"),
        ],
        _questions(
            "green_pepper",
            "Oliver",
            "Emma",
            ("bucket", "basket", "bucket", "basket", "basket", "bucket"),
            _labels((False, True, False, True)),
        ),
        "false_belief",
    ),
    # D: a story with a sentence no generator template writes.
    (
        [
            T["enter"] % ("Oliver", "den"),
            T["enter"] % ("Emma", "den"),
            UNKNOWN,
            T["object"] % ("lime", "bucket"),
            T["move"] % ("Oliver", "lime", "basket"),
        ],
        _questions(
            "lime",
            "Oliver",
            "Emma",
            ("bucket", "basket", "basket", "basket", "basket", "basket"),
            _labels((False, False, False, False)),
        ),
        "true_belief",
    ),
    # E: Emma peeks into the container the lime has left: PeekAction changes no belief.
    (
        [
            T["enter"] % ("Oliver", "den"),
            T["enter"] % ("Emma", "den"),
            T["object"] % ("lime", "bucket"),
            T["exited"] % ("Emma", "den"),
            T["move"] % ("Oliver", "lime", "basket"),
            T["peek"] % ("Emma", "bucket"),
        ],
        _questions(
            "lime",
            "Oliver",
            "Emma",
            ("bucket", "basket", "bucket", "basket", "bucket", "bucket"),
            _labels((False, True, True, True)),
        ),
        "false_belief",
    ),
    # F: Oliver tells Emma where the lime is: TellAction sets her belief and her model of
    # Oliver's to the basket. The engine's claim rules give her belief but not her model of
    # Oliver (a speaker's beliefs do not change through its claim): the one known mismatch.
    (
        [
            T["enter"] % ("Oliver", "den"),
            T["enter"] % ("Emma", "den"),
            T["object"] % ("lime", "bucket"),
            T["exited"] % ("Emma", "den"),
            T["move"] % ("Oliver", "lime", "basket"),
            T["tell"] % ("Oliver", "Emma", "lime"),
        ],
        _questions(
            "lime",
            "Oliver",
            "Emma",
            ("bucket", "basket", "bucket", "basket", "basket", "basket"),
            _labels((False, True, False, False)),
        ),
        "false_belief",
    ),
]


def write_tomi(folder: Path, stories: list, split: str = "test") -> Path:
    """Write ``<split>.txt`` and ``<split>.trace`` as tomi's main.py does (generator naming)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    traces: list[str] = []
    for sentences, questions, story_type in stories:
        for question, gold, qtype in questions:
            lines += [f"{n} {s}" for n, s in enumerate(sentences, start=1)]
            lines.append(question_line(len(sentences) + 1, question, gold))
            traces.append(f"enter_agent_0,enter_agent_1,agent_0_moves_obj,{qtype},{story_type}")
    (folder / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / f"{split}.trace").write_text("\n".join(traces) + "\n", encoding="utf-8")
    return folder


def test_the_check_counts_the_unknown_story_as_unparsed_and_checks_the_rest(tmp_path):
    samples = load_benchmark("tomi", write_tomi(tmp_path / "gen", STORIES))
    assert len(samples) == 36  # the importer reads every form
    report = check_samples("tomi", samples)
    assert (report.questions, report.total, len(report.unparsed)) == (36, 30, 6)
    assert (report.agree, len(report.mismatches)) == (29, 1)
    assert report.verifier_disagreements == ()
    # Story D (questions 18-23): its third line. Before it: A (6 examples of 7 lines), B (6 of
    # 9), C (6 of 6): 132 lines; D's examples are 6 lines each.
    assert [record.sample_id for record in report.unparsed] == [
        f"tomi-test-{index:06d}" for index in range(18, 24)
    ]
    first = report.unparsed[0]
    assert (first.line, first.source_line) == (3, 135)
    assert first.reason == f"tomi: cannot parse {UNKNOWN!r}"
    assert (tmp_path / "gen" / "test.txt").read_text().splitlines()[134] == f"3 {UNKNOWN}"
    assert [record.source_line for record in report.unparsed] == [135 + 6 * k for k in range(6)]
    rows = {row.qtype: (row.agree, row.total, row.unparsed) for row in report.rows}
    assert rows["memory"] == (5, 5, 1)
    assert sum(row.unparsed for row in report.rows) == 6
    (mismatch,) = report.mismatches
    assert (mismatch.story_id, mismatch.gold, mismatch.derived) == (
        "tomi-test-000035",
        "basket",
        "bucket",
    )
    assert mismatch.cause.startswith("tell: Oliver told Emma where the lime is (line 6)")


def test_without_the_unknown_story_every_gold_agrees(tmp_path):
    stories = [story for story in STORIES if UNKNOWN not in story[0]][:-1]  # no tell either
    report = check_samples("tomi", load_all_splits("tomi", write_tomi(tmp_path / "g", stories)))
    assert (report.total, report.agree, report.unparsed) == (24, 24, ())


runner = CliRunner()


def test_the_cli_lists_the_unparsed_story_and_counts_it_toward_the_threshold(tmp_path):
    folder = str(write_tomi(tmp_path / "gen", STORIES))
    result = runner.invoke(app, ["world", "check", "tomi", folder])
    assert result.exit_code == 1, result.output
    assert "36 questions: 30 parsed, 6 unparsed; 29 agreeing, 1 disagreeing" in result.output
    assert (
        "unparsed tomi-test-000018 and the next 5 (same line and reason), story line 3 (file "
        f"line 135): tomi: cannot parse {UNKNOWN!r}" in " ".join(result.output.split())
    )
    # 1 mismatch + 6 unparsed questions.
    assert runner.invoke(app, ["world", "check", "tomi", folder, "--max-mismatches", "6"]).exit_code
    ok = runner.invoke(app, ["world", "check", "tomi", folder, "--max-mismatches", "7"])
    assert ok.exit_code == 0, ok.output


def test_a_run_where_nothing_parses_never_exits_0(tmp_path):
    unknown = [([UNKNOWN, *STORIES[3][0][3:]], STORIES[3][1], STORIES[3][2])]
    folder = str(write_tomi(tmp_path / "bad", unknown))
    result = runner.invoke(app, ["world", "check", "tomi", folder, "--max-mismatches", "1000"])
    assert result.exit_code == 1
    assert "6 questions: 0 parsed, 6 unparsed; 0 agreeing, 0 disagreeing" in result.output
