"""Word lists the generators draw from (names, rooms, containers, objects, Kosinski items)."""

from __future__ import annotations

NAMES = (
    "Abigail", "Aiden", "Amelia", "Aria", "Ava", "Avery", "Benjamin", "Carter", "Charlotte",
    "Chloe", "Elijah", "Elizabeth", "Ella", "Emily", "Emma", "Ethan", "Evelyn", "Hannah",
    "Harper", "Henry", "Isabella", "Isla", "Jack", "Jackson", "Jacob", "James", "Jayden",
    "Liam", "Lily", "Logan", "Lucas", "Mason", "Mia", "Mila", "Nathan", "Noah", "Oliver",
    "Olivia", "Owen", "Scarlett", "Sophia", "William",
)  # fmt: skip
"""First names (ToMi, Hi-ToM and tgtom use such lists)."""

ROOMS = (
    "attic", "back_yard", "basement", "bathroom", "bedroom", "cellar", "closet", "crawlspace",
    "den", "front_yard", "garage", "garden", "hall", "hallway", "kitchen", "laundry", "lounge",
    "master_bedroom", "office", "pantry", "playroom", "porch", "staircase", "study", "sunroom",
    "workshop",
)  # fmt: skip
"""Rooms where stories happen."""

GATHERING_ROOMS = ("dining_room", "lobby", "waiting_room")
"""Rooms where agents meet after the action (Hi-ToM's waiting room, tgtom's last line)."""

COLOURS = ("blue", "green", "red", "black", "orange", "purple", "silver", "yellow")
CONTAINER_NOUNS = (
    "basket", "bathtub", "bin", "bottle", "box", "bucket", "cabinet", "chest", "container",
    "crate", "cupboard", "drawer", "envelope", "pantry", "suitcase", "treasure_chest", "trunk",
)  # fmt: skip
CONTAINERS = tuple(f"{colour}_{noun}" for colour in COLOURS for noun in CONTAINER_NOUNS)
"""Containers, colour_noun style."""

OBJECTS = (
    "apple", "asparagus", "banana", "beans", "book", "boots", "cabbage", "candle", "carrot",
    "cherry", "corn", "cucumber", "eggplant", "grapefruit", "grapes", "hat", "keys", "lemon",
    "lettuce", "lime", "melon", "onion", "orange", "peach", "pear", "peas", "persimmon",
    "potato", "pumpkin", "radish", "scarf", "slippers", "spinach", "strawberry", "tangerine",
    "tomato", "turnip", "vase", "watermelon", "wallet",
)  # fmt: skip
"""Objects that get moved around."""

LIKES = ("likes", "dislikes", "loves", "hates")
"""ToMi distractor verbs."""

SOFT_DISTRACTORS = (
    "hummed a tune", "stretched their arms", "thought about the weather", "yawned quietly",
    "smiled to themselves", "adjusted their sleeves", "glanced at the clock",
    "took a deep breath", "tapped their foot", "cleared their throat",
)  # fmt: skip
"""tgtom soft distractors (``X <phrase>.``)."""

HARD_DISTRACTORS = (
    "noticed the {c} was a bit dusty", "commented on how clean the {c} looked",
    "thought the {c} was a nice color", "remarked that the {c} had been there a while",
    "pointed at the {c} casually", "mentioned liking the {c}", "wondered who picked the {c}",
    "admired the {c} for a moment",
)  # fmt: skip
"""tgtom hard distractors, each naming a container."""

HITOM_ANIMALS = ("cat", "dog", "monkey", "mouse")
HITOM_ITEMS = ("watch", "gloves", "phone")

KOSINSKI_CONTENTS = (
    ("popcorn", "chocolate", "bag"), ("beer", "wine", "bottle"), ("pens", "pencils", "box"),
    ("buttons", "coins", "jar"), ("cookies", "crackers", "tin"), ("rice", "pasta", "carton"),
    ("tea", "coffee", "canister"), ("marbles", "beads", "pouch"), ("nails", "screws", "case"),
    ("socks", "gloves", "package"),
)  # fmt: skip
"""Unexpected contents: (true contents, label, container)."""

KOSINSKI_TRANSFER = (
    ("bananas", "kitchen"), ("keys", "hall"), ("cake", "kitchen"), ("ball", "garden"),
    ("book", "study"), ("scissors", "office"), ("chocolate", "living_room"),
    ("wallet", "bedroom"),
)  # fmt: skip
"""Unexpected transfer: (object, room)."""

KOSINSKI_PLACES = (
    ("red_drawer", "yellow_drawer"), ("basket", "box"), ("cupboard", "drawer"),
    ("blue_box", "green_box"), ("shelf_box", "desk_drawer"), ("left_drawer", "right_drawer"),
)  # fmt: skip
"""Unexpected transfer: the two containers (original, new)."""
