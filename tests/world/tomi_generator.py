"""The public ToMi generator's sentence and question templates and vocabulary, transcribed.

Source: ``facebookresearch/ToMi`` at commit ``be9a664`` (the commit the release archive in
``benchmarks/tomi`` comes from). Each template is kept in the generator's own ``%`` format,
so tests build their sentences exactly as the generator does. ``tomi/story.py``
``generate_story`` decides which of them a story uses; the others are defined in
``tomi/actions.py`` but never built by it (kept: the paper's data used more of them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    """One sentence template of the generator."""

    name: str
    source: str
    """Where it is: ``tomi/actions.py <Class>.__init__``."""
    text: str
    """The ``%s`` template (``NoiseAction``'s f-strings rewritten with ``%s``)."""
    reached: bool
    """``tomi/story.py generate_story`` can emit it."""


DECLARATIVE: tuple[Template, ...] = (
    # tomi/actions.py EnterAction.__init__: first entries, re-entries, the third agent.
    Template("enter", "tomi/actions.py EnterAction.__init__", "%s entered the %s.", True),
    # tomi/actions.py LocationAction.__init__, one agent: tomi/story.py enter() writes it instead
    # of EnterAction when the agent's random start location (tomi/oracle.py LocationMap) is
    # already the story's room.
    Template("located", "tomi/actions.py LocationAction.__init__", "%s is in the %s.", True),
    # tomi/actions.py LocationAction.__init__, two agents (never built by generate_story).
    Template(
        "located_pair", "tomi/actions.py LocationAction.__init__", "%s and %s are in the %s.", False
    ),
    # tomi/actions.py ObjectLocAction.__init__: the object's first container.
    Template("object", "tomi/actions.py ObjectLocAction.__init__", "The %s is in the %s.", True),
    # tomi/actions.py ExitedAction.__init__: the second agent or the mover leaves, or agent 3.
    Template("exited", "tomi/actions.py ExitedAction.__init__", "%s exited the %s.", True),
    # tomi/actions.py ExitAction.__init__: three exit wordings (the class calls
    # ``super.__init__`` and cannot be built; generate_story never uses it).
    Template("exit_0", "tomi/actions.py ExitAction.__init__", "%s exited the %s.", False),
    Template("exit_1", "tomi/actions.py ExitAction.__init__", "%s left the %s.", False),
    Template("exit_2", "tomi/actions.py ExitAction.__init__", "%s went out of the %s.", False),
    # tomi/actions.py MoveAction.__init__: the mover (agent 0) moves the object.
    Template("move", "tomi/actions.py MoveAction.__init__", "%s moved the %s to the %s.", True),
    # tomi/actions.py PeekAction.__init__ (never built by generate_story).
    Template("peek", "tomi/actions.py PeekAction.__init__", "%s looked in the %s.", False),
    # tomi/actions.py TellAction.__init__ (never built by generate_story).
    Template("tell", "tomi/actions.py TellAction.__init__", "%s told %s where the %s is.", False),
    # tomi/actions.py NoiseAction.__init__: f"{person} likes the {thing}" etc., no final period;
    # generate_story draws the thing from world.json "objects".
    Template("noise_likes", "tomi/actions.py NoiseAction.__init__", "%s likes the %s", True),
    Template("noise_dislikes", "tomi/actions.py NoiseAction.__init__", "%s dislikes the %s", True),
    Template("noise_loves", "tomi/actions.py NoiseAction.__init__", "%s loves the %s", True),
    Template("noise_hates", "tomi/actions.py NoiseAction.__init__", "%s hates the %s", True),
)
"""Every declarative (story) sentence template of the generator."""

QUESTIONS: dict[str, tuple[str, str]] = {
    # name: (source, template); the question line is "<question>\t<answer>\t1".
    "memory": ("tomi/actions.py MemoryAction.__init__", "Where was the %s at the beginning?"),
    "reality": ("tomi/actions.py RealityAction.__init__", "Where is the %s really?"),
    "first_order": ("tomi/actions.py SearchedAction.__init__", "Where will %s look for the %s?"),
    "second_order": (
        "tomi/actions.py BeliefSearchAction.__init__",
        "Where does %s think that %s searches for the %s?",
    ),
}
"""Every question template of the generator (interrogative actions)."""

TEMPLATES = {template.name: template.text for template in DECLARATIVE}

# tomi/world.json: the generator's vocabulary (world.py World draws every name from it).
AGENTS = [
    "Oliver",
    "Ethan",
    "Liam",
    "Benjamin",
    "Lucas",
    "Alexander",
    "Jacob",
    "Mason",
    "William",
    "Hunter",
    "James",
    "Logan",
    "Owen",
    "Noah",
    "Carter",
    "Nathan",
    "Jack",
    "Aiden",
    "Jackson",
    "Jayden",
    "Emma",
    "Olivia",
    "Emily",
    "Sophia",
    "Ava",
    "Chloe",
    "Charlotte",
    "Abigail",
    "Amelia",
    "Ella",
    "Hannah",
    "Isabella",
    "Aria",
    "Lily",
    "Mia",
    "Isla",
    "Avery",
    "Elizabeth",
    "Mila",
    "Evelyn",
]
CONTAINERS = [
    "box",
    "pantry",
    "bathtub",
    "envelope",
    "drawer",
    "bottle",
    "cupboard",
    "basket",
    "crate",
    "suitcase",
    "bucket",
    "container",
    "treasure_chest",
]
LOCATIONS = [
    "attic",
    "back_yard",
    "basement",
    "bathroom",
    "bedroom",
    "cellar",
    "closet",
    "crawlspace",
    "den",
    "dining_room",
    "front_yard",
    "garage",
    "garden",
    "hall",
    "hallway",
    "kitchen",
    "laundry",
    "living_room",
    "lounge",
    "master_bedroom",
    "office",
    "pantry",
    "patio",
    "playroom",
    "porch",
    "staircase",
    "study",
    "sunroom",
    "TV_room",
    "workshop",
]
OBJECTS = [
    "belt",
    "boots",
    "cap",
    "coat",
    "dress",
    "gloves",
    "hat",
    "jacket",
    "jeans",
    "pajamas",
    "pants",
    "raincoat",
    "scarf",
    "shirt",
    "shoes",
    "skirt",
    "slacks",
    "slippers",
    "socks",
    "stockings",
    "suit",
    "sweater",
    "sweatshirt",
    "t-shirt",
    "tie",
    "trousers",
    "underclothes",
    "underpants",
    "undershirt",
    "apple",
    "banana",
    "cherry",
    "grapefruit",
    "grapes",
    "lemon",
    "lime",
    "melon",
    "orange",
    "peach",
    "pear",
    "persimmon",
    "pineapple",
    "plum",
    "strawberry",
    "tangerine",
    "watermelon",
    "asparagus",
    "beans",
    "broccoli",
    "cabbage",
    "carrot",
    "celery",
    "corn",
    "cucumber",
    "eggplant",
    "green_pepper",
    "lettuce",
    "onion",
    "peas",
    "potato",
    "pumpkin",
    "radish",
    "spinach",
    "sweet_potato",
    "tomato",
    "turnip",
]


def question_line(number: int, question: str, answer: str) -> str:
    """A question line as tomi/actions.py writes it and main.py numbers it."""
    return f"{number} {question}\t{answer}\t1"
