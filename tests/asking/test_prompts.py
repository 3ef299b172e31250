from tomflywheel.asking import render_prompt, shuffle_options
from tomflywheel.config import EvalSettings
from tomflywheel.schema import Answer, Sample


def _sample(wrong=()):
    return Sample(
        id="p1",
        story="Anne put the {key} in the box.",
        question="Where is the {key}?",
        answer=Answer(correct_answers=["box"], wrong_answers=list(wrong)),
    )


def test_open_prompt_keeps_braces_of_dataset_text():
    rendered = render_prompt(
        _sample(), completion=False, shuffled=None, settings=EvalSettings(), endpoint="chat"
    )
    assert rendered.prompt is None
    assert rendered.messages[0]["role"] == "system"
    assert "Anne put the {key} in the box." in rendered.messages[1]["content"]
    assert "Question: Where is the {key}?" in rendered.messages[1]["content"]


def test_choice_prompt_lists_the_shuffled_options_with_letters():
    sample = _sample(["bag", "shelf"])
    shuffled = shuffle_options(sample)
    rendered = render_prompt(
        sample, completion=False, shuffled=shuffled, settings=EvalSettings(), endpoint="completions"
    )
    assert rendered.messages is None
    for letter, option in zip("ABC", shuffled.options, strict=True):
        assert f"\n{letter}. {option}\n" in rendered.prompt + "\n"


def test_completion_prompt_ends_exactly_where_the_model_continues():
    sample = Sample(
        id="k",
        story="Sam believes the bag is full of",
        question="",
        answer=Answer(correct_answers=["popcorn"], wrong_answers=["chocolate"]),
    )
    raw = render_prompt(
        sample, completion=True, shuffled=None, settings=EvalSettings(), endpoint="completions"
    )
    assert raw.prompt == "Sam believes the bag is full of"


def test_templates_come_from_settings():
    settings = EvalSettings(system_prompt="", templates={"open": "Q: {question}\nS: {story}"})
    rendered = render_prompt(
        _sample(), completion=False, shuffled=None, settings=settings, endpoint="chat"
    )
    assert rendered.messages == [
        {"role": "user", "content": "Q: Where is the {key}?\nS: Anne put the {key} in the box."}
    ]
