"""Every sentence and question template of the public ToMi generator parses to the right events.

The sentences are built from the templates as transcribed in ``tests/world/tomi_generator.py``
(each with its source in ``facebookresearch/ToMi``), filled with the generator's vocabulary.
"""

from __future__ import annotations

import pytest

from tests.world.tomi_generator import (
    AGENTS,
    CONTAINERS,
    DECLARATIVE,
    LOCATIONS,
    OBJECTS,
    QUESTIONS,
    TEMPLATES,
)
from tomflywheel.errors import DataError
from tomflywheel.world.language import parse_question, parse_story, render_story
from tomflywheel.world.model import LOCATION, Claim, Enter, Exit, Look, Move, Noise, Place
from tomflywheel.world.physics import get_profile
from tomflywheel.world.verifiers import Answerer

T = TEMPLATES


def _story(*sentences: str) -> str:
    return "\n".join(f"{n} {sentence}" for n, sentence in enumerate(sentences, start=1))


def _last(*sentences: str):
    """The events of the last sentence of a story (with the sentences before as context)."""
    story = parse_story(_story(*sentences), "tomi")
    pairs = zip(story.events, story.lines, strict=True)
    return tuple(event for event, line in pairs if line == len(sentences))


ROOM, OBJ, BOX, OTHER = "TV_room", "t-shirt", "treasure_chest", "pantry"
START = (T["enter"] % ("Oliver", ROOM), T["enter"] % ("Emma", ROOM), T["object"] % (OBJ, BOX))

EXPECTED = {
    "enter": (T["enter"] % ("Oliver", ROOM), (Enter(("Oliver",), ROOM),)),
    "located": (T["located"] % ("Oliver", ROOM), (Enter(("Oliver",), ROOM),)),
    "located_pair": (
        T["located_pair"] % ("Oliver", "Emma", ROOM),
        (Enter(("Oliver", "Emma"), ROOM),),
    ),
    "object": (T["object"] % (OBJ, BOX), (Place(OBJ, BOX, ROOM),)),
    "exited": (T["exited"] % ("Emma", ROOM), (Exit("Emma", ROOM),)),
    "exit_0": (T["exit_0"] % ("Emma", ROOM), (Exit("Emma", ROOM),)),
    "exit_1": (T["exit_1"] % ("Emma", ROOM), (Exit("Emma", ROOM),)),
    "exit_2": (T["exit_2"] % ("Emma", ROOM), (Exit("Emma", ROOM),)),
    "move": (T["move"] % ("Oliver", OBJ, OTHER), (Move("Oliver", OBJ, OTHER),)),
    # A peek into the object's container is a private look at where it is.
    "peek": (T["peek"] % ("Emma", BOX), (Look("Emma", OBJ, LOCATION),)),
    # A tell is a private claim of the object's true container.
    "tell": (T["tell"] % ("Oliver", "Emma", OBJ), (Claim("Oliver", OBJ, BOX, "Emma", LOCATION),)),
    **{
        name: (T[name] % ("Emma", OBJ), (Noise(T[name] % ("Emma", OBJ), "Emma", (OBJ,)),))
        for name in ("noise_likes", "noise_dislikes", "noise_loves", "noise_hates")
    },
}


def test_every_transcribed_template_has_an_expectation():
    assert set(EXPECTED) == {template.name for template in DECLARATIVE}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_generator_sentence_parses_to_its_events(name):
    sentence, events = EXPECTED[name]
    context = START if name not in ("enter", "located", "located_pair") else ()
    assert _last(*context, sentence) == events


def test_a_peek_into_a_container_without_the_object_changes_nothing():
    # tomi/actions.py PeekAction sets beliefs only for the objects in the container.
    sentence = T["peek"] % ("Emma", OTHER)
    assert _last(*START, sentence) == (Noise(sentence, "Emma", (OTHER,)),)


def test_a_peek_sees_the_object_where_the_last_move_put_it():
    events = _last(*START, T["move"] % ("Oliver", OBJ, OTHER), T["peek"] % ("Emma", OTHER))
    assert events == (Look("Emma", OBJ, LOCATION),)


def test_a_tell_about_an_object_not_yet_placed_is_a_data_error_naming_the_line():
    with pytest.raises(DataError) as info:
        parse_story(_story(T["enter"] % ("Oliver", ROOM), T["tell"] % ("Oliver", "Emma", OBJ)))
    assert str(info.value) == (
        "<story>:2: tomi: the story has not said where the t-shirt is before this tell"
    )


@pytest.mark.parametrize("name", ["noise_likes", "noise_hates"])
def test_noise_without_its_period_does_not_swallow_the_next_sentence(name):
    # Plain text, as the 2-candidate CSV stores ToMi stories: sentences joined by spaces.
    text = f"{T['enter'] % ('Emma', ROOM)} {T[name] % ('Emma', OBJ)} {T['exited'] % ('Emma', ROOM)}"
    assert [event.type for event in parse_story(text, "tomi").events] == ["enter", "noise", "exit"]


def test_the_whole_vocabulary_parses_in_every_slot():
    # tomi/world.json: hyphens (t-shirt), capitals (TV_room), names both room and container.
    for index, obj in enumerate(OBJECTS):
        agent, other = AGENTS[index % len(AGENTS)], AGENTS[(index + 1) % len(AGENTS)]
        room = LOCATIONS[index % len(LOCATIONS)]
        first, second = CONTAINERS[index % 13], CONTAINERS[(index + 1) % 13]
        story = parse_story(
            _story(
                T["located"] % (agent, room),
                T["enter"] % (other, room),
                T["object"] % (obj, first),
                T["noise_loves"] % (other, obj),
                T["move"] % (agent, obj, second),
                T["exited"] % (other, room),
            )
        )
        assert story.events[2] == Place(obj, first, room)
        assert story.events[3] == Noise(T["noise_loves"] % (other, obj), other, (obj,))
        assert story.events[4] == Move(agent, obj, second)


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_each_generator_question_parses_to_its_spec(name):
    story = parse_story(_story(*START), "tomi")
    template = QUESTIONS[name][1]
    fill = {
        "memory": (OBJ,),
        "reality": (OBJ,),
        "first_order": ("Emma", OBJ),
        "second_order": ("Oliver", "Emma", OBJ),
    }[name]
    spec = parse_question(template % fill, "tomi", story)
    kind = {"memory": "memory", "reality": "reality"}.get(name, "belief")
    assert (spec.kind, spec.subject, spec.chain) == (kind, OBJ, fill[:-1])


def test_a_story_of_the_new_forms_renders_and_parses_back_to_the_same_events():
    story = parse_story(
        _story(
            *START,
            T["exit_1"] % ("Emma", ROOM),
            T["move"] % ("Oliver", OBJ, OTHER),
            T["peek"] % ("Emma", OTHER),
            T["tell"] % ("Oliver", "Emma", OBJ),
        )
    )
    assert parse_story(render_story(story), "tomi") == story


def test_both_verifiers_agree_on_a_peek_and_a_tell():
    # Emma left, Oliver moved the t-shirt, Emma peeked: she knows; Oliver does not know she does.
    story = parse_story(
        _story(
            *START,
            T["exited"] % ("Emma", ROOM),
            T["move"] % ("Oliver", OBJ, OTHER),
            T["peek"] % ("Emma", OTHER),
        )
    )
    specs = [
        parse_question(QUESTIONS["first_order"][1] % ("Emma", OBJ), "tomi", story),
        parse_question(QUESTIONS["second_order"][1] % ("Oliver", "Emma", OBJ), "tomi", story),
        parse_question(QUESTIONS["second_order"][1] % ("Emma", "Oliver", OBJ), "tomi", story),
    ]
    tracker, graph = Answerer(story, get_profile("tomi"), "tracker").answer_both(specs)
    assert tracker == graph == [OTHER, BOX, BOX]
