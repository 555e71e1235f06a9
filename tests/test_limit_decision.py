"""A rule's three outcomes from one interval and its limit (issue 53): FAIL and PASS are mirror images."""

from __future__ import annotations

from evalgate_lib.statistics.limit_decision import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    breaches,
    past_limit,
    three_way,
    within_limit,
)


def test_a_rise_rule_reads_the_interval_against_the_limit() -> None:
    # at most +10 points: [+2.8, +28.4] holds 10 (neither side), [+11, +30] lies past it, [-5, +9] within it
    assert three_way(0.158, (0.028, 0.284), 0.10, False, "significant") == INCONCLUSIVE
    assert three_way(0.20, (0.11, 0.30), 0.10, False, "significant") == FAIL
    assert three_way(0.02, (-0.05, 0.09), 0.10, False, "significant") == PASS
    assert three_way(0.05, (-0.05, 0.10), 0.10, False, "significant") == PASS  # touching the limit is within it
    assert three_way(0.15, (0.10, 0.20), 0.10, False, "significant") == INCONCLUSIVE  # touching it is not past it


def test_a_drop_rule_is_the_mirror() -> None:
    # at most a 5-point drop: the interval [-23.5, -1.7] holds -5; [-20, -6] lies past it; [-4, +3] within it
    assert three_way(-0.123, (-0.235, -0.017), 0.05, True, "significant") == INCONCLUSIVE
    assert three_way(-0.13, (-0.20, -0.06), 0.05, True, "significant") == FAIL
    assert three_way(-0.01, (-0.04, 0.03), 0.05, True, "significant") == PASS


def test_the_point_estimate_must_agree_and_point_mode_reads_it_alone() -> None:
    # an interval past the limit with the estimate inside it cannot FAIL (and the mirror cannot PASS)
    assert three_way(0.05, (0.11, 0.30), 0.10, False, "significant") == INCONCLUSIVE
    assert three_way(0.12, (-0.05, 0.09), 0.10, False, "significant") == INCONCLUSIVE
    assert three_way(0.12, None, 0.10, False, "significant") == INCONCLUSIVE  # no interval shows nothing
    assert three_way(None, (0.0, 0.0), 0.10, False, "significant") == INCONCLUSIVE  # nothing measured
    assert three_way(0.12, None, 0.10, False, "point") == FAIL
    assert three_way(0.10, None, 0.10, False, "point") == PASS  # exactly at the limit is no breach


def test_the_parts() -> None:
    assert breaches(-0.06, 0.05, True) and not breaches(-0.05, 0.05, True) and not breaches(None, 0.05, True)
    assert breaches(6.0, 5.0, False) and not breaches(5.0, 5.0, False)
    assert past_limit(5.5, 30.0, 5.0, False) and not past_limit(5.0, 30.0, 5.0, False)
    assert within_limit(-3.0, 5.0, 5.0, False) and not within_limit(-3.0, 5.1, 5.0, False)
    assert past_limit(-0.3, -0.06, 0.05, True) and within_limit(-0.05, 0.2, 0.05, True)
