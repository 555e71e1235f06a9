"""The exact decision of a gate rule by a plan's labels (statistics.label_bounds), on hand-computed bounds.

Every bound below is a hypergeometric tail worked out by hand: P(X = x) for X the labelled members of
a cell of N questions holding R that count, m drawn: C(R, x) C(N - R, m - x) / C(N, m).
"""

from __future__ import annotations

import numpy as np
import pytest

from evalgate_lib.statistics.label_bounds import (
    CANNOT_TELL,
    FAIL,
    IMPROVED,
    INCONCLUSIVE,
    PASS,
    REGRESSED,
    CensusRule,
    PairStratum,
    census_box,
    decide_by_labels,
)
from evalgate_lib.statistics.paired_tests import mcnemar_interval, mcnemar_p, tango_interval

SAME: tuple[bool, bool] = (False, False)
#: hallucination must not rise at all (a count), significant mode, alpha 0.05
RISE = CensusRule(IMPROVED, 0.0, True, "significant", 0.05)


def _stratum(judged: list[tuple[bool, bool]], labels: list[tuple[bool, bool] | None]) -> PairStratum:
    return PairStratum(tuple(judged), tuple(labels))


def test_few_labels_cannot_tell() -> None:
    # 10 questions: the judge flags 6 new hallucinations (candidate yes, baseline no), 4 unchanged.
    # Labelled: 3 of the 6, each confirmed; 2 of the 4, unchanged.
    s = _stratum([IMPROVED] * 6 + [SAME] * 4, [IMPROVED] * 3 + [None] * 3 + [SAME] * 2 + [None] * 2)
    box = census_box([s], 0.05, IMPROVED)
    # FAIL reads C's lower bound (its judge-counted cell of 6, 3 drawn, 3 counted: uncertain) and B's upper
    # bound (its other cell: all 10, 5 drawn, 0 counted): two bounds, each at 0.05 / 2 = 0.025.
    #   C >= smallest R with P(X >= 3 | N=6, R, m=3) > 0.025: R = 3 gives C(3,3)/C(6,3) = 1/20 = 0.05 -> C_low = 3
    #   B <= largest R with P(X = 0 | N=10, R, m=5) > 0.025: R = 3 gives C(7,5)/C(10,5) = 21/252 = 0.083,
    #        R = 4 gives C(6,5)/252 = 0.024 -> B_high = 3
    assert (box.c_low, box.b_high) == (3, 3)
    # PASS reads C's upper bound (cell of the 4 the judge left, 2 drawn, 0 counted: alone, at 0.05) and B's
    # lower bound (certain: 0). C <= 6 (all judge-counted but none refuted) + largest R with
    #   P(X = 0 | N=4, R, m=2) > 0.05: R = 2 gives C(2,2)/C(4,2) = 1/6 -> 2, so C_high = 8.
    assert (box.b_low, box.c_high) == (0, 8)
    decision = decide_by_labels([s], RISE)
    # the least failing census (b=3, c=3) passes; the most failing (b=0, c=8: p = 2/2^8) fails: cannot tell
    assert decision.outcome == CANNOT_TELL
    assert decision.p_value == 1.0 and decision.low < 0 < decision.high  # b = c lies in the box


def test_enough_labels_decide_fail_exactly() -> None:
    # 20 questions: the judge flags 12 new hallucinations, 8 unchanged; labelled: 10 of the 12 (confirmed), all 8.
    s = _stratum([IMPROVED] * 12 + [SAME] * 8, [IMPROVED] * 10 + [None] * 2 + [SAME] * 8)
    box = census_box([s], 0.05, IMPROVED)
    # C >= smallest R with P(X >= 10 | N=12, R, m=10) > 0.025: R=10: 1/C(12,10) = 1/66 = 0.015; R=11: 11/66 -> 11
    # B <= largest R with P(X = 0 | N=20, R, m=18) > 0.025: R=1: C(19,18)/C(20,18) = 19/190 = 0.1; R=2: 1/190 -> 1
    assert (box.c_low, box.b_high) == (11, 1)
    assert (box.b_low, box.c_high) == (0, 12)  # certain: nothing the labels saw refutes the judge
    decision = decide_by_labels([s], RISE)
    # least failing census b=1, c=11: +10 > 0 and McNemar p = 2 (1 + 12)/2^12 = 0.006348 < 0.05
    assert mcnemar_p(1, 11) == round(26 / 4096, 6)
    assert decision.outcome == FAIL
    # printed: the hull of the census intervals over b in [0, 1], c in [11, 12], and the largest p (at b=1, c=11)
    assert decision.p_value == mcnemar_p(1, 11) < 0.05 and decision.low > 0
    hull_low = min(mcnemar_interval(b, c, 20)[0] for b in (0, 1) for c in (11, 12)) * 20
    hull_high = max(mcnemar_interval(b, c, 20)[1] for b in (0, 1) for c in (11, 12)) * 20
    assert decision.low == pytest.approx(hull_low, abs=1e-5) and decision.high == pytest.approx(hull_high, abs=1e-5)
    # what decides: the hull of the censuses' Tango intervals, its low end the least failing census' (b=1, c=11):
    # Z(0) = 10 / sqrt(12) = 2.89 > 1.96, so it lies wholly past the limit of 0
    assert decision.margin_low == round(tango_interval(1, 11, 20, 0.95)[0] * 20, 6) > 0
    assert decision.margin_high == round(tango_interval(0, 12, 20, 0.95)[1] * 20, 6)


def test_a_census_of_the_population_decides_as_the_census() -> None:
    judged = [IMPROVED] * 5 + [REGRESSED] * 2 + [SAME] * 3
    labels = [IMPROVED] * 4 + [SAME] + [REGRESSED] * 2 + [SAME] * 3  # labels: b = 2, c = 4
    decision = decide_by_labels([_stratum(judged, labels)], RISE)
    box = decision.box
    assert (box.b_low, box.b_high, box.c_low, box.c_high) == (2, 2, 4, 4)
    # +2 breaches the limit of 0, but Tango's interval holds it: Z(0) = (4 − 2) / sqrt(6) = 0.82 < 1.96; and a
    # limit of 0 can never be shown, so the census is INCONCLUSIVE (before issue 53's mirror: "does not fail")
    assert decision.outcome == INCONCLUSIVE
    assert decision.p_value == mcnemar_p(2, 4) == 0.6875  # printed against no change
    tango_low, tango_high = tango_interval(2, 4, 10, 0.95)
    assert (decision.margin_low, decision.margin_high) == (round(tango_low * 10, 6), round(tango_high * 10, 6))
    assert decision.margin_low < 0 < decision.margin_high
    low, high = mcnemar_interval(2, 4, 10, 0.95)
    assert (decision.low, decision.high) == (round(low * 10, 6), round(high * 10, 6))


def test_a_drop_rule_reads_the_other_corner() -> None:
    # accuracy must not drop by more than 5 points: a rate over 10 questions; the judge says 7 regressed
    drop = CensusRule(REGRESSED, 0.05, False, "significant", 0.05)
    labels = [REGRESSED] * 7 + [SAME] * 3  # a census: b = 7, c = 0, p = 2 / 2^7 = 0.0156
    assert decide_by_labels([_stratum([REGRESSED] * 7 + [SAME] * 3, labels)], drop).outcome == FAIL
    assert decide_by_labels([_stratum([REGRESSED] * 7 + [SAME] * 3, labels)], RISE).outcome == PASS


def test_the_decision_holds_its_level_on_a_pair_whose_census_passes() -> None:
    """Why 8: a weak judge (it calls 8 new hallucinations where the census has b=1, c=4, p=0.375), 24 questions;
    over 2,000 random plans at every budget the labels decide FAIL in at most 5 % (here: never)."""
    rng = np.random.default_rng(8)
    labels = [IMPROVED] * 4 + [REGRESSED] + [SAME] * 19
    judged = [IMPROVED, IMPROVED, SAME, SAME, SAME] + [IMPROVED] * 6 + [SAME] * 13
    assert not RISE.fails(1, 4, 24)
    for budget in (5, 8, 12, 16, 20):
        fails = 0
        for _ in range(400):
            drawn = set(rng.permutation(24)[:budget].tolist())
            s = _stratum(judged, [lab if i in drawn else None for i, lab in enumerate(labels)])
            fails += decide_by_labels([s], RISE, with_interval=False).outcome == FAIL
        assert fails <= 0.05 * 400, (budget, fails)


def test_a_limit_above_zero_fails_only_past_it() -> None:
    """Issue 53: a census whose delta breaches a limit above 0 and is significant against 0, but whose Tango
    interval holds the limit, is INCONCLUSIVE, not FAIL; past the limit it fails."""
    rise = CensusRule(IMPROVED, 0.10, False, "significant", 0.05)  # a rate may rise by 10 points at most
    # the shipped pair's unsupported-claim rise: b = 15, c = 31 of 101 (+15.8 pts, McNemar p = 0.026 < 0.05)
    assert mcnemar_p(15, 31) < 0.05 and rise.delta(15, 31, 101) == 0.158416
    low, high = rise.interval(15, 31, 101)
    assert low < 0.10 < high  # Tango [+2.8, +28.4] holds the limit
    assert rise.outcome(15, 31, 101) == "INCONCLUSIVE" and not rise.fails(15, 31, 101)
    # 40 of 101 up, none down: Tango's low end is above 0.10, so the census fails
    assert rise.interval(0, 40, 101)[0] > 0.10 and rise.fails(0, 40, 101)
    # 2 up, 2 down: within the limit (PASS); point mode reads only the point estimate
    assert rise.outcome(2, 2, 101) == "PASS"
    assert CensusRule(IMPROVED, 0.10, False, "point", 0.05).fails(15, 31, 101)
