"""Tests for evalgate_lib.statistics.metrics: summaries, deltas and the printed table on hand-made rows."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import make_flags, make_matching, make_retrieval, make_row

from evalgate_lib.judging.rows import ResultRow, RetrievalScores
from evalgate_lib.statistics.metrics import (
    METRIC_KEYS,
    aggregate,
    compare,
    format_p,
    format_table,
    format_value,
    in_population,
    summarise,
)


def rm(r1: bool, r3: bool, r5: bool, r10: bool, rr: float, ev_hit: bool | None, ev_rr: float | None) -> RetrievalScores:
    scores = make_retrieval(recall={1: r1, 3: r3, 5: r5, 10: r10}, reciprocal_rank=rr)
    if ev_hit is None:
        return scores
    return dataclasses.replace(scores, evidence_hit=ev_hit, evidence_reciprocal_rank=ev_rr)


def make(config: str, qid: str, qtype: str, hit: bool | None, retrieval: RetrievalScores | None, correct: bool,
         normalised: bool | None, grounded: float | None, **flags: bool) -> ResultRow:  # fmt: skip
    return make_row(
        config=config,
        question_id=qid,
        type=qtype,
        retrieval_hit=hit,
        retrieval_metrics=retrieval,
        correct=correct,
        matching=make_matching(correct, normalised),
        groundedness=grounded,
        flags=make_flags(**flags),
    )


BASE = [
    make("baseline", "q1", "answerable", True, rm(True, True, True, True, 1.0, True, 1.0), True, True, 1.0),
    make("baseline", "q2", "answerable", False, rm(False, False, True, True, 0.2, False, 0.0), False, True, 0.5,
         wrong=True, hallucination=True, review=True, unsupported_claim=True),
    make("baseline", "q3", "answerable", True, rm(False, True, True, True, 0.5, None, None), False, False, 1.0,
         wrong=True, grounded_but_wrong=True),
    make("baseline", "q4", "no_answer", None, None, True, None, None),
]  # fmt: skip
CAND = [
    make("candidate", "q1", "answerable", True, rm(True, True, True, True, 1.0, True, 1.0), True, True, 1.0),
    make("candidate", "q2", "answerable", True, rm(False, True, True, True, 0.5, True, 0.5), True, True, 0.8,
         review=True, unsupported_claim=True),
    make("candidate", "q3", "answerable", True, rm(True, True, True, True, 1.0, None, None), False, False, None,
         wrong=True),
    make("candidate", "q4", "no_answer", None, None, False, None, 0.25, wrong=True, hallucination=True, review=True,
         unsupported_claim=True),
]  # fmt: skip


def test_summarise_baseline_by_hand() -> None:
    s = summarise(BASE)
    assert s == {
        "questions": 4,
        "answerable": 3,
        "no_answer": 1,
        "retrieval_recall": 0.666667,  # hits T, F, T → 2/3
        "recall@1": 0.333333,  # T, F, F → 1/3
        "recall@3": 0.666667,  # T, F, T → 2/3
        "recall@5": 1.0,
        "recall@10": 1.0,
        "mrr": 0.566667,  # (1 + 0.2 + 0.5) / 3 = 1.7 / 3
        "evidence_hit": 0.5,  # T, F, (None skipped) → 1/2
        "evidence_mrr": 0.5,  # (1.0 + 0.0) / 2
        "accuracy_answerable": 0.333333,  # T, F, F → 1/3
        "accuracy_normalised": 0.666667,  # T, T, F → 2/3
        "refusal_accuracy": 1.0,  # q4 refused correctly
        "accuracy_overall": 0.5,  # T, F, F, T → 2/4
        "mean_groundedness": 0.833333,  # (1 + 0.5 + 1) / 3, q4's None skipped
        "unsupported_claim": 0.25,  # q2 only, of all 4 answers
        "wrong": 2,
        "hallucination": 1,
        "grounded_but_wrong": 1,
        "review": 1,
    }


def test_summarise_candidate_by_hand() -> None:
    s = summarise(CAND)
    assert s["retrieval_recall"] == 1.0  # T, T, T
    assert s["recall@1"] == 0.666667  # T, F, T
    assert s["mrr"] == 0.833333  # (1 + 0.5 + 1) / 3
    assert s["evidence_hit"] == 1.0  # T, T, (None)
    assert s["evidence_mrr"] == 0.75  # (1 + 0.5) / 2
    assert s["accuracy_answerable"] == 0.666667  # T, T, F
    assert s["accuracy_normalised"] == 0.666667
    assert s["refusal_accuracy"] == 0.0
    assert s["accuracy_overall"] == 0.5  # T, T, F, F
    assert s["mean_groundedness"] == 0.683333  # (1 + 0.8 + 0.25) / 3, q3's None skipped
    assert s["unsupported_claim"] == 0.5  # q2 (right, with an unsupported claim) and q4, of 4
    assert (s["wrong"], s["hallucination"], s["grounded_but_wrong"], s["review"]) == (2, 1, 0, 2)


def test_summarise_empty_and_missing_populations() -> None:
    s = summarise([])
    assert s["questions"] == 0
    assert all(s[k] is None for k in METRIC_KEYS if k not in ("wrong", "hallucination", "grounded_but_wrong", "review"))
    assert (s["wrong"], s["review"]) == (0, 0)
    only_no_answer = summarise([BASE[3]])
    assert only_no_answer["accuracy_answerable"] is None and only_no_answer["retrieval_recall"] is None
    assert only_no_answer["refusal_accuracy"] == 1.0


def test_rows_without_retrieval_metrics_or_matching() -> None:
    # a row without rank metrics or a normalised verdict: those are n/a, the rest still computes
    base = BASE[0]
    judgement = dataclasses.replace(base.judgement, matching=make_matching(True, None))
    row = dataclasses.replace(base, retrieval_metrics=None, judgement=judgement)
    s = summarise([row])
    assert s["recall@1"] is None and s["mrr"] is None and s["accuracy_normalised"] is None
    assert s["accuracy_answerable"] == 1.0 and s["retrieval_recall"] == 1.0


def test_compare_deltas_by_hand() -> None:
    comparison = compare(BASE + CAND, "baseline", "candidate")
    assert comparison.baseline == "baseline" and comparison.candidate == "candidate"
    assert comparison.configs["baseline"] == summarise(BASE)
    assert comparison.configs["candidate"] == summarise(CAND)
    assert comparison.delta == {
        "retrieval_recall": 0.333333,  # 1.0 - 0.666667
        "recall@1": 0.333334,  # 0.666667 - 0.333333 (means are rounded before subtracting)
        "recall@3": 0.333333,
        "recall@5": 0.0,
        "recall@10": 0.0,
        "mrr": 0.266666,  # 0.833333 - 0.566667
        "evidence_hit": 0.5,
        "evidence_mrr": 0.25,
        "accuracy_answerable": 0.333334,
        "accuracy_normalised": 0.0,
        "refusal_accuracy": -1.0,
        "accuracy_overall": 0.0,
        "mean_groundedness": -0.15,  # 0.683333 - 0.833333
        "unsupported_claim": 0.25,  # 0.5 - 0.25: q4 gained the flag, q2 kept it
        "wrong": 0,
        "hallucination": 0,
        "grounded_but_wrong": -1,
        "review": 1,
    }


def test_compare_ignores_other_configs_and_row_order() -> None:
    other = [dataclasses.replace(r, config="other") for r in CAND]
    assert (
        compare(list(reversed(CAND)) + other + BASE, "baseline", "candidate").delta
        == compare(BASE + CAND, "baseline", "candidate").delta
    )


def test_compare_significance_is_paired_by_question() -> None:
    sig = compare(BASE + CAND, "baseline", "candidate").significance
    assert set(sig) == set(METRIC_KEYS)
    assert sig["accuracy_answerable"]["n"] == 3  # answerable questions only
    assert sig["accuracy_answerable"]["delta"] == pytest.approx(1 / 3, abs=1e-6)
    assert sig["refusal_accuracy"]["n"] == 1
    # counts are scaled back to questions: gbw per-question diffs 0, 0, -1, 0 → mean -1/4 × 4 = -1
    assert sig["grounded_but_wrong"]["delta"] == -1.0
    assert "p_value" in sig["wrong"] and "p_value" not in sig["mrr"]
    # a yes/no rate like the accuracies: McNemar on the pairs, q4 the one discordant pair (0 → 1), p = 1.0
    assert (sig["unsupported_claim"]["b"], sig["unsupported_claim"]["c"], sig["unsupported_claim"]["n"]) == (0, 1, 4)
    assert sig["unsupported_claim"]["p_value"] == 1.0


def test_delta_is_none_when_one_side_is_undefined() -> None:
    base = [BASE[3]]  # no answerable rows → accuracy_answerable None
    cand = [CAND[0], CAND[3]]
    delta = compare(base + cand, "baseline", "candidate").delta
    assert delta["accuracy_answerable"] is None
    assert delta["refusal_accuracy"] == -1.0


@pytest.mark.parametrize(
    ("value", "kind", "signed", "text"),
    [
        (0.666667, "rate", False, "66.7%"),
        (0.333334, "rate", True, "+33.3 pts"),
        (-1.0, "rate", True, "-100.0 pts"),
        (0.0, "rate", True, "+0.0 pts"),
        (0.833333, "score", False, "0.833"),
        (-0.15, "score", True, "-0.150"),
        (2, "count", False, "2"),
        (-1, "count", True, "-1"),
        (0, "count", True, "+0"),
        (None, "rate", True, "n/a"),
    ],
)
def test_format_value(value: float | None, kind: str, signed: bool, text: str) -> None:
    assert format_value(value, kind, signed) == text


def test_format_table_contains_values_and_deltas() -> None:
    table = format_table(compare(BASE + CAND, "baseline", "candidate"))
    lines = table.splitlines()
    assert lines[0].split()[:4] == ["metric", "baseline", "candidate", "delta"]
    assert set(lines[1].replace(" ", "")) == {"-"}

    def line(label: str) -> str:
        (found,) = [x for x in lines if x.startswith(label + " ")]
        return found

    assert "33.3%" in line("accuracy on answerable") and "66.7%" in line("accuracy on answerable")
    assert "+33.3 pts" in line("accuracy on answerable")
    assert "-100.0 pts" in line("refusal accuracy on no-answer")
    assert "+0.0 pts" in line("accuracy overall")
    assert "0.833" in line("mean groundedness") and "0.683" in line("mean groundedness")
    assert "-0.150" in line("mean groundedness")
    assert "+0.267" in line("MRR@10 (doc)")  # a run ranks 10 deep: its MRR is MRR@10, and named so
    assert "+1" in line("review queue")
    assert "-1" in line("grounded-but-wrong flags")
    assert " +0 " in line("wrong") + " "
    assert lines[-2] == "questions: 4 (3 answerable, 1 no-answer)"
    assert lines[-1].startswith("95% CI: yes/no metrics exact McNemar (Clopper-Pearson")
    assert "scores percentile bootstrap" in lines[-1]
    # one row per metric, plus header, rule, the counts line and the line naming the intervals
    assert len(lines) == len(METRIC_KEYS) + 4


def test_format_table_without_significance_and_with_none() -> None:
    comparison = dataclasses.replace(compare([BASE[3], CAND[3]], "baseline", "candidate"), significance={})
    table = format_table(comparison)
    assert "n/a" in table  # accuracy on answerable: no answerable rows
    assert table.splitlines()[-2] == "questions: 1 (0 answerable, 1 no-answer)"


def test_an_undefined_metric_prints_no_test_beside_it() -> None:
    """Rows without retrieval metrics (a log without doc ids): the retrieval rows read n/a in every column, McNemar
    p included (no "1.000" beside an n/a delta); a score has no McNemar p at all (blank)."""
    rows = [dataclasses.replace(r, retrieval_metrics=None, retrieval_hit=None) for r in BASE + CAND]
    table = format_table(compare(rows, "baseline", "candidate")).splitlines()
    (recall,) = [x for x in table if x.startswith("recall@1 (doc) ")]
    assert recall.split()[-5:] == ["n/a"] * 5
    (groundedness,) = [x for x in table if x.startswith("mean groundedness ")]
    assert groundedness.rstrip().endswith("[+0.000, +0.300]")  # its interval, and a blank McNemar column
    assert format_p(None, binary=True) == "n/a" and format_p(None, binary=False) == "" and format_p(0.0312, True) == (
        "0.031"
    )


def test_aggregate_is_the_one_mean_and_count() -> None:
    assert aggregate("count", [True, False, True, None]) == 2
    assert aggregate("rate", [True, False, True, None]) == 0.666667  # None skipped: 2/3
    # MRR is the mean of reciprocal ranks: (1 + 0.5 + 0 + 0.25) / 4 = 0.4375
    assert aggregate("score", [1.0, 0.5, 0.0, 0.25]) == 0.4375
    assert aggregate("score", []) is None and aggregate("rate", [None]) is None
    assert aggregate("count", []) == 0


def test_in_population() -> None:
    assert in_population(BASE[0], "answerable") and not in_population(BASE[0], "no_answer")
    assert in_population(BASE[3], "no_answer") and in_population(BASE[3], "all")


def _ranked(config: str, qid: str, gold_rank: int | None) -> ResultRow:
    """An answerable question answered from 4 passages (ranks 1-4), the gold article at ``gold_rank`` of them."""
    from evalgate_lib.judging.rows import RetrievedChunk

    passages = tuple(RetrievedChunk(k, f"a#{k}", "a", k, 0, 10, 0.9 - k / 10) for k in range(1, 5))
    return make_row(config=config, question_id=qid, retrieved=passages, retrieval_metrics=make_retrieval(gold_rank),
                    retrieval_hit=gold_rank is not None)  # fmt: skip


def test_rank_metrics_at_the_depth_the_log_holds() -> None:
    """Logs of 4 passages: recall@5 and recall@10 are not measurable, MRR is MRR@4; a run ranks 10 deep (why 1)."""
    from evalgate_lib.statistics.metrics import metric_label, ranking_depths

    rows = [_ranked("baseline", q, r) for q, r in (("q1", 1), ("q2", 3), ("q3", None))]
    rows += [_ranked("candidate", q, r) for q, r in (("q1", 2), ("q2", 4), ("q3", 1))]
    depths = ranking_depths(rows, ("baseline", "candidate"), None, logged=True)
    assert depths == {"baseline": 4, "candidate": 4}
    logged = compare(rows, "baseline", "candidate", depths=depths)
    base, cand = logged.baseline_metrics, logged.candidate_metrics
    # the rows say recall@5 (= recall@4 here: 2 of 3 found in 4 passages); the summary does not claim it
    assert base["recall@5"] is None and base["recall@10"] is None and logged.delta["recall@10"] is None
    assert logged.significance["recall@5"]["n"] == 0
    assert base["recall@1"] == round(1 / 3, 6) and cand["recall@1"] == round(1 / 3, 6)  # ranks 1 | 2, 4, 1
    assert base["recall@3"] == round(2 / 3, 6) and cand["recall@3"] == round(2 / 3, 6)
    assert base["mrr"] == round((1 + 1 / 3 + 0) / 3, 6) == 0.444444  # MRR@4
    assert cand["mrr"] == round((1 / 2 + 1 / 4 + 1) / 3, 6) == 0.583333
    assert logged.depth == 4 and metric_label("mrr", logged.depth) == "MRR@4 (doc)"
    table = format_table(logged)
    assert "MRR@4 (doc)" in table and "recall@5, recall@10: not measurable" in table
    assert [x for x in table.splitlines() if x.startswith("recall@10 (doc)")][0].split()[2:4] == ["not", "measurable"]
    # the same answers as a run with top-k 4 (ranked 10 deep): the figures both can measure agree
    run = compare(rows, "baseline", "candidate", depths=ranking_depths(rows, ("baseline", "candidate"), 4))
    assert run.depth == 10 and metric_label("mrr", run.depth) == "MRR@10 (doc)"
    for key in ("retrieval_recall", "recall@1", "recall@3", "mrr"):
        assert run.baseline_metrics[key] == base[key] and run.candidate_metrics[key] == cand[key]
    assert run.baseline_metrics["recall@5"] == round(2 / 3, 6)  # the run knows what lies at ranks 5-10


def test_count_deltas_are_integers() -> None:
    """A count's delta is c - b, an integer; its interval is in answers (why 5: no 16.000016)."""
    summary = compare(BASE + CAND, "baseline", "candidate")
    for key in ("wrong", "hallucination", "grounded_but_wrong", "review"):
        assert isinstance(summary.delta[key], int) and isinstance(summary.significance[key]["delta"], int)
    assert summary.delta["review"] == 1 and summary.significance["review"]["delta"] == 1
    assert summary.bootstrap["method"] == "percentile"
