"""Imported tgtom samples as check items: 12 question types, perturbations applied."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tomflywheel.errors import DataError
from tomflywheel.schema import Sample
from tomflywheel.world.checks._item import CheckItem, Unparsed, meta_field, unparsed, with_stories
from tomflywheel.world.language import ANSWER_FORMATS
from tomflywheel.world.model import DropMove, QuestionSpec, ReplaceClaim, SetExits, SetMotive, Story


def tgtom_spec(qtype: str, record: Mapping[str, Any], obj: str) -> QuestionSpec:
    """The spec of one tgtom question record (a ``Q*`` sub-dict; Q1: one ``questions`` entry).

    Raises:
        KeyError: A field the question type needs is missing.
    """
    r = record
    if qtype == "Q0":
        return QuestionSpec("reality", obj, qtype=qtype)
    if qtype == "Q1":
        return QuestionSpec("belief", obj, chain=(r["agent"],), qtype=qtype)
    if qtype == "Q2":
        return QuestionSpec("belief", obj, chain=tuple(r["chain"]), qtype=qtype)
    if qtype == "Q3":
        return QuestionSpec(
            "intent",
            obj,
            chain=tuple(r["chain"]),
            actor=r["target_actor"],
            occurrence=r["target_occurrence"],
            qtype=qtype,
        )
    if qtype == "Q5":
        edit5 = DropMove(r["perturbed_line"])
        actor = r["perturbed_mover"]
        return QuestionSpec(
            "belief", obj, chain=(r["asked_about"],), actor=actor, edit=edit5, qtype=qtype
        )
    if qtype in ("Q6", "Q13"):
        edit6 = ReplaceClaim(r["perturbed_line"], r["counterfactual_claim"])
        if qtype == "Q6":
            return QuestionSpec(
                "belief", obj, chain=tuple(r["chain"]), actor=r["speaker"], edit=edit6, qtype=qtype
            )
        group = tuple(r["agent_set_S"])
        return QuestionSpec(
            "common_knowledge", obj, group=group, actor=r["speaker"], edit=edit6, qtype=qtype
        )
    if qtype == "Q7":
        motive = r["counterfactual_motive"]
        edit7 = SetMotive(r["perturbed_line"], motive["help_target"], motive["hide_target"])
        return QuestionSpec(
            "intent",
            obj,
            chain=tuple(r["chain"]),
            actor=r["perturbed_mover"],
            occurrence=r["perturbed_occurrence"],
            edit=edit7,
            qtype=qtype,
        )
    if qtype == "Q8":
        return QuestionSpec("cause", obj, chain=(r["agent"],), qtype=qtype)
    if qtype == "Q9":
        return QuestionSpec("common_knowledge", obj, group=tuple(r["agent_set"]), qtype=qtype)
    if qtype == "Q10":
        edit10 = SetExits(
            (
                (r["swap_agent_A"], r["swap_agent_A_new_line"]),
                (r["swap_agent_B"], r["swap_agent_B_new_line"]),
            )
        )
        return QuestionSpec("belief", obj, chain=tuple(r["chain"]), edit=edit10, qtype=qtype)
    if qtype == "Q11":
        edit11 = SetExits(((r["perturbed_agent"], r["perturbed_agent_counterfactual_exit"]),))
        group = tuple(r["agent_set_S"])
        return QuestionSpec("common_knowledge", obj, group=group, edit=edit11, qtype=qtype)
    raise KeyError(f"unknown tgtom question type {qtype!r}")


def tgtom_items(samples: Iterable[Sample]) -> Iterator[CheckItem | Unparsed]:
    """The check items of imported tgtom samples (1,812 for the 100 stories).

    Each spec is built from the question's own fields (``meta.tgtom_fields``: its chain,
    perturbation, ...), the gold is the structured one (``meta.gold``), and the story keeps the
    agent order the benchmark lists (``meta.agents``). A story that does not parse gives an
    :class:`Unparsed` record per question.

    Raises:
        DataError: A meta field is missing or lacks a key.
    """
    last: tuple[Story, Story] | None = None  # (as parsed, in the benchmark's agent order)
    for sample, parsed in with_stories(samples, "tgtom"):
        qtype = str(meta_field(sample, "question_type"))
        story_id = str(meta_field(sample, "story_id"))
        if isinstance(parsed, DataError):
            yield unparsed(sample, story_id, qtype, parsed)
            continue
        if last is None or last[0] is not parsed:
            last = (parsed, _with_agents(parsed, meta_field(sample, "agents")))
        story = last[1]
        fields = meta_field(sample, "tgtom_fields")
        try:
            spec = tgtom_spec(qtype, fields, str(meta_field(sample, "object")))
        except KeyError as err:
            raise DataError(sample.id, None, "meta.tgtom_fields", f"no {err}") from err
        kind = str(meta_field(sample, "answer_kind"))
        question = sample.question.removesuffix("\n" + ANSWER_FORMATS.get(kind, ""))
        yield CheckItem(story_id, qtype, question, story, spec, meta_field(sample, "gold"))


def _with_agents(story: Story, agents: list[str]) -> Story:
    """The story with the benchmark's agent order (the parser lists them as they act)."""
    if list(story.agents) == list(agents):
        return story
    return Story(story.events, story.lines, tuple(agents))
