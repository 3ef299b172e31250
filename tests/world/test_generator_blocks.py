"""A generator run cut into blocks of stories gives the bytes of one run."""

from __future__ import annotations

import pytest

from tomflywheel._io import to_json_line
from tomflywheel.world import GENERATORS


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
