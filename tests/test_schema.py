import pytest
from pydantic import ValidationError

from tomflywheel.schema import QAKind, Sample


def _make(correct, wrong):
    return Sample.model_validate(
        {
            "id": "x",
            "story": "s",
            "question": "q",
            "answer": {"correct_answers": correct, "wrong_answers": wrong},
        }
    )


@pytest.mark.parametrize(
    ("correct", "wrong", "kind"),
    [
        (["box"], [], QAKind.OPEN),
        (["box"], ["basket"], QAKind.SINGLE_CHOICE),
        (["box", "crate"], ["basket"], QAKind.MULTI_CHOICE),
        # Several acceptable phrasings with no wrong options is still open QA.
        (["green_bucket", "green bucket"], [], QAKind.OPEN),
    ],
)
def test_kind_is_derived_from_the_answer_lists(correct, wrong, kind):
    assert _make(correct, wrong).kind is kind


def test_options_list_correct_then_wrong():
    assert _make(["box"], ["basket", "bag"]).options == ["box", "basket", "bag"]


@pytest.mark.parametrize("correct", [[], ["  "]])
def test_a_sample_needs_a_non_blank_gold(correct):
    with pytest.raises(ValidationError, match="correct_answers"):
        _make(correct, [])


def test_meta_defaults_to_empty():
    assert _make(["a"], []).meta == {}
