"""Label verification: symbolic re-derivation, naturalization evidence, free-form agreement."""

from __future__ import annotations

import re

import pytest
from tests.filter.conftest import candidate, context, sample, tomi_samples

from tomflywheel.filter import CHECKS, Evidence, Extraction, FilterSettings, SolveTrial
from tomflywheel.filter.checks import extraction_messages
from tomflywheel.llm import StructureFailure
from tomflywheel.schema import Answer, CheckStatus, Sample
from tomflywheel.world import StoryRecord, generate, read_trace


def by_type(question_type: str) -> Sample:
    return next(s for s in tomi_samples(3) if s.meta["question_type"] == question_type)


def relabel(item: Sample, gold: str) -> Sample:
    return item.model_copy(update={"answer": Answer(correct_answers=[gold])})


def naturalized(item: Sample) -> Sample:
    return item.model_copy(update={"meta": {**item.meta, "origin": "naturalized"}})


def faithful_extraction(item: Sample, *, spaced: bool = False) -> Extraction:
    """What a perfect extractor would reply for this sample's trace."""
    story, spec, _ = read_trace(item.meta["trace"])
    events = [event.model_dump() for event in StoryRecord.from_story(story).events]
    if spaced:  # an LLM writes "green bucket" and "henry" where the trace has identifiers
        for event in events:
            for key, value in event.items():
                if key not in ("type", "text") and isinstance(value, str):
                    event[key] = value.replace("_", " ").lower()
    question = {"kind": spec.kind, "subject": spec.subject, "chain": list(spec.chain)}
    if spec.kind not in ("memory", "reality", "belief"):  # not expressible: the trace's is used
        question = {"kind": "reality", "subject": spec.subject, "chain": []}
    return Extraction.model_validate({"events": events, "question": question})


def run(name: str, item, *, use_llm: bool = True, evidence=None, settings=None):
    ctx = context(settings, use_llm=use_llm, evidence=evidence or Evidence())
    return CHECKS.get(name)(candidate(item), ctx)


# --- symbolic_label -----------------------------------------------------------------------


@pytest.mark.parametrize("generator", ["tomi", "hitom", "kosinski", "tgtom"])
def test_symbolic_label_passes_every_engine_sample(generator):
    results = [run("symbolic_label", s) for s in generate(generator, n=2, seed=5)]
    assert {r.status for r in results} == {CheckStatus.PASSED}
    assert all(r.detail.startswith("both verifiers derive ") for r in results)


def test_symbolic_label_catches_a_corrupted_label():
    item = by_type("first_order_1_tom")
    result = run("symbolic_label", relabel(item, "kitchen_sink"))
    gold = item.answer.correct_answers[0]
    assert (result.reason, result.repairable) == ("label_mismatch", False)
    assert result.detail == f"derived {gold!r}, gold ['kitchen_sink']"


def test_symbolic_label_rejects_a_trace_that_does_not_read():
    item = by_type("reality")
    broken = item.model_copy(update={"meta": {**item.meta, "trace": {"story": {}, "question": {}}}})
    result = run("symbolic_label", broken)
    assert result.reason == "trace_invalid"


def test_symbolic_label_rejects_a_naturalized_sample_without_trace():
    item = sample(origin="naturalized")
    result = run("symbolic_label", item)
    assert (result.reason, result.detail) == ("trace_invalid", "naturalized sample without trace")


def test_symbolic_label_skips_free_form_samples():
    # ToMi's importer keeps its own list-shaped trace: that is not an engine trace.
    item = sample(trace=["enter_agent_0", "agent_0_moves_obj"])
    result = run("symbolic_label", item)
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "not_applicable")


# --- naturalization -----------------------------------------------------------------------


def test_naturalization_passes_a_faithful_extraction():
    item = naturalized(by_type("first_order_1_tom"))
    evidence = Evidence(extraction=faithful_extraction(item))
    result = run("naturalization", item, evidence=evidence)
    assert result.status is CheckStatus.PASSED
    assert re.fullmatch(r"\d+ events extracted; both verifiers derive '\w+'", result.detail)


@pytest.mark.parametrize("generator", ["tomi", "hitom", "kosinski", "tgtom"])
def test_naturalization_passes_faithful_extractions_of_every_generator(generator):
    # Intent, cause and common-knowledge questions (tgtom) keep the trace's question spec.
    for item in generate(generator, n=2, seed=5):
        for spaced in (False, True):
            evidence = Evidence(extraction=faithful_extraction(item, spaced=spaced))
            result = run("naturalization", naturalized(item), evidence=evidence)
            assert result.status is CheckStatus.PASSED, (item.id, spaced, result.detail)


def test_naturalization_maps_plain_names_back_to_trace_identifiers():
    item = naturalized(by_type("first_order_1_tom"))
    evidence = Evidence(extraction=faithful_extraction(item, spaced=True))
    assert run("naturalization", item, evidence=evidence).status is CheckStatus.PASSED


def test_naturalization_catches_a_story_that_lost_a_move():
    item = naturalized(by_type("reality"))
    extraction = faithful_extraction(item)
    kept = [e for e in extraction.events if e.type != "move"]
    drifted = extraction.model_copy(update={"events": kept})
    result = run("naturalization", item, evidence=Evidence(extraction=drifted))
    assert (result.reason, result.repairable) == ("naturalization_drift", True)
    story, _, _ = read_trace(item.meta["trace"])
    first = next(e.container for e in story.events if type(e).__name__ == "Place")
    assert f"derived {first!r}" in result.detail


def test_naturalization_catches_a_question_that_asks_something_else():
    item = naturalized(by_type("first_order_1_tom"))
    extraction = faithful_extraction(item)
    question = extraction.question.model_copy(update={"kind": "reality", "chain": []})
    drifted = extraction.model_copy(update={"question": question})
    result = run("naturalization", item, evidence=Evidence(extraction=drifted))
    assert result.reason == "naturalization_drift"


def test_naturalization_counts_a_failed_structured_call():
    item = naturalized(by_type("reality"))
    failure = StructureFailure("reply cut at max_tokens=64", "{", 1)
    result = run("naturalization", item, evidence=Evidence(extraction=failure))
    assert (result.reason, result.repairable) == ("extraction_failed", True)
    assert result.detail == "structured call failed after 1 tries: reply cut at max_tokens=64"


def test_naturalization_without_llm_rejects_as_unverified_by_default():
    item = naturalized(by_type("reality"))
    result = run("naturalization", item, use_llm=False)
    assert (result.reason, result.repairable) == ("label_unverified", False)


def test_naturalization_without_llm_can_admit_unverified():
    settings = FilterSettings(label={"admit_unverified": True})
    result = run(
        "naturalization", naturalized(by_type("reality")), use_llm=False, settings=settings
    )
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "no_llm")


def test_extraction_prompt_names_the_trace_identifiers():
    item = by_type("reality")
    messages = extraction_messages(item.story, item.question, item.meta["trace"])
    story, _, _ = read_trace(item.meta["trace"])
    assert all(agent in messages[0]["content"] for agent in story.agents)
    assert messages[1]["content"] == f"Story:\n{item.story}\n\nQuestion: {item.question}"


# --- solve_agreement ----------------------------------------------------------------------


def trials(*agree: bool, errors: int = 0) -> tuple[SolveTrial, ...]:
    answered = [SolveTrial(i, "basket" if ok else "box", ok) for i, ok in enumerate(agree)]
    failed = [SolveTrial(len(agree) + i, None, False, "HTTP 400: too long") for i in range(errors)]
    return tuple(answered + failed)


def test_solve_agreement_keeps_a_label_the_majority_gives():
    result = run("solve_agreement", sample(), evidence=Evidence(solves=trials(1, 1, 1, 0, 0)))
    assert result.status is CheckStatus.PASSED
    assert result.detail.startswith("judge ?: 3/5 trials agree with the label")


def test_solve_agreement_rejects_a_label_only_a_minority_gives():
    result = run("solve_agreement", sample(), evidence=Evidence(solves=trials(1, 1, 0, 0, 0)))
    assert (result.reason, result.repairable) == ("label_unconfirmed", True)
    assert result.detail.startswith("judge ?: 2/5 trials agree with the label")


def test_solve_agreement_counts_failed_trials_against_the_majority():
    # 2 agreeing of 4 answered but 5 asked: no majority of the k trials.
    result = run(
        "solve_agreement", sample(), evidence=Evidence(solves=trials(1, 1, 0, 0, errors=1))
    )
    assert result.reason == "label_unconfirmed"


def test_solve_agreement_with_every_trial_failed_is_unjudged():
    result = run("solve_agreement", sample(), evidence=Evidence(solves=trials(errors=3)))
    assert (result.reason, result.detail) == ("label_unjudged", "HTTP 400: too long")


def test_solve_agreement_skips_engine_samples():
    result = run("solve_agreement", by_type("reality"))
    assert (result.status, result.reason) == (CheckStatus.SKIPPED, "not_applicable")
