"""Task specs of the engine's synthetic sets and of free-form LLM stories.

They evaluate and train exactly like the benchmarks they imitate.
"""

from __future__ import annotations

from tomflywheel.datasets._hitom import NOTE as HITOM_NOTE
from tomflywheel.datasets._task import register_task
from tomflywheel.datasets._tgtom import RULES as TGTOM_RULES
from tomflywheel.tasks import TaskSpec

register_task(
    TaskSpec(
        name="tomi_synth",
        description="ToMi-style synthetic stories from the world engine (open QA)",
        prompt_kind="open",
        judge="hybrid",
        groupings=(("question_type",), ("story_type",), ("control",)),
        excludable_question_types=("memory", "reality"),
    )
)
register_task(
    TaskSpec(
        name="hitom_synth",
        description="Hi-ToM-style synthetic stories, orders 0-4, 15 options",
        prompt_kind="single_choice",
        judge="rules",
        groupings=(("order",), ("order", "deception"), ("control",)),
        instructions=HITOM_NOTE,
    )
)
register_task(
    TaskSpec(
        name="kosinski_synth",
        description="Kosinski-style unexpected contents/transfer with controls (completion)",
        prompt_kind="completion",
        judge="first_token",
        groupings=(("story_type", "variant"), ("question_type",), ("control",)),
        all_correct_by="pair_id",
        instructions="Complete the following story:",
    )
)
register_task(
    TaskSpec(
        name="tgtom_synth",
        description="tgtom-style 6-8 agent stories, all 12 question types",
        prompt_kind="open",
        judge="rules",
        groupings=(("question_type",),),
        trial_fields=("targeted", "chain_depth"),
        strict_matching=True,
        instructions=TGTOM_RULES,
    )
)
register_task(
    TaskSpec(
        name="free_form",
        description="LLM-written stories modelled on bad cases (unverified labels)",
        prompt_kind="mixed",
        judge="hybrid",
    )
)
