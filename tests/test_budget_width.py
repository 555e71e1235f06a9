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
