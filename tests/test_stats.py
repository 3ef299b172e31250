"""Paired lift intervals clustered by story and the between-seed interval, checked by hand."""

from __future__ import annotations

import math

import pytest

from tomflywheel.stats import (
    Z95,
    balanced_accuracy_interval,
    mean_interval,
    paired_lift,
    t975,
    wilson_interval,
)


def singletons(*flips: tuple[bool, bool]) -> list[tuple[int, bool, bool]]:
    return [(i, before, after) for i, (before, after) in enumerate(flips)]


def test_no_flip_still_gives_an_interval_of_width():
    # 4 items, nothing changes: one pseudo-item per discordant cell, b = c = 1/6,
    # variance (1/6 + 1/6 - 0) / 6 = 1/18 (the old McNemar interval was [+0, +0])
    lift = paired_lift(singletons((True, True), (True, True), (False, False), (False, False)))
    half = Z95 * math.sqrt(1 / 18)
    assert (lift.lift, lift.gained, lift.lost) == (0.0, 0, 0)
    assert (lift.low, lift.high) == pytest.approx((-half, half))
    assert lift.high > 0.45  # Wilson's upper bound on 0 flips of 4 is 0.49: never zero width


def test_no_flip_on_many_items_is_narrow_but_not_empty():
    lift = paired_lift(singletons(*[(True, True)] * 200, *[(False, False)] * 200))
    # b = c = 1/402, variance 2/402/402
    assert lift.high == pytest.approx(Z95 * math.sqrt(2) / 402)
    assert lift.low == pytest.approx(-lift.high)


def test_all_flips_keep_the_full_gain_inside():
    lift = paired_lift(singletons(*[(False, True)] * 4))
    # b = 1/6, c = 5/6, centre 2/3, variance (1 - 4/9) / 6
    assert lift.lift == 1.0
    assert lift.low == pytest.approx(2 / 3 - Z95 * math.sqrt(5 / 54))
    assert lift.high == 1.0  # clipped


def test_four_items_two_each_way_is_wide_but_inside_the_range():
    lift = paired_lift(singletons((False, True), (False, True), (True, False), (True, False)))
    # b = c = 1/2, variance 1/6 (the old formula gave +-98 points and no pseudo-items)
    assert (lift.low, lift.high) == pytest.approx((-Z95 / math.sqrt(6), Z95 / math.sqrt(6)))


def test_clusters_of_unequal_size_widen_by_the_design_effect_with_t():
    # stories A (3 items, all gained), B (1 lost), C (2 unchanged), D (1 gained, 1 unchanged)
    pairs = [
        *[("A", False, True)] * 3,
        ("B", True, False),
        *[("C", True, True)] * 2,
        ("D", False, True),
        ("D", False, False),
    ]
    lift = paired_lift(pairs)
    assert (lift.n, lift.clusters, lift.gained, lift.lost, lift.lift) == (8, 4, 4, 1, 3 / 8)
    # cluster sums minus size * lift: 1.875, -1.375, -0.75, 0.25; squares sum to 6.03125
    robust = 4 / 3 * 6.03125 / 64
    independent = (5 - 9 / 8) / 64
    assert lift.design_effect == pytest.approx(robust / independent)  # 2.075, below 18/8
    # Bonett-Price: b = 2/10, c = 5/10, centre 0.3, variance (0.7 - 0.09) / 10; t with 3 df
    half = 3.182446 * math.sqrt(0.061 * robust / independent)
    assert (lift.low, lift.high) == pytest.approx((0.3 - half, 1.0))
    alone = paired_lift([(i, before, after) for i, (_, before, after) in enumerate(pairs)])
    assert alone.high - alone.low < lift.high - lift.low


def test_a_story_flipping_as_one_counts_as_one_item_at_most():
    # every item of a story moves together: the design effect reaches its bound sum(n_c^2)/n
    pairs = [(story, False, story % 2 == 0) for story in range(10) for _ in range(3)]
    lift = paired_lift(pairs)
    assert lift.design_effect == 3.0
    b, c = 1 / 32, 16 / 32
    half = t975(9) * math.sqrt((b + c - (c - b) ** 2) / 32 * 3)
    assert (lift.low, lift.high) == pytest.approx((c - b - half, c - b + half))


def test_no_flip_in_clusters_takes_the_bounding_design_effect():
    pairs = [(story, True, True) for story in range(5) for _ in range(2)]
    lift = paired_lift(pairs)
    assert lift.design_effect == 2.0
    assert lift.high == pytest.approx(t975(4) * math.sqrt(2 / 12 / 12 * 2))


def test_one_story_says_nothing_beyond_itself():
    lift = paired_lift([("s", False, True)] * 5)
    assert (lift.low, lift.high) == (-1.0, 1.0)


def test_no_items_no_lift():
    assert paired_lift([]) is None


def test_same_pairs_give_the_same_interval_in_any_order():
    pairs = [(i // 3, i % 2 == 0, i % 3 == 0) for i in range(30)]
    assert paired_lift(pairs) == paired_lift(list(reversed(pairs)))


def test_t_quantiles_match_the_table_and_its_expansion():
    assert t975(1) == 12.706205
    assert t975(30) == 2.042272
    assert t975(31) == pytest.approx(2.039513, abs=1e-5)
    assert t975(1000) == pytest.approx(1.962339, abs=1e-6)
    with pytest.raises(ValueError, match="at least 1"):
        t975(0)


def test_between_seed_interval_is_a_t_interval():
    mean, low, high = mean_interval([0.1, 0.2, 0.3])
    # sd 0.1, t with 2 df
    half = 4.302653 * 0.1 / math.sqrt(3)
    assert (mean, low, high) == pytest.approx((0.2, 0.2 - half, 0.2 + half))
    assert mean_interval([0.4]) is None


def test_balanced_accuracy_interval_adds_a_success_and_a_failure_to_each_side():
    # 5/10 on both sides: p = 6/12 each, variance (1/4/12 + 1/4/12) / 4 = 1/96
    half = Z95 * math.sqrt(1 / 96)
    assert balanced_accuracy_interval(5, 10, 5, 10) == pytest.approx(
        (0.5 - half, 0.5 + half), abs=1e-4
    )
    # 0/6 and 6/6 (the real location on targets and controls): centred on (1/8 + 7/8) / 2
    low, high = balanced_accuracy_interval(0, 6, 6, 6)
    half = Z95 * math.sqrt(2 * (1 / 8) * (7 / 8) / 8) / 2
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-4)


def test_balanced_accuracy_interval_never_collapses_and_is_narrower_than_one_side():
    # 20/20 on both sides: centre 21/22, clipped at 1 above, never zero width
    p = 21 / 22
    half = Z95 * math.sqrt(2 * p * (1 - p) / 22) / 2
    assert balanced_accuracy_interval(20, 20, 20, 20) == pytest.approx((p - half, 1.0), abs=1e-4)
    # the mean of two sides of 20 is known better than either side alone
    low, high = balanced_accuracy_interval(10, 20, 10, 20)
    side_low, side_high = wilson_interval(10, 20)
    assert high - low < side_high - side_low


def test_balanced_accuracy_interval_needs_both_sides():
    assert balanced_accuracy_interval(3, 4, 0, 0) is None
    assert balanced_accuracy_interval(0, 0, 3, 4) is None
