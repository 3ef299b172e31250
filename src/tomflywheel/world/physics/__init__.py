"""Who perceives what: rule profiles, benchmark conventions, the percepts of every story step.

Both verifiers read these percepts; counterfactual edits patch them where they can.

May import: ``model``.
"""

from tomflywheel.world.physics._conventions import tomi_pair_override
from tomflywheel.world.physics._percept_edits import edit_percepts
from tomflywheel.world.physics._percepts import Hearing, Observation, Percept, WorldState, percepts
from tomflywheel.world.physics._profiles import PROFILES, Profile, get_profile

__all__ = [
    "PROFILES",
    "Hearing",
    "Observation",
    "Percept",
    "Profile",
    "WorldState",
    "edit_percepts",
    "get_profile",
    "percepts",
    "tomi_pair_override",
]
