"""Prefix-shared packing: the questions of one story in one row, their shared prefix computed once.

A micro-batch's examples are grouped (by story); each group becomes one row holding a prefix tree
of its examples' tokens. A token attends to its own ancestors only and sits at the position it
has in its own example, so the model computes what it computes for each example alone (to float
rounding), while a story told once for its six questions costs about a third of the tokens. Each
token's loss target is the next token of the example it belongs to (``shift_labels``).

Pure Python here; :func:`collate_rows` turns rows into the tensors a causal LM takes (a 4-D
additive attention mask and explicit position ids).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tomflywheel.train._data import IGNORE_INDEX

if TYPE_CHECKING:
    import torch


class Tokens(Protocol):
    """What packing reads of an example: its token ids and labels (``IGNORE_INDEX``: no loss)."""

    @property
    def input_ids(self) -> Sequence[int]: ...

    @property
    def labels(self) -> Sequence[int]: ...


@dataclass(slots=True)
class PackedRow:
    """One row: a prefix tree of examples, in an order where a parent precedes its children."""

    input_ids: list[int] = field(default_factory=list)
    position_ids: list[int] = field(default_factory=list)
    """Each token's position in its own example (its depth in the tree)."""
    parents: list[int] = field(default_factory=list)
    """Each token's parent in the row; -1 for a first token."""
    shift_labels: list[int] = field(default_factory=list)
    """The target each token's logits predict, ``IGNORE_INDEX`` where none."""
    examples: int = 0
    _children: dict[tuple[int, int], int] = field(default_factory=dict, repr=False)

    def add(self, example: Tokens) -> bool:
        """Add an example unless one of its targets clashes with one already set; say which.

        A clash is a token that would predict two targets: two examples with the same tokens up
        to a target (a repeated example counts twice in the loss, so it takes another row).
        """
        path = self._path(example.input_ids, create=False)
        for i, label in enumerate(example.labels[1:], start=1):
            taken = i - 1 < len(path) and self.shift_labels[path[i - 1]] != IGNORE_INDEX
            if label != IGNORE_INDEX and taken:
                return False
        path = self._path(example.input_ids, create=True)
        for i, label in enumerate(example.labels[1:], start=1):
            if label != IGNORE_INDEX:
                self.shift_labels[path[i - 1]] = label
        self.examples += 1
        return True

    def _path(self, tokens: Sequence[int], *, create: bool) -> list[int]:
        """Row positions of ``tokens``' prefix-tree nodes (the existing ones; all: ``create``)."""
        path: list[int] = []
        node = -1
        for depth, token in enumerate(tokens):
            found = self._children.get((node, token))
            if found is None:
                if not create:
                    return path
                found = len(self.input_ids)
                self._children[(node, token)] = found
                self.input_ids.append(token)
                self.position_ids.append(depth)
                self.parents.append(node)
                self.shift_labels.append(IGNORE_INDEX)
            path.append(found)
            node = found
        return path


def pack_rows(examples: Sequence[Tokens], groups: Sequence[Hashable]) -> list[PackedRow]:
    """The rows of one micro-batch: a row per group, in order of first appearance.

    An example that clashes with its group's rows (see :meth:`PackedRow.add`) opens another.
    """
    if len(examples) != len(groups):
        raise ValueError(f"{len(groups)} groups for {len(examples)} examples")
    by_group: dict[Hashable, list[PackedRow]] = {}
    rows: list[PackedRow] = []
    for example, group in zip(examples, groups, strict=True):
        own = by_group.setdefault(group, [])
        if not any(row.add(example) for row in own):
            row = PackedRow()
            row.add(example)
            own.append(row)
            rows.append(row)
    return rows


def collate_rows(rows: Sequence[PackedRow], *, pad_token_id: int) -> dict[str, torch.Tensor]:
    """Tensors of rows, padded to the longest.

    ``input_ids``, ``position_ids``, ``shift_labels`` and a 4-D additive ``attention_mask``: 0
    where a token may attend (its ancestors and itself), the float minimum elsewhere; a padding
    token attends to itself.
    """
    import torch  # the collator runs inside training, where torch is loaded already

    length = max(len(row.input_ids) for row in rows)
    size = (len(rows), length)
    input_ids = torch.full(size, pad_token_id, dtype=torch.long)
    position_ids = torch.zeros(size, dtype=torch.long)
    shift_labels = torch.full(size, IGNORE_INDEX, dtype=torch.long)
    allowed = torch.eye(length, dtype=torch.bool).repeat(len(rows), 1, 1)
    for b, row in enumerate(rows):
        n = len(row.input_ids)
        input_ids[b, :n] = torch.tensor(row.input_ids)
        position_ids[b, :n] = torch.tensor(row.position_ids)
        shift_labels[b, :n] = torch.tensor(row.shift_labels)
        visible = allowed[b]
        for i, parent in enumerate(row.parents):
            if parent >= 0:
                visible[i] |= visible[parent]
    mask = torch.zeros(allowed.shape, dtype=torch.float32)
    mask.masked_fill_(~allowed, torch.finfo(torch.float32).min)
    return {
        "input_ids": input_ids,
        "position_ids": position_ids,
        "attention_mask": mask.unsqueeze(1),
        "shift_labels": shift_labels,
    }


class PackingCollator:
    """A data collator for transformers' ``Trainer``: a micro-batch's features into packed rows.

    Each feature carries ``input_ids``, ``labels`` and ``group`` (examples of one group share
    rows).
    """

    def __init__(self, pad_token_id: int) -> None:
        self.pad_token_id = pad_token_id

    def __call__(self, features: Sequence[dict[str, Any]]) -> dict[str, Any]:
        examples = [_Feature(f["input_ids"], f["labels"]) for f in features]
        rows = pack_rows(examples, [f["group"] for f in features])
        return collate_rows(rows, pad_token_id=self.pad_token_id)


@dataclass(frozen=True, slots=True)
class _Feature:
    input_ids: Sequence[int]
    labels: Sequence[int]


def packed_tokens(examples: Sequence[Tokens], groups: Sequence[Hashable]) -> int:
    """Tokens through the forward pass when these examples form one packed micro-batch."""
    return sum(len(row.input_ids) for row in pack_rows(examples, groups))
