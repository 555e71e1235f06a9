"""Heatmaps draw the run's own verdicts and name the scorer whose scale the scores are on."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from conftest import make_row  # noqa: E402

from evalgate_lib.judging.rows import SentenceVerdict  # noqa: E402
from evalgate_lib.judging.scorers import scorer_floor  # noqa: E402
from evalgate_lib.reporting.plots import coverage_heatmap, coverage_matrix_heatmap, token_marks_html  # noqa: E402

# a high score with an unsupported verdict (a number no span holds): the colour must follow the verdict
SENTENCES = (
    SentenceVerdict("Starter includes 3 seats.", (), (), 0.88, False, reason="no span holds 3"),
    SentenceVerdict("It is cheap.", (), (), 0.40, True, reason="held"),
    SentenceVerdict("I hope this helps!", (), (), None, None, reason="courtesy"),
)


def _cells(ax) -> np.ndarray:
    return np.ma.filled(ax.images[0].get_array().astype(float), np.nan)


def test_cells_are_coloured_by_verdict_and_the_legend_names_the_scorer() -> None:
    row = make_row(sentences=SENTENCES, scorer="prose@3")
    ax = coverage_heatmap(row)
    cells = _cells(ax)
    assert cells[0, 0] == 0.0 and cells[1, 0] == 1.0 and np.isnan(cells[2, 0])
    label = ax.figure.axes[-1].get_ylabel()
    assert "prose@3" in label and "floor 0.55" in label
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["0.88  ✗ unsupported", "0.40  ✓", "n/a"]


def test_each_scorer_has_its_own_floor() -> None:
    assert scorer_floor("prose@4") == 0.55 and scorer_floor("lexical@1") == 0.70
    assert scorer_floor("no-such-scorer") is None


def test_the_matrix_says_which_answers_it_draws() -> None:
    rows = [make_row(question_id=f"q{i:03d}", sentences=SENTENCES, scorer="lexical@1") for i in range(3)]
    ax = coverage_matrix_heatmap(rows, title="answers drawn (baseline: first 3 of 101)")
    assert ax.get_title() == "answers drawn (baseline: first 3 of 101)"
    assert "lexical@1" in ax.figure.axes[-1].get_ylabel() and "floor 0.70" in ax.figure.axes[-1].get_ylabel()


def test_the_delta_chart_labels_bars_as_the_table_prints_them() -> None:
    from evalgate_lib.reporting.plots import delta_bar_chart
    from evalgate_lib.statistics.metrics import METRICS, Summary

    delta = {m.key: None for m in METRICS} | {"mrr": 0.01, "accuracy_answerable": -0.074, "hallucination": 13}
    fig = delta_bar_chart(Summary("b", "c", {}, delta, {}, {}))
    labels = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "+0.010" in labels and "-7.4 pts" in labels and "+13" in labels  # MRR is not drawn as "+1.0"


def test_one_support_figure_and_marks_that_follow_the_verdicts_words() -> None:
    from evalgate_lib.judging.answer import judge_answer

    passage = ("Plans", "Starter includes 3 seats in its fee.")
    (verdict,) = judge_answer(question="How many seats does Starter include?",
                              answer="Starter bundles 3 seats into its cheap yearly fee package.",
                              passages=[passage], accept=("3 seats",)).sentences  # fmt: skip
    # the figure the cell and the row show is the one the reason quotes, and the marks follow its missing words
    assert f"({verdict.coverage:.2f})" in verdict.reason and verdict.outcome == "undecided, leaning unsupported"
    marks = token_marks_html(verdict)
    missing = 'eg-tok-missing" title="not in the span the verdict names" '
    assert missing + 'style="background:#ffcdd2;text-decoration:line-through">bundles' in marks
    assert 'eg-tok-found" title="in the span the verdict names" style="background:#c8e6c9">seats' in marks
