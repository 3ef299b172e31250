"""Rule profiles: who witnesses what, whom a listener trusts, and each benchmark's conventions.

The **principled default** (``default``): an agent believes what it witnessed, or saw on entering
a room, and nothing else it was not told by someone it has reason to trust. Precisely:

- *Witnessing.* A placement, move or state change is seen by every agent in its room, the actor
  included, except the hide target of a move (hiding is done behind their back). A secret witness
  also sees it; a distracted agent does not. Entering a room shows where everything in it is.
- *Nesting.* Those present see one another, so what they saw is common ground: A thinks B thinks
  ... thinks Z believes the value carried by the last event that A witnessed and that A could
  see B, ..., Z witness. A secret witness is invisible to the others; a distracted agent is
  still thought to have seen. Nested beliefs follow the same rule along the chain.
- *Trust.* A public claim reaches everyone but the speaker, a private tell only its listener. A
  listener adopts a claim if it never saw the fact first-hand, or if the speaker stayed in the
  fact's room after the listener last left it (so may know of a later change). Labels and notes
  (:class:`~tomflywheel.world.model.Read`) are believed only without first-hand knowledge.
  A chain is updated by a claim only when every member heard and trusts it; a speaker's own
  beliefs never change by its claim.

Benchmark profiles keep those rules and add their generator's labelling conventions:

- ``tomi``: ToMi's oracle applies the third agent's entry into the object's room *after* the
  whole story and treats both main agents as watching it (its list of room occupants keeps them
  unless the mover left). So a second-order belief between two agents becomes the final
  location when any other agent ever enters the object's room, unless a member of the pair left
  the room after the last move.
- ``hitom``: Hi-ToM's oracle for claims: a trusting listener also thinks the speaker believes its
  claim; the speaker thinks every listener believes it; every listener knows who believes a
  public claim (trust follows the exit order, which all agents know); third- and fourth-order
  beliefs never change through claims.
- ``tgtom``: the rules of the temporal-belief-graph benchmark: presence is decided by exit lines
  only (after a counterfactual edit a mover who already left does not witness its own move),
  trust is ``exit(speaker) > exit(listener)`` with no first-hand exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tomflywheel.errors import UserInputError

ProfileName = Literal["default", "tomi", "hitom", "tgtom"]
"""The named rule profiles."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Witness and trust rules, as data both verifiers read."""

    name: str
    """Registry name, stored in every trace."""
    mover_always_witnesses: bool = True
    """The actor of a placement or move sees it even when not present in the room."""
    hide_target_blind: bool = True
    """The hide target of a move does not see it."""
    entry_observes: bool = True
    """Entering a room shows the entrants (and those present) where everything in it is."""
    trust_without_firsthand: bool = True
    """A listener who never saw the fact itself adopts any claim about it."""
    hitom_claims: bool = False
    """Hi-ToM's claim conventions for second-order beliefs (see the module docstring)."""
    tomi_third_party_entry: bool = False
    """ToMi's late third-party entry convention (see the module docstring)."""


PROFILES: dict[str, Profile] = {
    "default": Profile("default"),
    "tomi": Profile("tomi", tomi_third_party_entry=True),
    "hitom": Profile("hitom", hitom_claims=True),
    "tgtom": Profile("tgtom", mover_always_witnesses=False, trust_without_firsthand=False),
}
"""Every named profile."""


def get_profile(profile: str | Profile) -> Profile:
    """The profile named ``profile`` (a :class:`Profile` passes through).

    Raises:
        ConfigError: Unknown name; the message lists the known ones.
    """
    if isinstance(profile, Profile):
        return profile
    if profile not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise UserInputError(f"unknown rule profile {profile!r} (known: {known})")
    return PROFILES[profile]
