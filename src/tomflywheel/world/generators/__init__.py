"""Generators: the registry, the built-in generators and what each declares for the plan.

A generator yields traced samples from typed parameters, and declares the tasks it serves, the
error categories it is the fallback for, and how it aims its parameters at a weakness; the
feedback stage's plan only allocates and asks :func:`generator_for`. Adding a generator is one
new module, imported below.

May import: ``model``, ``physics``, ``verifiers``, ``language``, ``samples``.
"""

# The built-in generators register themselves on import: this block is their list.
from tomflywheel.world.generators import _hitom, _kosinski, _tgtom, _tomi  # noqa: F401
from tomflywheel.world.generators._complements import complement
from tomflywheel.world.generators._controls import control_twin, is_false_belief
from tomflywheel.world.generators._hitom import HitomParams
from tomflywheel.world.generators._kosinski import KosinskiParams
from tomflywheel.world.generators._registry import (
    GENERATORS,
    Aim,
    Generator,
    GeneratorParams,
    generate,
    generator_for,
)
from tomflywheel.world.generators._tgtom import TgtomParams
from tomflywheel.world.generators._tgtom_questions import TGTOM_QUESTION_TYPES, tgtom_questions
from tomflywheel.world.generators._tgtom_story import tgtom_story
from tomflywheel.world.generators._tomi import TomiParams
from tomflywheel.world.generators._write import available_cpus, write_generated

__all__ = [
    "GENERATORS",
    "TGTOM_QUESTION_TYPES",
    "Aim",
    "Generator",
    "GeneratorParams",
    "HitomParams",
    "KosinskiParams",
    "TgtomParams",
    "TomiParams",
    "available_cpus",
    "complement",
    "control_twin",
    "generate",
    "generator_for",
    "is_false_belief",
    "tgtom_questions",
    "tgtom_story",
    "write_generated",
]
