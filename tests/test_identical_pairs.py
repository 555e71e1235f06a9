"""Plans skip the questions both configs answered identically over the same passages (issue 53): stratum ``same``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_flags, make_row, write_results_folder

import evalgate_lib as eg
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import Label, LabelStore, answer_sha256
from evalgate_lib.judging.rows import ResultRow, RetrievedChunk
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_paired, known_zero, paired_values
from evalgate_lib.statistics.sampling_plan import SAME, check_plan, draw_plan, format_plan, load_plan

N = 20
#: q12-q19: both configs gave the same answer over the same passages; q10, q11 the same answer over other passages.
SAME_IDS = tuple(f"q{i:02d}" for i in range(12, N))
OTHER_PASSAGES = ("q10", "q11")


def _row(config: str, i: int) -> ResultRow:
    qid = f"q{i:02d}"
    if i >= 10:  # identical answers, verdicts and (from q12) passages
        correct = i % 2 == 0
        answer = f"shared answer {i}: Starter includes 3 seats."
    else:
        correct = (i % 3 != 0) if config == "baseline" else (i % 4 != 0)
        answer = f"{config} answer {i}: Starter includes 3 seats."
    row = make_row(
        config=config, question_id=qid, answer=answer, correct=correct,
        flags=make_flags(wrong=not correct, review=i < 4 and config == "candidate"),
    )  # fmt: skip
    if qid in OTHER_PASSAGES and config == "candidate":
        row = replace(row, retrieved=(RetrievedChunk(1, "other#0", "other", 0, 0, 120, 0.8, text="Other words."),))
    return row


def _rows() -> list[ResultRow]:
    return [_row(c, i) for c in ("baseline", "candidate") for i in range(N)]


def test_identical_answers_over_the_same_passages_form_a_stratum_never_drawn() -> None:
    plan = draw_plan(_rows(), ("baseline", "candidate"), 12, "r", {}, seed=3)
    same = [s for s in plan.strata if s.name == SAME]
    assert len(same) == 1 and same[0].questions == SAME_IDS and same[0].drawn == ()
    drawable = {q for s in plan.strata if s.name != SAME for q in s.questions}
    assert drawable == {f"q{i:02d}" for i in range(12)}  # q10, q11: same answer, other passages: still drawable
    assert sum(len(s.drawn) for s in plan.strata) == 6  # the whole budget goes to the questions a label informs
    text = format_plan(plan, "p.json", "0" * 64)
    assert (
        "skipped: 8 questions answered identically by both configs, with the same passages: their delta is 0, "
        "no label needed" in text
    )


def test_a_plan_without_the_stratum_still_loads_and_a_forged_one_is_refused(tmp_path: Path) -> None:
    folder = write_results_folder(tmp_path / "results", _rows())
    drawn = eg.draw_label_plan(folder, budget=12, seed=3)
    results = eg.load_results(folder)
    digests = dict(drawn.plan.results_digests)
    # an old plan (drawn before stratum same existed): the identical questions sit in the other strata
    old = tuple(
        replace(s, questions=s.questions + SAME_IDS) if s.name == "rest" else s
        for s in drawn.plan.strata if s.name != SAME
    )  # fmt: skip
    check_plan(replace(drawn.plan, strata=old), "old.json", digests, ("baseline", "candidate"), results.rows)

    # stratum same naming a question whose answers differ, or drawing one: refused
    def without_q00(ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(q for q in ids if q != "q00")

    forged = tuple(
        replace(s, questions=("q00", *s.questions)) if s.name == SAME
        else replace(s, questions=without_q00(s.questions), drawn=without_q00(s.drawn))
        for s in drawn.plan.strata
    )  # fmt: skip
    with pytest.raises(InputError, match="stratum 'same' holds q00, whose answers differ"):
        check_plan(replace(drawn.plan, strata=forged), "f.json", digests, ("baseline", "candidate"), results.rows)
    data = json.loads(Path(drawn.path).read_text())
    assert any(s["name"] == SAME and s["drawn"] == [] for s in data["strata"])
    assert load_plan(drawn.path)[0] == drawn.plan


def test_known_zero_stratum_gives_the_estimate_labelling_it_would() -> None:
    """Hand-computed at λ = 1 (plain PPI): stratum A, 4 questions, judge deltas 1, 0, 0, 1 (Σ f = 2), 2 labelled
    with (f, y) = (1, 1), (0, 1): rectifier (4/2)·(0 + 1) = 2; stratum same, 2 questions, f = y = 0.
    θ = (2 + 2) / 6 = 0.666667 (without the same questions it would be 4 / 4 = 1: they count, with delta 0)."""
    a = StratumValues((1.0, 0.0, 0.0, 1.0), ((1.0, 1.0), (0.0, 1.0)))
    skipped = known_zero(StratumValues((0.0, 0.0), ()))
    assert skipped.labelled == ((0.0, 0.0), (0.0, 0.0))
    estimate = corrected_paired([a, skipped], tuned=False)
    assert estimate.estimate == pytest.approx(0.666667)
    # labelling them instead: each config's labels equal (the same answer, the same passages), judge right or wrong
    same = StratumValues((1.0, 0.0), ((1.0, 0.0), (0.0, 1.0)))  # both configs: the judge wrong on both answers
    base = [StratumValues((0.0, 1.0, 1.0, 0.0), ((0.0, 0.0), (1.0, 0.0))), same]
    cand = [StratumValues((1.0, 1.0, 1.0, 1.0), ((1.0, 1.0), (1.0, 1.0))), same]
    labelled = corrected_paired(paired_values(base, cand), tuned=False)
    assert (labelled.estimate, labelled.ci_low, labelled.ci_high) == (
        estimate.estimate, estimate.ci_low, estimate.ci_high,
    )  # fmt: skip
    assert corrected_paired([a, skipped]).estimate == corrected_paired(paired_values(base, cand)).estimate  # tuned λ
    with pytest.raises(ValueError, match="judge verdicts differ"):
        known_zero(StratumValues((1.0, 0.0), ()))


def test_the_gate_corrects_the_delta_with_the_skipped_questions_and_no_rates(tmp_path: Path) -> None:
    folder = write_results_folder(tmp_path / "results", _rows())
    drawn = eg.draw_label_plan(folder, budget=12, seed=3)
    results = eg.load_results(folder)
    chosen = set(drawn.plan.order())
    store = LabelStore(tmp_path / "labels.jsonl")
    for r in results.rows:
        if r.question_id in chosen:  # the reviewer agrees with the judge
            store.put(Label(r.config, r.question_id, answer_sha256(r.answer), r.correct, False, "ana",
                            plan_sha256=drawn.sha256))  # fmt: skip
    acc = results.label_correction([tmp_path / "labels.jsonl"]).metrics["accuracy_answerable"]
    judge = sum(results.row("candidate", f"q{i:02d}").correct - results.row("baseline", f"q{i:02d}").correct
                for i in range(N)) / N  # fmt: skip
    assert acc.questions == N and acc.labelled == 6  # the 8 skipped questions count in N, not as labelled
    assert acc.judge_delta == pytest.approx(judge)
    assert acc.baseline is None and acc.candidate is None  # a rate would need labels of the skipped questions
    assert acc.delta is not None and acc.ci_low is not None and acc.ci_low <= acc.delta <= acc.ci_high
