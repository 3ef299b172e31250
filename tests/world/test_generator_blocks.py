"""A generator run cut into blocks of stories gives the bytes of one run."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tomflywheel._io import to_json_line
from tomflywheel.errors import ConfigError
from tomflywheel.world import GENERATORS, write_generated
from tomflywheel.world.generators._write import story_blocks


@pytest.mark.parametrize("name", GENERATORS.names())
def test_blocks_of_stories_equal_one_run(name: str):
    generator = GENERATORS.get(name)
    whole = [to_json_line(s) for s in generator(seed=7, n=6, controls=True)]
    blocks = [
        to_json_line(s)
        for start, n in ((0, 2), (2, 3), (5, 1))
        for s in generator(seed=7, n=n, start=start, controls=True)
    ]
    assert whole and blocks == whole


@pytest.mark.parametrize("name", GENERATORS.names())
def test_a_file_written_by_worker_processes_has_the_bytes_of_one_process(tmp_path, name: str):
    one, many = tmp_path / "one.jsonl", tmp_path / "many.jsonl"
    params = {"seed": 3, "n": 7, "start": 2, "controls": True}
    count = write_generated(name, one, workers=1, **params)
    assert write_generated(name, many, workers=2, block=2, **params) == count > 0
    assert many.read_bytes() == one.read_bytes()
    assert len(one.read_bytes().splitlines()) == count
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.jsonl", "one.jsonl"]  # no blocks


def test_story_blocks_cover_the_range_once_in_order():
    blocks = story_blocks(5, 100, workers=2)
    assert blocks[0][0] == 5 and sum(n for _, n in blocks) == 100
    assert all(a + n == b for (a, n), (b, _) in pairwise(blocks))
    assert [n for _, n in blocks[:-1]] == [16] * 6  # 100 / (2 workers x 16) is under the 16 floor
    assert story_blocks(0, 1000, workers=2)[0] == (0, 32)  # about sixteen blocks per worker
    assert story_blocks(0, 10, workers=4) == [(0, 10)]  # too few stories to split


def test_bad_parameters_are_refused_before_the_file_is_touched(tmp_path):
    out = tmp_path / "kept.jsonl"
    out.write_text("earlier\n")
    with pytest.raises(ConfigError, match="tgtom generator: n"):
        write_generated("tgtom", out, workers=2, n=-1)
    assert out.read_text() == "earlier\n"


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_stories_block_by_block_up_to_all(tmp_path, workers: int):
    seen: list[tuple[int, int]] = []
    path = tmp_path / "out.jsonl"
    write_generated("tomi", path, workers=workers, block=3, progress=lambda *d: seen.append(d), n=7)
    assert seen == [(0, 7), (3, 7), (6, 7), (7, 7)]
