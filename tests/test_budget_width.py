"""The interval forecast `evalgate sample` prints: the labels-only variance of a delta at m of N labelled, by hand."""

from __future__ import annotations

import math

import pytest

from evalgate_lib.statistics.budget_width import forecast, labels_for_width


def test_forecast_by_hand() -> None:
    # deltas: 2 of 10 questions moved down, none up: mean -0.2, sample variance (2·0.64 + 8·0.04) / 9 = 1.6 / 9
    deltas = [-1.0, -1.0] + [0.0] * 8
    s2 = 1.6 / 9 + 2 * 0.05  # plus two answers each wrong with probability 0.05
    got = forecast(deltas, labelled=5)
    z = 1.959964
    assert got.half_width == pytest.approx(z * math.sqrt(s2 / 10 + (1 - 5 / 10) * s2 / 5), abs=1e-5)
    assert got.floor == pytest.approx(z * math.sqrt(s2 / 10), abs=1e-5)  # every question labelled
    assert forecast(deltas, labelled=10).half_width == got.floor


def test_the_budget_a_width_needs() -> None:
    deltas = [-1.0] * 4 + [0.0] * 96
    need = labels_for_width(deltas, 0.1)
    assert need is not None and forecast(deltas, need).half_width <= 0.1 < forecast(deltas, need - 1).half_width
    assert labels_for_width(deltas, 0.001) is None  # below the question-sampling floor: no budget reaches it
    with pytest.raises(ValueError):
        forecast(deltas, 0)


def test_the_labels_that_would_decide_a_rule() -> None:
    """The first m whose forecast interval around the estimate settles the rule: within the limit, or past 0."""
    from evalgate_lib.statistics.budget_width import labels_to_decide

    deltas = [0.0] * 400  # nothing moved by the judge: only the assumed judge errors spread the labels
    need = labels_to_decide(deltas, 0.0, 0.05, drop=True)
    assert need is not None and forecast(deltas, need).half_width <= 0.05 < forecast(deltas, need - 1).half_width
    # a drop of 20 points past a 5-point limit: FAIL once the interval clears 0
    moved = [-1.0] * 80 + [0.0] * 320
    need = labels_to_decide(moved, -0.2, 0.05, drop=True)
    assert need is not None and forecast(moved, need).half_width < 0.2 <= forecast(moved, need - 1).half_width
    assert labels_to_decide([0.0] * 10, 0.0, 0.01, drop=True) is None  # ten questions never show 1 point
