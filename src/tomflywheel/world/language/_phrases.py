"""Sentence templates per event: the renderer picks among them, the parser compiles them all.

One table serves both directions, so anything the renderer writes parses back to the same
event. The first template of each entry is the benchmarks' own wording (ToMi, Hi-ToM, tgtom);
the others give surface diversity. Placeholders: ``{agent}``, ``{agents}`` (a name list),
``{room}``, ``{obj}``, ``{container}``, ``{speaker}``, ``{listener}``, ``{subject}``,
``{value}``; a move adds its motive clause (see :data:`MOTIVES`).
"""

from __future__ import annotations

PHRASES: dict[str, tuple[str, ...]] = {
    "enter": (
        "{agents} entered the {room}.",
        "{agents} walked into the {room}.",
        "{agents} came into the {room}.",
    ),
    "exit": (
        "{agent} exited the {room}.",
        "{agent} left the {room}.",
        "{agent} went out of the {room}.",
    ),
    "place": (
        "The {obj} is in the {container}.",
        "The {obj} is inside the {container}.",
        "The {obj} sits in the {container}.",
    ),
    "place_room": (
        "In the {room}, the {obj} is in the {container}.",
        "In the {room}, the {obj} is inside the {container}.",
    ),
    "place_by": (
        "{agent} put the {obj} in the {container}.",
        "{agent} placed the {obj} in the {container}.",
        "{agent} stored the {obj} in the {container}.",
    ),
    "place_by_room": ("In the {room}, {agent} put the {obj} in the {container}.",),
    "move": (
        "{agent} moved the {obj} to the {container}",
        "{agent} relocated the {obj} to the {container}",
        "{agent} transferred the {obj} to the {container}",
    ),
    "stay": (
        "{agent} made no movements and stayed in the {room} for 1 minute.",
        "{agent} stayed in the {room} without touching anything.",
        "{agent} waited quietly in the {room} for a minute.",
    ),
    "claim_public": (
        "{speaker} publicly claimed that the {subject} is in the {value}.",
        "{speaker} announced to everyone that the {subject} is in the {value}.",
        "{speaker} told everyone that the {subject} is in the {value}.",
    ),
    "claim_private": (
        "{speaker} privately told {listener} that the {subject} is in the {value}.",
        "{speaker} whispered to {listener} that the {subject} is in the {value}.",
        "{speaker} secretly told {listener} that the {subject} is in the {value}.",
    ),
    "claim_public_contents": (
        "{speaker} publicly claimed that the {subject} is full of {value}.",
        "{speaker} told everyone that the {subject} contains {value}.",
    ),
    "claim_private_contents": (
        "{speaker} told {listener} that the {subject} is full of {value}.",
        "{speaker} assured {listener} that the {subject} contains {value}.",
    ),
    "witness": (
        "{agent} secretly watched what happened next.",
        "Unseen by the others, {agent} watched what happened next.",
        "{agent} peeked in without anyone noticing.",
    ),
    "distract": (
        "{agent} was distracted and missed what happened next.",
        "{agent} looked away and did not see what happened next.",
        "{agent} was busy with a phone and missed what happened next.",
    ),
    "state": (
        "The {subject} is full of {value}.",
        "The {subject} is filled with {value}.",
    ),
    "state_room": (
        "In the {room}, there is a {subject} full of {value}.",
        "In the {room}, there is a {subject} filled with {value}.",
    ),
    "state_by": (
        "{agent} filled the {subject} with {value}.",
        "{agent} put {value} into the {subject}.",
    ),
    "state_by_room": ("In the {room}, {agent} filled the {subject} with {value}.",),
    "look": (
        "{agent} opened the {subject} and looked inside.",
        "{agent} looked inside the {subject}.",
        "{agent} took a look inside the {subject}.",
    ),
    "look_through": (
        "{agent} could see inside the {subject}, which is transparent.",
        "{agent} saw what was inside the transparent {subject}.",
    ),
    "read": (
        "{agent} read the label on the {subject}, which says {value}.",
        "{agent} read the label of the {subject}: it says {value}.",
    ),
    # ToMi's PeekAction (facebookresearch/ToMi tomi/actions.py): a private look at where an
    # object is. The event names the object; the sentence names the container it is in.
    "look_in": ("{agent} looked in the {container}.",),
    "look_for": ("{agent} checked where the {subject} is.",),
}
"""Templates by phrase key; the renderer maps each event to one key."""

PARSE_ONLY: dict[str, tuple[str, ...]] = {
    "claim_public": ("{speaker} publicly claimed that {subject} is in the {value}.",),
    # ToMi's LocationAction (tomi/actions.py): an agent already in the room when the story
    # starts ("enter" in tomi/story.py writes it instead of "entered" for such an agent).
    "located": ("{agent} is in the {room}.", "{agents} are in the {room}."),
    # ToMi's TellAction (tomi/actions.py): the listener learns where the object really is.
    "tell_where": ("{speaker} told {listener} where the {subject} is.",),
}
"""Benchmark wordings the parser accepts but the renderer never writes (Hi-ToM drops "the";
ToMi's agent locations and tells, whose events render in the other wordings)."""

MOTIVES: tuple[tuple[str, str, str], ...] = (
    (
        " to help {help} find it",
        " to hide it from {hide}",
        " to help {help} find it and to hide it from {hide}",
    ),
    (
        " so that {help} could find it",
        " to keep it from {hide}",
        " so that {help} could find it and to keep it from {hide}",
    ),
)
"""Motive clauses of a move: (help only, hide only, both), one triple per phrasing family."""

NOISE_PATTERNS: tuple[str, ...] = (
    # ToMi (often without a final period) and Hi-ToM.
    r"{agent} (?:likes|dislikes|loves|hates) the {mention}\.?",
    r"{agent} saw an? \w+\.",
    r"{agent} lost (?:his|her|their) \w+\.",
    # tgtom soft distractors.
    r"{agent} (?:hummed a tune|stretched their arms|thought about the weather|yawned quietly"
    r"|smiled to themselves|adjusted their sleeves|glanced at the clock|took a deep breath"
    r"|tapped their foot|cleared their throat)\.",
    # tgtom hard distractors (each names a container).
    r"{agent} noticed the {mention} was a bit dusty\.",
    r"{agent} commented on how clean the {mention} looked\.",
    r"{agent} thought the {mention} was a nice color\.",
    r"{agent} remarked that the {mention} had been there a while\.",
    r"{agent} pointed at the {mention} casually\.",
    r"{agent} mentioned liking the {mention}\.",
    r"{agent} wondered who picked the {mention}\.",
    r"{agent} admired the {mention} for a moment\.",
)
"""Regular expressions of distractor sentences (``{agent}``, ``{mention}`` are filled in)."""


def name_list(names: tuple[str, ...] | list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
