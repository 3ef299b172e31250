"""Fresh GRPO prompts: new stories from the round's plan, beyond what synthesis admitted.

The engine derives an answer for as many stories as wanted, so GRPO, which needs only a prompt
and a verifiable answer, need not keep re-asking the admitted samples. The round's plan names
the generators and parameters aimed at what the model still gets wrong; its generators go on
past the stories synthesis used, the filter admits the new samples (the contamination guard
against every evaluation and held-out set included) into a training set of their own, and the
GRPO stage prompts with the admitted samples and these. They are drawn before training, so a
killed run resumes on the same prompts.
"""

from __future__ import annotations

from pathlib import Path

from tomflywheel._io import write_jsonl_atomic
from tomflywheel.artifacts import FeedbackFolder, FeedbackOutputs, GrpoPromptCounts
from tomflywheel.feedback import SynthesisPlan, fresh_samples
from tomflywheel.schema import read_samples


def fresh_candidates(
    feedback: FeedbackOutputs | None, out: Path, *, count: int, with_rationale: bool
) -> int:
    """Write about ``count`` fresh candidates of the round's plan to ``out``; how many.

    A round whose feedback made no plan (nothing to aim at) writes an empty file.
    """
    samples = []
    # the feedback stage writes its plan beside its candidates
    plan_path = FeedbackFolder(feedback.candidates.parent).plan if feedback else None
    if feedback and feedback.plan_id and plan_path and plan_path.exists():
        plan = SynthesisPlan.model_validate_json(plan_path.read_text(encoding="utf-8"))
        samples = fresh_samples(plan, count, with_rationale=with_rationale)
    return write_jsonl_atomic(out, samples)


def grpo_prompts(train_data: Path, fresh: Path, out: Path) -> tuple[Path, GrpoPromptCounts]:
    """The GRPO stage's prompts: the round's training data, then the fresh admitted samples."""
    data = list(read_samples(train_data))
    extra = list(read_samples(fresh)) if fresh.exists() else []
    write_jsonl_atomic(out, [*data, *extra])
    return out, GrpoPromptCounts(admitted=len(data), fresh=len(extra))
