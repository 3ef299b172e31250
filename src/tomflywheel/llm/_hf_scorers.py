"""In-process scoring backends: a Hugging Face folder loaded with transformers.

- ``causal``: the sum of the continuation tokens' log-probs given everything before them.
- ``mlm``: pseudo-log-likelihood: each continuation token masked in turn, its log-prob read at
  the mask (one masked copy of the sequence per token).
- ``mntp``: masked next-token prediction (GPT-BERT): token i masked, its log-prob read at i-1.

Continuation tokens are located by character offsets as the server path does: a token ending
after the context counts (so a token straddling the boundary is the continuation's). Rows are
sorted by length and batched, so padding stays small. For ``causal``, the options of one
question (pairs with the same context) run their shared prefix once and reuse its key-value
cache, which on a CPU roughly halves the work for two options.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tomflywheel.config import ScoringSettings
from tomflywheel.errors import ConfigError, LLMRequestError
from tomflywheel.llm._batch import ProgressCallback
from tomflywheel.llm._content import ContentClient
from tomflywheel.llm._logprob import ContinuationScore
from tomflywheel.llm._scorers import SCORERS, Scorer, ScoringPair

logger = logging.getLogger(__name__)

Kind = Literal["causal", "mlm", "mntp"]
_ITEMS_PER_STEP = 32
"""Items scored per worker-thread call (progress is reported after each)."""


@dataclass(frozen=True, slots=True)
class _Row:
    """One sequence of a forward pass, with the positions read and the tokens expected there."""

    pair: int
    ids: list[int]
    reads: list[tuple[int, int]]
    """(position whose logits are read, target token id)."""


class HFScorer:
    """A transformers model scoring pairs in this process (CPU or GPU)."""

    in_process = True

    def __init__(self, kind: Kind, settings: ScoringSettings) -> None:
        """Load the tokenizer and model.

        Raises:
            ConfigError: No model given, it cannot be loaded, or its tokenizer lacks what the
                backend needs (character offsets; a mask token for ``mlm``/``mntp``).
        """
        # torch and transformers are heavy: imported only when an in-process backend is built.
        import torch
        from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

        if settings.model is None:
            raise ConfigError(f"the {kind} scoring backend needs a model folder (--model PATH)")
        self.name = kind
        self.kind: Kind = kind
        self.settings = settings
        self.forward_rows = 0
        """Sequences run through the model so far (a masked copy counts once)."""
        self.forward_calls = 0
        """Forward passes (batches) so far."""
        source = str(settings.model)
        options: dict[str, Any] = {
            "revision": settings.revision,
            "trust_remote_code": settings.trust_remote_code,
        }
        auto = AutoModelForCausalLM if kind == "causal" else AutoModelForMaskedLM
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, **options)
            model = auto.from_pretrained(source, dtype=getattr(torch, settings.dtype), **options)
        except (OSError, ValueError) as err:
            raise ConfigError(f"cannot load {source} for the {kind} backend: {err}") from err
        if not self.tokenizer.is_fast:
            raise ConfigError(f"{source}: the {kind} backend needs a fast tokenizer (offsets)")
        if kind != "causal" and self.tokenizer.mask_token_id is None:
            raise ConfigError(f"{source}: the {kind} backend needs a tokenizer with a mask token")
        device = settings.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.model = model.to(device).eval()
        self._torch = torch

    # Tokens -------------------------------------------------------------------------------

    def _tokens(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """Token ids of context + continuation, and the indices of the continuation's tokens."""
        encoded = self.tokenizer(
            context + continuation, return_offsets_mapping=True, add_special_tokens=True
        )
        ids = list(encoded["input_ids"])
        cut = len(context)
        scored = [
            i
            for i, (start, end) in enumerate(encoded["offset_mapping"])
            if end > cut and end > start  # special tokens have empty spans
        ]
        return ids, scored

    def _prefix_id(self) -> int:
        """A token to put before a sequence whose first token is scored (it needs a left side)."""
        for value in (
            self.tokenizer.bos_token_id,
            self.tokenizer.cls_token_id,
            self.tokenizer.eos_token_id,
        ):
            if value is not None:
                return int(value)
        raise ConfigError("the first token is scored but the tokenizer has no BOS/CLS/EOS token")

    def _rows(self, index: int, pair: ScoringPair) -> list[_Row]:
        ids, scored = self._tokens(*pair)
        if not scored:
            return []
        if self.kind != "mlm" and scored[0] == 0:
            ids = [self._prefix_id(), *ids]
            scored = [i + 1 for i in scored]
        if self.kind == "causal":
            return [_Row(index, ids, [(i - 1, ids[i]) for i in scored])]
        mask = int(self.tokenizer.mask_token_id)
        shift = 1 if self.kind == "mntp" else 0
        rows = []
        for i in scored:
            masked = list(ids)
            masked[i] = mask
            rows.append(_Row(index, masked, [(i - shift, ids[i])]))
        return rows

    # Forward passes -----------------------------------------------------------------------

    def _run(self, rows: list[_Row]) -> list[float]:
        """Each row's summed log-prob of its targets, batched by length."""
        if not rows:
            return []
        torch = self._torch
        size = self.settings.batch_size if self.kind == "causal" else None
        size = size or self.settings.non_causal_batch_size
        pad = self.tokenizer.pad_token_id
        pad = int(pad if pad is not None else (self.tokenizer.eos_token_id or 0))
        order = sorted(range(len(rows)), key=lambda r: len(rows[r].ids))
        out = [0.0] * len(rows)
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            width = max(len(rows[r].ids) for r in batch)
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            attention = torch.zeros((len(batch), width), dtype=torch.long)
            where: list[tuple[int, int, int, int]] = []
            for b, r in enumerate(batch):
                row = rows[r]
                input_ids[b, : len(row.ids)] = torch.tensor(row.ids, dtype=torch.long)
                attention[b, : len(row.ids)] = 1
                where.extend((b, position, target, r) for position, target in row.reads)
            with torch.inference_mode():
                logits = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device)
                ).logits
            self.forward_calls += 1
            self.forward_rows += len(batch)
            b_index = torch.tensor([w[0] for w in where], device=self.device)
            positions = torch.tensor([w[1] for w in where], device=self.device)
            targets = torch.tensor([w[2] for w in where], device=self.device)
            picked = logits[b_index, positions].float().log_softmax(-1)
            values = picked.gather(1, targets[:, None]).squeeze(1).double().cpu().tolist()
            for (_, _, _, r), value in zip(where, values, strict=True):
                out[r] += value
        return out

    def _shared_prefix(self, rows: list[_Row]) -> int:
        """Tokens the rows share before the first one read (0: nothing worth sharing)."""
        first = rows[0].ids
        length = min(min(len(r.ids) for r in rows), min(r.reads[0][0] for r in rows))
        for position in range(length):
            if any(r.ids[position] != first[position] for r in rows):
                return position
        return length

    def _run_shared(self, rows: list[_Row], prefix: int) -> list[float]:
        """Rows sharing ``prefix`` tokens: the prefix runs once, its cache serves every row."""
        torch = self._torch
        with torch.inference_mode():
            head = torch.tensor([rows[0].ids[:prefix]], device=self.device)
            cache = self.model(input_ids=head, use_cache=True).past_key_values
            cache.batch_repeat_interleave(len(rows))
            width = max(len(r.ids) for r in rows) - prefix
            pad = int(self.tokenizer.pad_token_id or 0)
            tail = torch.full((len(rows), width), pad, dtype=torch.long)
            attention = torch.zeros((len(rows), prefix + width), dtype=torch.long)
            attention[:, :prefix] = 1
            for b, row in enumerate(rows):
                tail[b, : len(row.ids) - prefix] = torch.tensor(row.ids[prefix:])
                attention[b, prefix : len(row.ids)] = 1
            logits = self.model(
                input_ids=tail.to(self.device),
                attention_mask=attention.to(self.device),
                past_key_values=cache,
            ).logits
        self.forward_calls += 2
        self.forward_rows += len(rows)
        out = []
        for b, row in enumerate(rows):
            positions = torch.tensor([p - prefix for p, _ in row.reads], device=self.device)
            targets = torch.tensor([t for _, t in row.reads], device=self.device)
            picked = logits[b, positions].float().log_softmax(-1)
            out.append(float(picked.gather(1, targets[:, None]).double().sum().cpu()))
        return out

    def _causal_values(self, rows: list[_Row], pairs: Sequence[ScoringPair]) -> list[float]:
        """Rows of pairs with the same context share its forward pass; the rest are batched."""
        groups: dict[str, list[int]] = {}
        for index, row in enumerate(rows):
            groups.setdefault(pairs[row.pair][0], []).append(index)
        values: dict[int, float] = {}
        alone: list[int] = []
        for context, members in groups.items():
            prefix = self._shared_prefix([rows[i] for i in members]) if context else 0
            if len(members) < 2 or prefix < 2:
                alone.extend(members)
                continue
            shared = self._run_shared([rows[i] for i in members], prefix)
            values.update(zip(members, shared, strict=True))
        values.update(zip(alone, self._run([rows[i] for i in alone]), strict=True))
        return [values[i] for i in range(len(rows))]

    def score_pairs(self, pairs: Sequence[ScoringPair]) -> list[ContinuationScore]:
        """Score pairs synchronously (the scorer's work; ``score`` runs it in a thread)."""
        rows = [row for index, pair in enumerate(pairs) for row in self._rows(index, pair)]
        shared = self.kind == "causal" and self.settings.share_context
        values = self._causal_values(rows, pairs) if shared else self._run(rows)
        totals = [0.0] * len(pairs)
        counts = [0] * len(pairs)
        for row, value in zip(rows, values, strict=True):
            totals[row.pair] += value
            counts[row.pair] += len(row.reads)
        return [
            ContinuationScore(continuation, totals[i], counts[i])
            for i, (_, continuation) in enumerate(pairs)
        ]

    async def score(
        self,
        items: Sequence[Sequence[ScoringPair]],
        *,
        on_progress: ProgressCallback | None = None,
    ) -> list[list[ContinuationScore] | LLMRequestError]:
        """Score items in order, a few dozen per worker-thread call."""
        results: list[list[ContinuationScore] | LLMRequestError] = []
        for start in range(0, len(items), _ITEMS_PER_STEP):
            chunk = items[start : start + _ITEMS_PER_STEP]
            flat = [pair for item in chunk for pair in item]
            scores = await asyncio.to_thread(self.score_pairs, flat)
            at = 0
            for item in chunk:
                results.append(scores[at : at + len(item)])
                at += len(item)
            if on_progress is not None:
                on_progress(len(results), len(items))
        return results

    def close(self) -> None:
        """Drop the model (its memory goes back once nothing else holds it)."""
        self.model = None


@SCORERS.register("causal")
def causal_scorer(settings: ScoringSettings, *, client: ContentClient | None = None) -> Scorer:
    """A causal LM in process: summed log-probs of the continuation's tokens."""
    return HFScorer("causal", settings)


@SCORERS.register("mlm")
def mlm_scorer(settings: ScoringSettings, *, client: ContentClient | None = None) -> Scorer:
    """A masked LM in process: pseudo-log-likelihood, each continuation token masked in turn."""
    return HFScorer("mlm", settings)


@SCORERS.register("mntp")
def mntp_scorer(settings: ScoringSettings, *, client: ContentClient | None = None) -> Scorer:
    """Masked next-token prediction in process: token i masked, read at position i-1."""
    return HFScorer("mntp", settings)
