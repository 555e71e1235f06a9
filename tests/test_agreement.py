"""Tests for evalgate_lib.statistics.agreement_measures, with expected values worked out by hand."""

from __future__ import annotations

import json

import pytest

from evalgate_lib.statistics.agreement_measures import (
    CensusRate,
    Confusion,
    Interval,
    JudgementAgreement,
    agreement,
    bootstrap_agreement,
    census_rate,
    cohen_kappa,
    confusion,
    format_agreement_table,
    interrater,
    interval_text,
    judgement_agreement,
    precision,
    recall,
)
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED


def _vectors(tp: int, fp: int, fn: int, tn: int) -> tuple[list[bool], list[bool]]:
    """auto/human vectors realising a given table, cells interleaved so order carries no information."""
    cells = [(True, True)] * tp + [(True, False)] * fp + [(False, True)] * fn + [(False, False)] * tn
    cells = cells[::2] + cells[1::2]
    return [a for a, _ in cells], [h for _, h in cells]


# --- confusion ----------------------------------------------------------------------------------------


def test_confusion_counts_each_cell() -> None:
    # pairs (auto, human): TT, TF, FT, FF, TT, FF, FF → tp 2, fp 1, fn 1, tn 3
    auto = [True, True, False, False, True, False, False]
    human = [True, False, True, False, True, False, False]
    assert confusion(auto, human) == Confusion(tp=2, fp=1, fn=1, tn=3)
    assert confusion(auto, human).n == 7


def test_confusion_accepts_zero_one_and_refuses_none() -> None:
    assert confusion([1, 0], [1, 1]) == Confusion(1, 0, 1, 0)
    with pytest.raises(ValueError, match=r"human\[1\] = None"):
        confusion([True, False], [True, None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="auto has 2 values, human has 1"):
        confusion([True, False], [True])


# --- point statistics ------------------------------------------------------------------------------------


def test_worked_example_from_the_brief() -> None:
    # tp=40 fp=5 fn=10 tn=45, n = 100
    c = Confusion(tp=40, fp=5, fn=10, tn=45)
    assert agreement(c) == 0.85  # (40 + 45) / 100
    assert precision(c) == round(40 / 45, 6) == 0.888889
    assert recall(c) == 0.8  # 40 / 50
    # p_o = 0.85; auto positive 45, human positive 50: p_e = (45·50 + 55·50) / 100² = 0.5
    # κ = (0.85 − 0.5) / (1 − 0.5) = 0.7
    assert cohen_kappa(c) == 0.7


def test_vectors_give_the_same_table_and_numbers() -> None:
    auto, human = _vectors(40, 5, 10, 45)
    assert confusion(auto, human) == Confusion(40, 5, 10, 45)


def test_perfect_table_has_kappa_one() -> None:
    c = Confusion(tp=3, fp=0, fn=0, tn=7)
    assert agreement(c) == 1.0
    assert precision(c) == 1.0
    assert recall(c) == 1.0
    assert cohen_kappa(c) == 1.0  # p_o = 1, p_e = (3·3 + 7·7) / 100 = 0.58 → (1 − 0.58) / 0.42 = 1


def test_kappa_of_chance_level_and_of_opposite_raters() -> None:
    # tp=fp=fn=tn=1: p_o = 0.5, p_e = (2·2 + 2·2) / 16 = 0.5 → κ = 0
    assert cohen_kappa(Confusion(1, 1, 1, 1)) == 0.0
    # total disagreement with balanced marginals: p_o = 0, p_e = (1·1 + 1·1)/4 = 0.5 → κ = −1
    assert cohen_kappa(Confusion(0, 1, 1, 0)) == -1.0
    # both constant, in different classes: auto all True, human all False → p_e = 0, κ = (0 − 0)/1 = 0
    assert cohen_kappa(Confusion(0, 4, 0, 0)) == 0.0


def test_undefined_cases_are_none() -> None:
    empty = Confusion(0, 0, 0, 0)
    assert (agreement(empty), precision(empty), recall(empty), cohen_kappa(empty)) == (None, None, None, None)
    # nothing flagged: precision 0/0; reviewer found 2 positives, recall 0/2 = 0
    nothing_flagged = Confusion(tp=0, fp=0, fn=2, tn=3)
    assert precision(nothing_flagged) is None
    assert recall(nothing_flagged) == 0.0
    # reviewer found nothing positive: recall 0/0
    assert recall(Confusion(tp=0, fp=2, fn=0, tn=3)) is None
    # both sides say "negative" for every item: agreement 1, p_e = 1 → κ = 0/0 → None (documented)
    all_negative = Confusion(0, 0, 0, 5)
    assert agreement(all_negative) == 1.0
    assert cohen_kappa(all_negative) is None
    assert cohen_kappa(Confusion(5, 0, 0, 0)) is None


def test_values_are_rounded_to_six_places() -> None:
    # 1/3 = 0.333333…
    assert agreement(Confusion(1, 1, 1, 0)) == 0.333333


# --- bootstrap -------------------------------------------------------------------------------------------


def test_bootstrap_points_equal_the_scalar_functions_and_intervals_contain_them() -> None:
    auto, human = _vectors(40, 5, 10, 45)
    result = bootstrap_agreement(auto, human, resamples=2000)
    assert (result["n"], result["tp"], result["fp"], result["fn"], result["tn"]) == (100, 40, 5, 10, 45)
    assert result["agreement"]["value"] == 0.85
    assert result["precision"]["value"] == 0.888889
    assert result["recall"]["value"] == 0.8
    assert result["kappa"]["value"] == 0.7
    for name in ("agreement", "precision", "recall", "kappa"):
        stat = result[name]
        assert stat["ci_low"] <= stat["value"] <= stat["ci_high"], name
        assert stat["ci_low"] < stat["ci_high"], name  # 100 mixed items: the interval is not degenerate
        assert stat["resamples_used"] == 2000, name  # with 45 flagged and 50 positives, never undefined
    assert (result["seed"], result["resamples"], result["confidence"]) == (DEFAULT_SEED, 2000, 0.95)
    json.dumps(result)  # JSON-friendly


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    auto, human = _vectors(12, 3, 4, 11)
    first = bootstrap_agreement(auto, human, seed=5, resamples=1000)
    assert first == bootstrap_agreement(auto, human, seed=5, resamples=1000)
    other = bootstrap_agreement(auto, human, seed=6, resamples=1000)
    assert other["agreement"]["value"] == first["agreement"]["value"]  # points never depend on the seed
    assert (other["agreement"]["ci_low"], other["agreement"]["ci_high"], other["kappa"]["ci_low"]) != (
        first["agreement"]["ci_low"],
        first["agreement"]["ci_high"],
        first["kappa"]["ci_low"],
    )


def test_bootstrap_single_item_gets_the_exact_interval_and_kappa_is_never_defined() -> None:
    # one item, both True: every resample is that item, so the bootstrap says [1, 1]; a share of 1 of 1 gets
    # the exact Clopper-Pearson interval instead: [0.025^(1/1), 1] = [0.025, 1];
    # κ: p_e = 1 in every resample → undefined → no usable resample
    result = bootstrap_agreement([True], [True], resamples=50)
    for name in ("agreement", "precision", "recall"):
        assert result[name] == {"value": 1.0, "ci_low": 0.025, "ci_high": 1.0, "resamples_used": 50, "method": "exact"}
    assert result["kappa"] == {
        "value": None, "ci_low": None, "ci_high": None, "resamples_used": 0, "method": "undefined"
    }  # fmt: skip


def test_bootstrap_skips_resamples_where_a_statistic_is_undefined() -> None:
    # perfect agreement on 2 positives and 3 negatives: every resample agrees perfectly (agreement 1);
    # a resample drawing only negatives has no flagged item (precision undefined) and p_e = 1 (κ undefined).
    # P(no positive in 5 draws) = 0.6^5 ≈ 7.8%, so some resamples are skipped and the rest give exactly 1.
    # Five items are too few for a bootstrap: the shares get the exact interval of k of n (lower bound
    # 0.025^(1/n) when k = n: 5 of 5 → 0.478176, 2 of 2 → 0.158114), κ gets none.
    auto = human = [True, True, False, False, False]
    result = bootstrap_agreement(auto, human, resamples=1000)
    assert result["agreement"] == {
        "value": 1.0, "ci_low": 0.478176, "ci_high": 1.0, "resamples_used": 1000, "method": "exact"
    }  # fmt: skip
    for name in ("precision", "recall"):
        assert result[name] | {"resamples_used": 0} == {
            "value": 1.0, "ci_low": 0.158114, "ci_high": 1.0, "resamples_used": 0, "method": "exact"
        }  # fmt: skip
    assert (result["kappa"]["value"], result["kappa"]["ci_low"], result["kappa"]["method"]) == (
        1.0, None, "too few labels"
    )  # fmt: skip
    for name in ("precision", "recall", "kappa"):
        assert 0 < result[name]["resamples_used"] < 1000, name
    assert result["precision"]["resamples_used"] == result["recall"]["resamples_used"]  # both need a positive


def test_eight_labels_that_all_agree_do_not_read_as_certainty() -> None:
    """The issue's case: 8 labels, all agreeing, printed "1.000 [1.000, 1.000]"."""
    auto = human = [True] * 3 + [False] * 5
    result = judgement_agreement("correct", auto, human, resamples=2000)
    assert interval_text(result.agreement) == "1.000 [0.631, 1.000]"  # 0.025^(1/8) = 0.6306
    assert interval_text(result.kappa) == "1.000 (too few labels to say)"
    table = format_agreement_table([result])
    assert "1.000 [1.000, 1.000]" not in table and "exact Clopper-Pearson interval of the count" in table


def test_a_large_sample_keeps_its_bootstrap_interval_and_a_spread_free_kappa_says_so() -> None:
    auto, human = _vectors(40, 5, 10, 45)  # 100 mixed items: nothing is replaced
    result = judgement_agreement("x", auto, human, resamples=500)
    assert {i.method for i in (result.agreement, result.precision, result.recall, result.kappa)} == {"bootstrap"}
    same = judgement_agreement("y", [True] * 20 + [False] * 20, [True] * 20 + [False] * 20, resamples=200)
    assert same.kappa.method == "no spread"
    assert interval_text(same.kappa, 2) == "1.00 (no spread in the resamples to say)"
    assert same.agreement.method == "exact" and same.agreement.ci_low == round(0.025 ** (1 / 40), 6)


def test_bootstrap_empty_and_bad_settings() -> None:
    result = bootstrap_agreement([], [], resamples=10)
    assert result["n"] == 0
    assert result["kappa"] == {
        "value": None, "ci_low": None, "ci_high": None, "resamples_used": 0, "method": "undefined"
    }  # fmt: skip
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_agreement([True], [True], resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_agreement([True], [True], confidence=1.0)


def test_interrater_reports_agreement_and_kappa_only() -> None:
    # pass1 vs pass2: TT, TT, TF, FF, FF, FF → a=2 both yes, b=1, c=0, d=3
    # p_o = 5/6; p_e = (3·2 + 3·4) / 36 = 0.5 → κ = (5/6 − 1/2) / (1/2) = 2/3
    pass1 = [True, True, True, False, False, False]
    pass2 = [True, True, False, False, False, False]
    result = interrater(pass1, pass2, resamples=500)
    assert "precision" not in result and "recall" not in result
    assert result["agreement"]["value"] == 0.833333
    assert result["kappa"]["value"] == 0.666667
    assert (result["tp"], result["fp"], result["fn"], result["tn"]) == (2, 1, 0, 3)


# --- judgement rows and the table ----------------------------------------------------------------------


def test_judgement_agreement_matches_bootstrap_agreement() -> None:
    auto, human = _vectors(40, 5, 10, 45)
    row = judgement_agreement("hallucination", auto, human, scorer="token-overlap", resamples=500)
    boot = bootstrap_agreement(auto, human, resamples=500)
    assert row.confusion == Confusion(40, 5, 10, 45)
    assert row.kappa == Interval(**boot["kappa"])
    assert row.precision == Interval(**boot["precision"])
    assert row.to_dict()["confusion"] == {"tp": 40, "fp": 5, "fn": 10, "tn": 45}


def test_format_agreement_table_exact_text() -> None:
    rows = [
        JudgementAgreement(
            "correct",
            "",
            Confusion(40, 5, 10, 45),
            Interval(0.85, 0.78, 0.91, 1000),
            Interval(0.888889, 0.8, 0.97, 1000),
            Interval(0.8, 0.69, 0.9, 1000),
            Interval(0.7, 0.56, 0.82, 1000),
            DEFAULT_SEED,
            1000,
            0.95,
        ),
        JudgementAgreement(
            "hallucination",
            "overlap",
            Confusion(0, 0, 2, 3),
            Interval(0.6, 0.2, 1.0, 1000),
            Interval(None, None, None, 0),
            Interval(0.0, 0.0, 0.0, 900),
            Interval(0.0, None, None, 0),
            DEFAULT_SEED,
            1000,
            0.95,
        ),
    ]
    expected = (
        "judgement                answers  TP  FP  FN  TN        agreement [CI]        precision [CI]"
        "           recall [CI]        Cohen's κ [CI]\n"
        "-----------------------  -------  --  --  --  --  --------------------  --------------------"
        "  --------------------  --------------------\n"
        "correct                      100  40   5  10  45  0.850 [0.780, 0.910]  0.889 [0.800, 0.970]"
        "  0.800 [0.690, 0.900]  0.700 [0.560, 0.820]\n"
        "hallucination (overlap)        5   0   0   2   3  0.600 [0.200, 1.000]                     —"
        "  0.000 [0.000, 0.000]             0.000 [—]\n"
        "95% percentile bootstrap intervals over items, 1000 resamples, seed 20261202; — = undefined (0/0).\n"
    )
    assert format_agreement_table(rows) == expected


# --- a census of labels: the labels' own rate ------------------------------------------------------------


def test_a_census_rate_is_the_labels_own_with_the_exact_interval() -> None:
    """Why 3: every answer labelled, so no label-sampling term: 8 of 10 labels true, the judge 7 of 10.

    Clopper-Pearson: the lower bound solves P(X >= 8 | 10, p) = 0.025, beta(0.025; 8, 3) = 0.443905; the
    upper P(X <= 8 | 10, p) = 0.025, beta(0.975; 9, 2) = 0.974789.
    """
    from scipy.stats import beta

    human = [1] * 8 + [0] * 2
    auto = [1] * 6 + [0] * 3 + [1]
    result = census_rate(auto, human)
    assert result == CensusRate(
        estimate=0.8, ci_low=0.443905, ci_high=0.974789, n_labelled=10, n_total=10, naive_auto_rate=0.7,
        human_only_rate=0.8, confidence=0.95,
    )  # fmt: skip
    assert result.ci_low == round(float(beta.ppf(0.025, 8, 3)), 6) and result.ci_high == round(
        float(beta.ppf(0.975, 9, 2)), 6
    )
    with pytest.raises(ValueError, match="at least one"):
        census_rate([], [])
    with pytest.raises(ValueError, match="auto has 2 values, human has 1"):
        census_rate([1, 0], [1])
    with pytest.raises(ValueError, match="confidence"):
        census_rate([1], [1], confidence=1.0)


def test_grounded_but_wrong_on_the_reviewers_side_needs_a_claim() -> None:
    """Why 4: the flag never fires on an answer that claims nothing, so the reviewer's side does not either."""
    from evalgate_lib.inputs.labels import Label, SentenceLabel
    from evalgate_lib.statistics.run_agreement import human_judgements

    def label(**kw):  # noqa: ANN003, ANN202
        return Label("c", "q1", "0" * 64, False, False, "ana", **kw)

    nothing = label(sentences=(SentenceLabel("Thanks for asking!", None),))
    assert human_judgements(nothing)["grounded-but-wrong"] is False  # wrong, nothing unsupported, but no claim
    claims = label(sentences=(SentenceLabel("Thanks!", None), SentenceLabel("It has 3 seats.", True)))
    assert human_judgements(claims)["grounded-but-wrong"] is True
    assert human_judgements(label())["grounded-but-wrong"] is True  # no sentences recorded: not a refusal
    assert human_judgements(label(refusal=True))["grounded-but-wrong"] is False
