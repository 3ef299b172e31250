"""Synthesis on Ray: plan items cut into blocks of stories, resumable, the local bytes.

A block is (plan item, stories ``j*B`` .. ``(j+1)*B``); a worker runs the per-item code of the
local path on it (:func:`synthesize_block`: generate, verify with both verifiers, finish), and
the driver saves each finished block as a part file (atomically) as soon as it arrives. Blocks
go out in waves: first one per item, then as many as each item's samples-per-story say it still
needs. An item is complete when its blocks, in order, reach its count (or its story limit);
:func:`whole_stories` then cuts them exactly where the local executor stops, so the candidates
are the same bytes. A killed run, restarted, reuses every part file and redoes no block.
"""

from __future__ import annotations

import json
import math
import pickle
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tomflywheel._io import atomic_write_text, jsonl_bytes
from tomflywheel.cluster import map_blocks
from tomflywheel.feedback._plan import SynthesisPlan
from tomflywheel.feedback._synthesize import story_limit, synthesize_block, whole_stories
from tomflywheel.schema import Sample

Block = tuple[int, int]
"""(plan item index, block number)."""


@dataclass
class BlockCount:
    """What a Ray synthesis did, block by block."""

    total: int = 0
    reused: int = 0
    """Blocks an earlier (killed) run had finished: read from their part files."""
    computed: int = 0


def parts_dir(folder: Path, plan: SynthesisPlan, block: int, with_rationale: bool) -> Path:
    """Where the part files of this plan, block size and rationale switch go."""
    return folder / "synthesis-parts" / f"{plan.plan_id}-b{block}-r{int(with_rationale)}"


def _part_path(parts: Path, key: Block) -> Path:
    return parts / f"item-{key[0]:03d}-block-{key[1]:05d}.jsonl"


def _run_block(plan_json: str, block: int, with_rationale: bool, payload: bytes) -> bytes:
    """One block on a worker: its candidates as JSONL text (what the part file holds)."""
    plan = SynthesisPlan.model_validate_json(plan_json)
    index, number = pickle.loads(payload)
    item = plan.items[index]
    start = number * block
    stop = min(start + block, story_limit(item))
    samples = synthesize_block(plan, index, start, stop, with_rationale=with_rationale)
    return jsonl_bytes(samples)[0]


class _Parts:
    """The part files of one synthesis: which blocks are done, and their lines."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.lines: dict[Block, list[str]] = {}
        for path in sorted(folder.glob("item-*-block-*.jsonl")):
            _, item, _, number = path.stem.split("-")
            self.lines[(int(item), int(number))] = path.read_text(encoding="utf-8").splitlines()

    def save(self, key: Block, text: str) -> None:
        atomic_write_text(_part_path(self.folder, key), text)
        self.lines[key] = text.splitlines()

    def finished(self, index: int) -> int:
        """How many of item ``index``'s blocks 0, 1, ... are done, up to the first missing one."""
        number = 0
        while (index, number) in self.lines:
            number += 1
        return number

    def prefix(self, index: int) -> list[str]:
        """The lines of item ``index``'s finished blocks, up to the first missing one."""
        return [line for n in range(self.finished(index)) for line in self.lines[(index, n)]]


def _wanted(plan: SynthesisPlan, parts: _Parts, block: int) -> list[Block]:
    """Blocks still to compute: for each incomplete item, enough for its count by its rate."""
    todo: list[Block] = []
    for index, item in enumerate(plan.items):
        limit = math.ceil(story_limit(item) / block)
        have = len(parts.prefix(index))
        done = parts.finished(index)
        if have >= item.count or done >= limit:
            continue
        stories = min(done * block, story_limit(item))
        rate = have / stories if have and stories else 0.0
        more = math.ceil((item.count - have) / rate / block) if rate else max(1, done)
        todo += [
            (index, n)
            for n in range(done, min(done + more, limit))
            if (index, n) not in parts.lines
        ]
    return todo


def synthesize_on_ray(
    plan: SynthesisPlan,
    folder: Path,
    *,
    block: int,
    with_rationale: bool,
    on_block: Callable[[int, int], None] | None = None,
) -> tuple[list[Sample], BlockCount]:
    """The candidates :func:`synthesize` makes, computed on Ray block by block.

    Ray must be connected (:func:`tomflywheel.cluster.ray_session`). Part files go under
    ``folder/synthesis-parts/``; they are removed once the candidates are assembled.

    Args:
        plan: The synthesis plan.
        folder: The feedback folder.
        block: Stories per block.
        with_rationale: Add the engine's rationale to each candidate.
        on_block: Called with (blocks finished this run, blocks sent this run).
    """
    parts = _Parts(parts_dir(folder, plan, block, with_rationale))
    count = BlockCount(reused=len(parts.lines))
    work = partial(_run_block, plan.model_dump_json(), block, with_rationale)
    sent = 0
    while todo := _wanted(plan, parts, block):
        sent += len(todo)
        payloads = [(n, pickle.dumps(key)) for n, key in enumerate(todo)]
        for n, result in map_blocks(work, payloads):
            parts.save(todo[n], result.decode("utf-8"))
            count.computed += 1
            if on_block is not None:
                on_block(count.computed, sent)
    candidates: list[Sample] = []
    for index, item in enumerate(plan.items):
        samples = [Sample.model_validate(json.loads(line)) for line in parts.prefix(index)]
        candidates += whole_stories(samples, item.count)
    count.total = len(parts.lines)
    shutil.rmtree(parts.folder)
    return candidates, count
