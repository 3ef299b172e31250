"""frozen_heap: objects alive on entry leave the collector for the block, and only for it."""

import gc
import weakref

from tomflywheel._gc import frozen_heap


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_objects_alive_on_entry_are_frozen_until_the_outermost_exit() -> None:
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with frozen_heap():
            pass
        # The inner exit leaves them frozen (an unfreeze would empty the count); threads that
        # earlier tests left running may free a few frozen objects meanwhile.
        assert gc.get_freeze_count() > frozen // 2
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_inside_the_block_is_still_collected() -> None:
    with frozen_heap():
        left, right = _Node(), _Node()
        left.other, right.other = right, left
        watch = weakref.ref(left)
        del left, right
        gc.collect()
        assert watch() is None


def test_an_error_inside_the_block_still_unfreezes() -> None:
    try:
        with frozen_heap():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.get_freeze_count() == 0
