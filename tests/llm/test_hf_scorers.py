"""The ``mlm`` and ``mntp`` backends on a tiny random BERT built here (no download, seeded)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tomflywheel.config import ScoringSettings  # noqa: E402
from tomflywheel.llm import SCORERS, build_scorer  # noqa: E402
from tomflywheel.llm._hf_scorers import HFScorer  # noqa: E402

WORDS = ["the", "cat", "dog", "sat", "ran", "on", "mat", "a", "big", "red", "."]
VOCAB = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
PAIRS = [
    ("the cat", " sat on the mat ."),
    ("", "a big red dog ran ."),
    ("the dog ran on", " a mat"),
    ("a", " cat"),
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT with a word-level vocabulary, weights drawn from a seeded generator."""
    folder = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = transformers.BertTokenizerFast(vocab=VOCAB)
    # A word missing from the vocabulary would become [UNK] and make every check below vacuous.
    assert tokenizer("the big dog")["input_ids"] == [2, 5, 13, 7, 3]
    config = transformers.BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    model = transformers.BertForMaskedLM(config)
    generator = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


_LOADED: dict[tuple[Path, str], HFScorer] = {}


def scorer(folder: Path, backend: str, batch: int = 64) -> HFScorer:
    """The backend's scorer at this batch size, with fresh pass counters (loaded once)."""
    if (folder, backend) not in _LOADED:
        settings = ScoringSettings(backend=backend, model=folder)  # type: ignore[arg-type]
        built = build_scorer(settings)
        assert isinstance(built, HFScorer)
        _LOADED[folder, backend] = built
    loaded = _LOADED[folder, backend]
    loaded.settings = loaded.settings.model_copy(update={"non_causal_batch_size": batch})
    loaded.forward_rows = loaded.forward_calls = 0
    return loaded


def test_every_backend_is_registered():
    assert SCORERS.names() == ["causal", "mlm", "mntp", "server"]


@pytest.mark.parametrize("backend", ["mlm", "mntp"])
def test_one_masked_copy_per_completion_token(tiny_bert, backend):
    one = scorer(tiny_bert, backend, batch=1)
    scores = one.score_pairs([("the cat", " sat on the mat")])
    # "sat on the mat": 4 word tokens, so 4 masked copies, one forward pass each at batch 1.
    assert scores[0].n_tokens == 4
    assert (one.forward_rows, one.forward_calls) == (4, 4)
    three = scorer(tiny_bert, backend, batch=3)
    three.score_pairs([("the cat", " sat on the mat")])
    assert (three.forward_rows, three.forward_calls) == (4, 2)


@pytest.mark.parametrize("backend", ["mlm", "mntp"])
def test_scores_do_not_depend_on_the_batch_size(tiny_bert, backend):
    reference = [s.logprob for s in scorer(tiny_bert, backend, batch=1).score_pairs(PAIRS)]
    for batch in (2, 5, 64):
        values = [s.logprob for s in scorer(tiny_bert, backend, batch=batch).score_pairs(PAIRS)]
        assert values == pytest.approx(reference, abs=1e-5), batch
    # Different pairs must give different scores, or the comparison above proves nothing.
    assert len({round(v, 4) for v in reference}) == len(PAIRS)


@pytest.mark.parametrize("backend", ["mlm", "mntp"])
def test_scoring_twice_gives_the_same_numbers(tiny_bert, backend):
    first = scorer(tiny_bert, backend, batch=3).score_pairs(PAIRS)
    assert scorer(tiny_bert, backend, batch=3).score_pairs(PAIRS) == first
    settings = ScoringSettings(backend=backend, model=tiny_bert, non_causal_batch_size=3)  # type: ignore[arg-type]
    assert build_scorer(settings).score_pairs(PAIRS) == first  # a fresh load too


def _log_prob(model, ids: list[int], read: int, target: int) -> float:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0, read]
    return float(logits.log_softmax(-1)[target])


def test_mlm_pseudo_log_likelihood_of_three_tokens_by_hand(tiny_bert):
    model = transformers.BertForMaskedLM.from_pretrained(tiny_bert).eval()
    vocab = VOCAB
    ids = [vocab["[CLS]"], vocab["the"], vocab["big"], vocab["dog"], vocab["[SEP]"]]
    expected = 0.0
    for i in (1, 2, 3):
        masked = list(ids)
        masked[i] = vocab["[MASK]"]
        expected += _log_prob(model, masked, i, ids[i])
    got = scorer(tiny_bert, "mlm").score_pairs([("", "the big dog")])[0]
    assert got.n_tokens == 3
    assert got.logprob == pytest.approx(expected, abs=1e-5)


def test_mntp_reads_the_masked_token_one_position_left(tiny_bert):
    model = transformers.BertForMaskedLM.from_pretrained(tiny_bert).eval()
    vocab = VOCAB
    ids = [vocab["[CLS]"], vocab["the"], vocab["big"], vocab["dog"], vocab["[SEP]"]]
    masked = list(ids)
    masked[3] = vocab["[MASK]"]
    expected = _log_prob(model, masked, 2, vocab["dog"])
    got = scorer(tiny_bert, "mntp").score_pairs([("the big", " dog")])[0]
    assert got.n_tokens == 1
    assert got.logprob == pytest.approx(expected, abs=1e-5)
    # Reading at the mask itself (MLM) is a different number.
    assert _log_prob(model, masked, 3, vocab["dog"]) != pytest.approx(expected, abs=1e-5)


def test_an_in_process_backend_without_a_model_is_a_config_error():
    from tomflywheel.errors import ConfigError

    with pytest.raises(ConfigError, match="--model PATH"):
        build_scorer(ScoringSettings(backend="mlm"))


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer GPT-2 over the same word vocabulary ([CLS] serves as BOS), seeded weights."""
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    config = transformers.GPT2Config(
        vocab_size=len(VOCAB),
        n_positions=32,
        n_embd=16,
        n_layer=2,
        n_head=2,
        bos_token_id=VOCAB["[CLS]"],
        eos_token_id=VOCAB["[SEP]"],
    )
    model = transformers.GPT2LMHeadModel(config)
    generator = torch.Generator().manual_seed(4321)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    model.save_pretrained(folder)
    transformers.BertTokenizerFast(vocab=VOCAB).save_pretrained(folder)
    return folder


def test_causal_options_sharing_a_context_score_as_if_alone(tiny_gpt2):
    settings = ScoringSettings(backend="causal", model=tiny_gpt2, batch_size=2)
    built = build_scorer(settings)
    assert isinstance(built, HFScorer)
    pairs = [("the cat sat on", " the mat ."), ("the cat sat on", " a red dog"), ("a", " cat")]
    together = built.score_pairs(pairs)
    # The first two share their context: one prefix pass and one pass for both tails.
    assert (built.forward_calls, built.forward_rows) == (3, 3)
    alone = [built.score_pairs([pair])[0] for pair in pairs]
    assert [s.n_tokens for s in together] == [3, 3, 1]
    assert [s.logprob for s in together] == pytest.approx([s.logprob for s in alone], abs=1e-5)
    unshared = build_scorer(settings.model_copy(update={"share_context": False}))
    assert [s.logprob for s in unshared.score_pairs(pairs)] == pytest.approx(
        [s.logprob for s in alone], abs=1e-5
    )


def test_causal_by_hand_sums_next_token_log_probs(tiny_gpt2):
    model = transformers.GPT2LMHeadModel.from_pretrained(tiny_gpt2).eval()
    ids = [VOCAB["[CLS]"], VOCAB["the"], VOCAB["cat"], VOCAB["sat"], VOCAB["[SEP]"]]
    expected = _log_prob(model, ids, 1, VOCAB["cat"]) + _log_prob(model, ids, 2, VOCAB["sat"])
    got = build_scorer(ScoringSettings(backend="causal", model=tiny_gpt2)).score_pairs(
        [("the", " cat sat")]
    )[0]
    assert got.n_tokens == 2
    assert got.logprob == pytest.approx(expected, abs=1e-5)
