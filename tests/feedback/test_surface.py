"""Synthesized samples take the surface of the set they answer: line numbers, answer format."""

from __future__ import annotations

from tomflywheel.audit import answer_format, is_numbered, surface_gaps, surface_profile
from tomflywheel.config import FeedbackSettings
from tomflywheel.feedback import build_plan, synthesize
from tomflywheel.feedback._surface import Surface, adopt_surface, surface_of
from tomflywheel.schema import Answer, Diagnosis, Sample
from tomflywheel.schema import ErrorCategory as C
from tomflywheel.world.generators import generate
from tomflywheel.world.samples import verify_sample


def _tomi(n: int = 3, **params) -> list[Sample]:
    return list(generate("tomi", n=n, seed=4, **params))


def _bigtom_like(i: int) -> Sample:
    return Sample(
        id=f"bigtom-{i}",
        story="Noor fills a pitcher with oat milk. A coworker swaps it for almond milk.",
        question="Does Noor believe the pitcher contains oat milk or almond milk?",
        answer=Answer(correct_answers=["oat milk"], wrong_answers=["almond milk"]),
        meta={"dataset": "bigtom", "belief": "false", "story_id": i},
    )


def test_line_numbers_come_and_go_with_the_surface_and_the_label_still_verifies():
    plain = _tomi()[0]
    assert not is_numbered(plain.story)
    numbered = adopt_surface(plain, Surface(numbered=True, answer_format="open"))
    lines = numbered.story.splitlines()
    assert is_numbered(numbered.story) and lines[0].startswith("1 ") and lines[-1][0].isdigit()
    back = adopt_surface(numbered, Surface(numbered=False, answer_format="open"))
    assert back.story == plain.story
    assert numbered.meta["surface"] == {
        "numbered": True,
        "answer_format": "open",
        "choice_share": 0,
    }
    assert verify_sample(numbered).ok and verify_sample(back).ok


def test_an_open_question_with_candidates_is_asked_with_lettered_options_where_the_set_is():
    sample = next(s for s in _tomi() if len(s.meta.get("candidates", [])) >= 2)
    assert answer_format(sample) == "open"
    choice = adopt_surface(sample, Surface(numbered=False, answer_format="choice"))
    assert answer_format(choice) == "choice"
    assert choice.answer.correct_answers == [sample.answer.correct_answers[0]]
    assert set(choice.options) == set(sample.meta["candidates"])
    assert verify_sample(choice).ok


def test_a_sample_without_candidates_stays_open():
    sample = _tomi()[0].model_copy(update={"meta": {"dataset": "tomi_synth"}})
    kept = adopt_surface(sample, Surface(numbered=False, answer_format="choice"))
    assert answer_format(kept) == "open"


def test_profiles_and_gaps_name_line_numbers_formats_and_lengths():
    numbered = surface_profile(_tomi(numbered=True))
    plain = surface_profile(_tomi())
    bigtom = surface_profile([_bigtom_like(i) for i in range(4)])
    assert numbered.numbered == 1.0 and plain.numbered == 0.0
    assert bigtom.answer_format == "choice" and plain.answer_format == "open"
    assert surface_of(bigtom) == Surface(numbered=False, answer_format="choice")
    gaps = surface_gaps(numbered, {"tomi_dev": plain, "bigtom_dev": bigtom})
    assert any(g.startswith("tomi_dev: line numbers on 0%") for g in gaps)
    assert any(
        g.startswith("bigtom_dev: 100% of its items are answered with a letter") for g in gaps
    )
    assert surface_gaps(plain, {"tomi_dev": plain}) == []


def test_the_plan_gives_each_weakness_its_sets_surface_and_synthesis_applies_it():
    diagnoses = [
        Diagnosis(
            dataset=dataset,
            sample_id=f"{dataset}-{i}",
            reason="wrong",
            method="symbolic",
            category=C.REALITY_BIAS,
            order=1,
            question_type="first_order_1_tom",
        )
        for dataset in ("tomi_dev", "bigtom_dev")
        for i in range(4)
    ]
    surfaces = {
        "tomi_dev": Surface(numbered=False, answer_format="open"),
        "bigtom_dev": Surface(numbered=False, answer_format="choice"),
    }
    tasks = {"tomi_dev": "tomi", "bigtom_dev": "bigtom"}
    settings = FeedbackSettings(budget=40, min_per_weakness=4)
    plan = build_plan(diagnoses, tasks, settings, surfaces=surfaces)
    by_set = {item.dataset: item for item in plan.items}
    assert by_set["bigtom_dev"].surface.answer_format == "choice"
    assert "answered choice" in by_set["bigtom_dev"].why
    made = synthesize(plan)
    formats = {
        dataset: {
            answer_format(s) for s in made if s.meta["lineage"]["weakness"].startswith(dataset)
        }
        for dataset in surfaces
    }
    assert formats["tomi_dev"] == {"open"}
    assert "choice" in formats["bigtom_dev"]
    assert not any(is_numbered(s.story) for s in made if s.meta["lineage"]["generator"] == "tomi")
    # Off: the generators' own surface.
    off = build_plan(
        diagnoses, tasks, settings.model_copy(update={"match_surface": False}), surfaces=surfaces
    )
    assert all(item.surface is None for item in off.items)


def test_datasets_audit_against_names_the_surface_gaps(tmp_path):
    import json

    from typer.testing import CliRunner

    from tomflywheel._io import write_jsonl_atomic
    from tomflywheel.cli import app

    data, measured = tmp_path / "train.jsonl", tmp_path / "bigtom.jsonl"
    write_jsonl_atomic(data, _tomi(numbered=True))
    write_jsonl_atomic(measured, [_bigtom_like(i) for i in range(4)])
    args = ["datasets", "audit", str(data), "--no-probe", "--against", str(measured)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "surface differs" in result.output and "answered with a letter" in result.output
    result = CliRunner().invoke(app, [*args, "--json"])
    found = json.loads(result.output)[str(data)]["surface"]
    assert found["profile"]["numbered"] == 1.0
    assert len(found["gaps"]) == 3  # line numbers, the letter, and the prompts' length


def test_a_choice_share_mixes_lettered_options_into_an_open_set_by_sample_id():
    samples = [s for s in _tomi(n=30) if len(s.meta.get("candidates", [])) >= 2]
    mixed = Surface(numbered=False, answer_format="open", choice_share=0.3)
    formats = [answer_format(adopt_surface(s, mixed)) for s in samples]
    share = formats.count("choice") / len(formats)
    assert 0.15 < share < 0.45 and set(formats) == {"open", "choice"}
    again = [answer_format(adopt_surface(s, mixed)) for s in samples]
    assert again == formats  # drawn per sample id: the same samples every time
    plain = Surface(numbered=False, answer_format="open")
    assert {answer_format(adopt_surface(s, plain)) for s in samples} == {"open"}
