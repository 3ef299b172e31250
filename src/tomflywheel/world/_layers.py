"""The world engine's sub-packages, lowest first: each may import only the ones before it.

``tests/world/test_layers.py`` walks every import with ``ast`` and fails on a forbidden
direction, so the sub-packages can never form a cycle.
"""

LAYERS = ("model", "physics", "verifiers", "language", "samples", "generators", "checks")
"""Sub-package names in their allowed import order."""

OUTSIDE = (
    "tomflywheel._cpus",
    "tomflywheel._io",
    "tomflywheel._lazy_exports",
    "tomflywheel._registry",
    "tomflywheel._rng",
    "tomflywheel.errors",
    "tomflywheel.schema",
)
"""The only other tomflywheel modules the engine may import: it knows no LLM, stage or importer."""
