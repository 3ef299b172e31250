"""How items group: the story they ask about, their question part, their belief twin."""

from __future__ import annotations

from tomflywheel.schema import Sample

_BELIEFS = ("true", "false")


def story_key(sample: Sample) -> str:
    """The story an item asks about (its cluster): ``meta.story_id``, else the story text.

    BigToM's conditions retell one template (``story_id``) in different words; ToMi and
    Hi-ToM ask several questions of the very same text.
    """
    story_id = sample.meta.get("story_id")
    if story_id is not None:
        return f"{sample.meta.get('dataset') or ''}:{story_id}"
    return sample.story


def question_part(sample: Sample) -> str | None:
    """The question type a row groups by: ToMi's type, Hi-ToM's order, BigToM's condition.

    ToMi's ``question_type`` (``first_order_1_tom``), BigToM's ``"<direction> <variable>,
    <belief> belief"``, Hi-ToM's ``"order <k>"``; ``None`` when the sample names none. These
    parts name the belief side (``_tom``, ``false belief``): a grouping for reports, not a
    feature a model sees.
    """
    meta = sample.meta
    if meta.get("question_type"):
        return str(meta["question_type"])
    if meta.get("direction") and meta.get("belief"):
        return f"{meta['direction']} {meta.get('variable')}, {meta['belief']} belief"
    if meta.get("order") is not None:
        return f"order {meta['order']}"
    return None


def twin_key(sample: Sample) -> str | None:
    """The key a false-belief item shares with its true-belief twin (``None``: no twin known).

    ``meta.twin`` (any string) when the sample names its twin itself; else BigToM's condition
    without its belief: ``bigtom:<story_id>:<init_belief>:<direction>:<variable>:<control>``
    when ``meta.belief`` is ``"true"`` or ``"false"`` (the true- and false-belief retellings of
    one template, and likewise its two control stories).
    """
    meta = sample.meta
    twin = meta.get("twin")
    if isinstance(twin, str) and twin:
        return twin
    if meta.get("belief") in _BELIEFS and meta.get("story_id") is not None:
        return (
            f"bigtom:{meta['story_id']}:{meta.get('init_belief')}:{meta.get('direction')}:"
            f"{meta.get('variable')}:{meta.get('control')}"
        )
    return None
