"""Sampling plans, plan-drawn labels and the gate on the corrected delta (crafted rows; no model)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_flags, make_row, write_results_folder

import evalgate_lib as eg
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import Label, LabelStore, answer_sha256, load_labels
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.statistics.label_bootstrap import bootstrap_replicates, plan_figure
from evalgate_lib.statistics.label_correction import correct_with_labels, narrowing, plan_progress
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta, paired_values
from evalgate_lib.statistics.paired_tests import compare_metric
from evalgate_lib.statistics.sampling_plan import draw_plan, draw_strata, load_plan
from evalgate_lib.workbench.labelling import LabellingSession

N = 20
#: Questions whose answers are in the review queue (either config): q00-q05.
REVIEW = {f"q{i:02d}" for i in range(6)}


def _row(config: str, i: int) -> ResultRow:
    qid = f"q{i:02d}"
    correct = (i % 3 != 0) if config == "baseline" else (i % 4 != 0)
    return make_row(
        config=config,
        question_id=qid,
        answer=f"{config} answer {i}: Starter includes 3 seats.",
        correct=correct,
        flags=make_flags(wrong=not correct, review=qid in REVIEW and config == "candidate"),
    )


def rows() -> list[ResultRow]:
    return [_row(c, i) for c in ("baseline", "candidate") for i in range(N)]


def truth(config: str, qid: str) -> bool:
    """The reviewer's verdict: the judge is wrong on q04 (candidate) and q07 (baseline)."""
    i = int(qid[1:])
    judged = (i % 3 != 0) if config == "baseline" else (i % 4 != 0)
    return not judged if (config, qid) in {("candidate", "q04"), ("baseline", "q07")} else judged


def label(row: ResultRow, plan_sha256: str | None = None) -> Label:
    ok = truth(row.config, row.question_id)
    return Label(row.config, row.question_id, answer_sha256(row.answer), ok, False, "ana", plan_sha256=plan_sha256)


def write_labels(path: Path, labels: list[Label]) -> Path:
    store = LabelStore(path)
    for lb in labels:
        store.put(lb)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_results_folder(tmp_path / "results", rows())


def test_plan_takes_the_review_queue_whole_then_a_random_sample_of_the_rest(folder: Path) -> None:
    drawn = eg.draw_label_plan(folder, budget=20, seed=3)  # 10 questions; share 0.5: 5 for review, it has 6
    review, rest = drawn.plan.strata
    assert set(review.questions) == REVIEW and len(rest.questions) == N - 6
    assert len(review.drawn) == 5 and len(rest.drawn) == 5
    assert review.inclusion_probability == pytest.approx(5 / 6)
    assert rest.inclusion_probability == pytest.approx(5 / 14)
    # 16 questions: the whole review queue (a census) and 10 of the rest
    census = eg.draw_label_plan(folder, budget=32, seed=3, review_share=0.5, out=folder / "other.json").plan
    assert len(census.strata[0].drawn) == 6 and census.strata[0].inclusion_probability == 1.0
    assert len(census.strata[1].drawn) == 10
    # seeded: the same plan, byte for byte
    again = eg.draw_label_plan(folder, budget=20, seed=3, out=folder / "again.json")
    assert again.sha256 == drawn.sha256 and again.path.read_bytes() == drawn.path.read_bytes()
    assert eg.draw_label_plan(folder, budget=20, seed=4, out=folder / "four.json").sha256 != drawn.sha256
    # the order interleaves the strata, each in its draw order
    order = drawn.plan.order()
    assert [q for q in order if q in REVIEW] == list(review.drawn)
    assert sorted(order) == sorted(review.drawn + rest.drawn)


def test_every_stratum_gets_two_and_a_tiny_budget_one_uniform_stratum() -> None:
    in_review = {f"q{i}": i < 8 for i in range(10)}
    review, rest = draw_strata(in_review, questions=4, seed=1, review_share=1.0)
    assert (len(review.drawn), len(rest.drawn)) == (2, 2)  # share 1.0 would leave the rest unsampled
    (only,) = draw_strata(in_review, questions=3, seed=1)
    assert only.name == "all" and len(only.drawn) == 3 and len(only.questions) == 10


def test_a_stratum_of_one_question_is_merged() -> None:
    """Why 9: 23 questions in the review queue and 1 outside it: no stratum of one question every plan draws."""
    in_review = {f"q{i:02d}": i != 7 for i in range(24)}
    (only,) = draw_strata(in_review, questions=8, seed=3)
    assert only.name == "all" and len(only.questions) == 24 and len(only.drawn) == 8
    review, rest = draw_strata({f"q{i:02d}": i < 22 for i in range(24)}, questions=8, seed=3)
    assert (len(review.questions), len(rest.questions)) == (22, 2)  # two apiece: kept as strata


def test_plan_refuses_a_budget_below_one_question(folder: Path) -> None:
    results = eg.load_results(folder)
    with pytest.raises(InputError, match="less than one question's answers"):
        draw_plan(results.rows, ("baseline", "candidate"), 1, str(folder), {})


def test_census_of_labels_is_the_labels_delta_tested_as_the_judge(folder: Path, tmp_path: Path) -> None:
    results = eg.load_results(folder)
    labels = write_labels(tmp_path / "labels.jsonl", [label(r) for r in results.rows])  # no plan: a census
    correction = results.label_correction([labels])
    assert correction.basis == "census"
    acc = correction.metrics["accuracy_answerable"]
    human = {c: [truth(c, f"q{i:02d}") for i in range(N)] for c in ("baseline", "candidate")}
    expected = compare_metric("accuracy_answerable", human["baseline"], human["candidate"], binary=True)
    assert (acc.delta, acc.ci_low, acc.ci_high, acc.p_value) == (
        expected["delta"],
        expected["ci_low"],
        expected["ci_high"],
        expected["p_value"],
    )
    assert acc.judge_delta == results.summary.delta["accuracy_answerable"]
    assert "a census (40 of 40 answers labelled)" in correction.line()


def test_the_correction_names_the_kind_of_labels_it_used(folder: Path, tmp_path: Path) -> None:
    """Blind, audit, revised after seeing the verdicts, unrecorded: counted from the labels used, named in the line."""
    results = eg.load_results(folder)
    how = {  # by i % 8 over the 40 answers: 3 of 8 blind, 2 audit, 2 revised after seeing the verdicts, 1 unrecorded
        0: {"verdicts_hidden": True, "mode": "blind"}, 1: {"verdicts_hidden": False, "mode": "audit"},
        2: {"verdicts_hidden": True, "mode": "blind"}, 3: {"verdicts_hidden": False, "mode": "blind"},
        4: {"verdicts_hidden": True, "mode": "blind"}, 5: {"verdicts_hidden": False, "mode": "audit"},
        6: {"verdicts_hidden": False, "mode": "blind"}, 7: {},
    }  # fmt: skip
    made = [replace(label(row), **how[i % 8]) for i, row in enumerate(results.rows)]
    labels = write_labels(tmp_path / "labels.jsonl", made)
    correction = results.label_correction([labels])
    assert dict(correction.kinds) == {"blind": 15, "audit": 10, "verdicts seen": 10, "unrecorded": 5}
    assert correction.line().endswith(
        "; labels used: 40 labels: 15 blind (EvalGate's verdicts of the answer hidden from its reviewer until the "
        "label was saved), 10 audit (made seeing EvalGate's verdicts, judging them), 10 made after its reviewer had "
        "been shown EvalGate's verdicts of the answer, 5 whose file does not record whether EvalGate's verdicts were "
        "hidden"
    )
    # a plan's correction counts only the labels it used
    plan_path, digest, plan_labels = _labelled_plan(folder, tmp_path / "plan")
    audited = [replace(lb, mode="audit", verdicts_hidden=False) for lb in load_labels(plan_labels)]
    write_labels(tmp_path / "audit.jsonl", audited)
    correction = results.label_correction([tmp_path / "audit.jsonl"], plan_path)
    assert correction.basis == "plan" and dict(correction.kinds) == {"audit": 20}
    assert "labels used: 20 labels: 20 audit" in correction.line()


def test_convenience_sample_is_refused_for_correction_with_one_line(folder: Path, tmp_path: Path, capsys) -> None:
    results = eg.load_results(folder)
    queue = [label(r) for r in results.rows if r.question_id in REVIEW]  # the review queue first, no plan
    labels = write_labels(tmp_path / "labels.jsonl", queue)
    code = main(["gate", "--results", str(folder), "--labels", str(labels)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "12 of 40 answers labelled outside a sampling plan: a convenience sample" in err
    assert "never for a corrected delta" in err


def _labelled_plan(folder: Path, tmp_path: Path, budget: int = 20) -> tuple[Path, str, Path]:
    drawn = eg.draw_label_plan(folder, budget=budget, seed=3)
    results = eg.load_results(folder)
    chosen = set(drawn.plan.order())
    labels = [label(r, drawn.sha256) for r in results.rows if r.question_id in chosen]
    return drawn.path, drawn.sha256, write_labels(tmp_path / "labels.jsonl", labels)


def test_plan_labels_give_the_stratified_estimate(folder: Path, tmp_path: Path) -> None:
    plan_path, digest, labels = _labelled_plan(folder, tmp_path)
    results = eg.load_results(folder)
    correction = results.label_correction([labels])  # the plan is found beside the results
    assert correction.basis == "plan" and correction.plan_sha256 == digest
    plan, _ = load_plan(plan_path)

    def strata(config: str) -> list[StratumValues]:
        out = []
        for s in plan.strata:
            judge = tuple(float(results.row(config, q).correct) for q in s.questions)
            pairs = tuple((float(results.row(config, q).correct), float(truth(config, q))) for q in s.drawn)
            out.append(StratumValues(judge, pairs))
        return out

    expected = corrected_delta(strata("baseline"), strata("candidate"))
    acc = correction.metrics["accuracy_answerable"]
    # the interval and p: the hull of the same estimate's bootstrap (at its λ) and its floored t interval
    reps = bootstrap_replicates(paired_values(strata("baseline"), strata("candidate")), expected.power)
    boot = plan_figure(reps, expected.estimate, expected.total_se, expected.total_df, 0.95)
    assert acc.delta == expected.estimate
    assert (acc.ci_low, acc.ci_high, acc.p_value) == (boot.ci_low, boot.ci_high, boot.p_value)
    assert acc.significance()["test"] == "bootstrap"
    assert acc.labelled == 10 and acc.questions == N


def test_a_label_past_a_gap_in_the_plan_order_waits(folder: Path, tmp_path: Path) -> None:
    plan_path, digest, labels = _labelled_plan(folder, tmp_path)
    plan, _ = load_plan(plan_path)
    rest = plan.strata[1].drawn
    kept = [lb for lb in load_labels(labels) if lb.question_id != rest[1]]  # the rest stratum's 2nd is missing
    results = eg.load_results(folder)
    correction = correct_with_labels(results.rows, "baseline", "candidate", kept, "x", plan, digest)
    assert correction.metrics["accuracy_answerable"].labelled == 5 + 1
    assert any("past an unlabelled question of their stratum wait" in n for n in correction.notes)


def test_a_plan_whose_results_changed_is_refused_with_the_command_to_redraw(
    folder: Path, tmp_path: Path, capsys
) -> None:
    _, _, labels = _labelled_plan(folder, tmp_path)
    changed = rows()
    changed[0] = make_row(**{**changed[0].__dict__, "judgement": changed[0].judgement, "correct": True})
    write_results_folder(folder, changed)  # the folder is rewritten: a new results.jsonl
    code = main(["gate", "--results", str(folder), "--labels", str(labels)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "the results folder has changed since" in err
    assert f"redraw it with 'evalgate sample --results {folder} --budget 20 --seed 3 --review-share 0.5'" in err


def test_gate_prints_both_deltas_and_decides_on_the_corrected_one(folder: Path, tmp_path: Path, capsys) -> None:
    results = eg.load_results(folder)
    labels = write_labels(tmp_path / "labels.jsonl", [label(r) for r in results.rows])
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "point"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.0\n')
    code = main(["gate", "--results", str(folder), "--labels", str(labels), "--thresholds", str(thresholds)])
    out = capsys.readouterr().out
    assert "decided by: labels (census) for accuracy_answerable" in out
    line = next(x for x in out.splitlines() if "accuracy on answerable: corrected delta" in x)
    # judge: baseline 13/20, candidate 15/20 (+10 points); labels: baseline 12/20 (q07 is wrong), candidate
    # 16/20 (q04 is right): +20 points
    assert "corrected delta +20.0 pts" in line and "judge-only +10.0 pts" in line
    assert code == 0


def test_sample_command_and_a_folder_as_out(folder: Path, capsys) -> None:
    assert main(["sample", "--results", str(folder), "--budget", "20", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "stratum review: 5 of 6 questions, inclusion probability 0.833" in out
    assert (folder / "label-plan.json").is_file()
    assert main(["sample", "--results", str(folder), "--budget", "20", "--out", str(folder)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_labelling_session_follows_the_plan_and_records_it(folder: Path, tmp_path: Path) -> None:
    drawn = eg.draw_label_plan(folder, budget=8, seed=3)
    results = eg.load_results(folder)
    order = drawn.plan.order()
    plan_rows = [results.row(c, q) for q in order for c in ("baseline", "candidate")]
    store = LabelStore(tmp_path / "labels.jsonl")
    first = plan_rows[0]
    store.put(label(first))  # labelled earlier, outside the plan: labelled again under the plan, on request
    session = LabellingSession(plan_rows, store, "ana", plan_sha256=drawn.sha256)
    assert session.position == 0 and session.label() is None and session.state() == "earlier"
    session.relabel()
    for i in range(len(session.draft().sentences)):
        session.mark_sentence(i, True)
    saved = session.mark_correct(True)
    assert saved is not None and saved.plan_sha256 == drawn.sha256
    assert session.first_unlabelled() == 1
    assert load_labels(store.path)[0].plan_sha256 == drawn.sha256


def test_narrowing_and_its_plot(folder: Path, tmp_path: Path) -> None:
    plan_path, digest, labels = _labelled_plan(folder, tmp_path)
    plan, _ = load_plan(plan_path)
    results = eg.load_results(folder)
    steps = narrowing(results.rows, "baseline", "candidate", load_labels(labels), plan, digest)
    assert steps[-1].questions == 10
    widths = [s.ci_high - s.ci_low for s in steps if s.ci_low is not None]
    assert widths[-1] < widths[0]
    ax = results.interval_narrowing([labels])
    assert ax.get_xlabel().startswith("questions labelled under the plan")
    assert ax.get_title() == "20 of 20 plan answers labelled"
    assert ax.figure.get_label().startswith("Line chart of the corrected delta of accuracy on answerable after each")


def test_the_plot_counts_plan_labels_as_soon_as_they_are_saved(folder: Path, tmp_path: Path) -> None:
    """Three plan labels: one question with both answers, half of the next; no stratum can estimate yet."""
    drawn = eg.draw_label_plan(folder, budget=20, seed=3)
    results = eg.load_results(folder)
    first = [results.row(c, q) for q in drawn.plan.order() for c in drawn.plan.configs][:3]
    path = write_labels(tmp_path / "labels.jsonl", [label(r, drawn.sha256) for r in first])
    plan, _ = load_plan(drawn.path)
    progress = plan_progress(results.rows, load_labels(path), plan, drawn.sha256)
    assert (progress.labelled, progress.answers, progress.strata) == (3, 20, 2)
    ax = results.interval_narrowing(str(path))  # one path, as notebook 06 passes it
    said = " ".join(t.get_text() for t in ax.texts)
    assert said.startswith("3 of 20 plan answers labelled; the corrected delta appears once")
    assert "no label under the plan yet" not in said
    empty = results.interval_narrowing(tmp_path / "none-yet.jsonl")  # the widget creates the file on the first save
    assert [t.get_text() for t in empty.texts] == ["no label under the plan yet"]


def test_first_screen_shows_the_corrected_delta_or_why_not(folder: Path, tmp_path: Path) -> None:
    results = eg.load_results(folder)
    full = write_labels(tmp_path / "full.jsonl", [label(r) for r in results.rows])
    html = results.first_screen_html("configs/gate.toml", [full])
    assert 'data-basis="census"' in html and "corrected by labels [95% CI]" in html
    assert 'data-basis="labels"' in html  # the accuracy rule decided on the labels
    part = write_labels(tmp_path / "part.jsonl", [label(r) for r in results.rows[:3]])
    html = results.first_screen_html("configs/gate.toml", [part])
    assert "Reviewer labels not used to correct the deltas" in html and "convenience sample" in html


def test_label_files_take_plan_sha256(tmp_path: Path) -> None:
    row = _row("baseline", 1)
    good = label(row, "a" * 64).to_dict()
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps(good) + "\n")
    assert load_labels(path)[0].plan_sha256 == "a" * 64
    path.write_text(json.dumps({**good, "plan_sha256": "xyz"}) + "\n")
    with pytest.raises(InputError, match=r"l.jsonl:1: 'plan_sha256' must be 64 lowercase hex"):
        load_labels(path)


@pytest.mark.slow
def test_gate_on_the_small_real_run_with_the_shipped_labels(small_run, capsys) -> None:
    """The shipped labels describe the shipped run's answers: on its first four questions they are a census."""
    shipped = Path(__file__).resolve().parents[1] / "labels" / "nimbus.jsonl"
    code = main(["gate", "--results", str(small_run.out), "--labels", str(shipped), "--allow-partial"])
    out = capsys.readouterr().out
    assert code == 4, out  # issue 53: four questions show no rule within its limit: INCONCLUSIVE
    assert "deltas corrected by labels: a census (8 of 8 answers labelled)" in out
    assert "decided by: labels (census) for accuracy_answerable, refusal_accuracy, hallucination" in out
    assert "accuracy on answerable: corrected delta" in out and "; judge-only" in out
    assert out.splitlines()[-8] == "every delta the labels correct:"
    # which labels counted, and why (issue 45): every reviewer's, one label per answer and pass
    assert out.splitlines()[-7] == (
        f"  labels: 220 read from {shipped}; every reviewer's labels count (one label per answer and pass)"
    )


def test_diff_prints_the_corrected_deltas_above_the_changes(folder: Path, tmp_path: Path, capsys) -> None:
    results = eg.load_results(folder)
    labels = write_labels(tmp_path / "labels.jsonl", [label(r) for r in results.rows])
    assert main(["diff", "--results", str(folder), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("deltas corrected by labels: a census (40 of 40 answers labelled)")
    assert "evalgate gate --labels decides on the corrected deltas above; the changes below are the judge's" in out


def test_agreement_says_how_the_labels_were_drawn() -> None:
    from evalgate_lib.statistics.run_agreement import sample_line

    rows_ = rows()
    plain = [label(r) for r in rows_[:4]]
    assert "a convenience sample, used for agreement figures only" in sample_line(4, 40, plain, "l.jsonl")
    planned = [label(r, "b" * 64) for r in rows_[:4]]
    assert "drawn by plan bbbbbbbbbbbb…" in sample_line(4, 40, planned, "l.jsonl")
    assert "a census (40 of 40 answers labelled)" in sample_line(40, 40, plain, "l.jsonl")


def test_plan_file_records_every_question_s_inclusion_probability_and_refuses_edits(folder: Path) -> None:
    drawn = eg.draw_label_plan(folder, budget=20, seed=3)
    data = json.loads(drawn.path.read_text())
    assert data["inclusion_probabilities"]["q00"] == round(5 / 6, 6)
    assert data["inclusion_probabilities"]["q19"] == round(5 / 14, 6)
    assert data["seed"] == 3 and set(data["results"]) == {"folder", "results.jsonl", "summary.json"}
    data["strata"][1]["drawn"] = data["strata"][1]["drawn"][:-1]  # one question fewer drawn, probabilities kept
    drawn.path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="'inclusion_probabilities' do not match the strata's draws"):
        load_plan(drawn.path)


def test_a_population_with_no_label_is_not_corrected_and_the_gate_says_so(tmp_path: Path) -> None:
    """Why 9: a plan that labelled none of the no-answer questions does not correct refusal accuracy."""
    from evalgate_lib.statistics.decision import decide
    from evalgate_lib.statistics.gate import GateConfig, Rule
    from evalgate_lib.statistics.label_correction import correct_with_labels
    from evalgate_lib.statistics.metrics import compare
    from evalgate_lib.statistics.sampling_plan import ALL, LabelPlan, PlanStratum

    answerable = [_row(c, i) for c in ("baseline", "candidate") for i in range(8)]
    refusals = [make_row(config=c, question_id=f"q{i:02d}", type="no_answer", answer=f"{c} {i}: I don't know.")
                for c in ("baseline", "candidate") for i in (8, 9)]  # fmt: skip
    all_rows = answerable + refusals
    ids = tuple(f"q{i:02d}" for i in range(10))
    plan = LabelPlan("r", {}, ("baseline", "candidate"), 8, 0, 0.5, (PlanStratum(ALL, ids, ids[:4]),))
    labels = [label(r, "x") for r in answerable if r.question_id in ids[:4]]
    correction = correct_with_labels(all_rows, "baseline", "candidate", labels, "labels.jsonl", plan, "x")
    assert "refusal_accuracy" not in correction.metrics and "accuracy_answerable" in correction.metrics
    assert correction.not_corrected == {
        "refusal_accuracy": "not corrected: none of the 2 no-answer questions was labelled under the plan"
    }
    gate = GateConfig((Rule("accuracy_answerable", max_drop=0.05), Rule("refusal_accuracy", max_drop=0.1)))
    decision = decide(compare(all_rows, "baseline", "candidate"), gate, "g.toml", correction)
    refusal = decision.rules[1]
    assert refusal.basis == "judge" and "not corrected: none of the 2 no-answer questions" in refusal.message
    # accuracy is decided on its plan's corrected delta (the PPI++ estimate and its bootstrap), refusal on the judge's
    assert decision.rules[0].basis == "labels" and decision.rules[0].stat["test"] == "bootstrap"
    said = "decided by: labels (PPI++ estimate) for accuracy_answerable; judge for refusal_accuracy (labels could not"
    assert decision.basis().startswith(said)
# ------------------------------------------------------------------ plans never over, edited plans refused (issue 45)


def test_a_second_plan_goes_beside_the_first_and_an_existing_file_is_never_written_over(folder: Path) -> None:
    from evalgate_lib.statistics.sampling_plan import next_plan_path, plan_files

    first = eg.draw_label_plan(folder, budget=8, seed=3)
    second = eg.draw_label_plan(folder, budget=10, seed=4)
    third = eg.draw_label_plan(folder, budget=12, seed=5)
    assert [first.path.name, second.path.name, third.path.name] == [
        "label-plan.json", "label-plan-2.json", "label-plan-3.json"
    ]  # fmt: skip
    (folder / "label-plan-10.json").write_text((folder / "label-plan.json").read_text())  # drawn by hand, say
    assert [p.name for p in plan_files(folder)] == [
        "label-plan.json", "label-plan-2.json", "label-plan-3.json", "label-plan-10.json"
    ]  # fmt: skip
    assert next_plan_path(folder).name == "label-plan-11.json"
    assert load_plan(first.path)[1] == first.sha256  # the first is as it was
    again = eg.draw_label_plan(folder, budget=8, seed=3)  # the same draw again (notebook 06 run twice)
    assert (again.path, again.sha256) == (first.path, first.sha256)
    assert next_plan_path(folder).name == "label-plan-11.json"  # nothing new written
    labels = folder / "labels.jsonl"
    labels.write_text("a reviewer's labels\n")
    with pytest.raises(InputError, match=rf"^--out {labels} exists: a plan is never written over a file"):
        eg.draw_label_plan(folder, budget=8, out=labels)
    assert labels.read_text() == "a reviewer's labels\n"


def test_signing_a_plan_keeps_its_identity(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SHA-256 labels record is of the plan's text without its signature: a plan signed later is the same plan."""
    import hashlib

    from evalgate_lib.statistics.sampling_plan import sign_plan_file

    drawn = eg.draw_label_plan(folder, budget=8, seed=3)
    assert drawn.sha256 == hashlib.sha256(drawn.path.read_bytes()).hexdigest()  # no key: the file's own SHA-256
    monkeypatch.setenv("EVALGATE_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
    with pytest.raises(InputError, match=r"label-plan\.json: not signed, but a signing key is set"):
        load_plan(drawn.path)
    assert sign_plan_file(drawn.path) == drawn.sha256
    assert '"signature"' in drawn.path.read_text() and load_plan(drawn.path)[1] == drawn.sha256


def _edited(folder: Path, edit) -> Path:
    drawn = eg.draw_label_plan(folder, budget=8, seed=3)
    data = json.loads(drawn.path.read_text())
    edit(data)
    for s in data["strata"]:
        s["inclusion_probability"] = round(len(s["drawn"]) / len(s["questions"]), 6)
    data["inclusion_probabilities"] = {q: s["inclusion_probability"] for s in data["strata"] for q in s["questions"]}
    drawn.path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return drawn.path


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda d: [s.update(questions=list(s["drawn"])) for s in d["strata"]],
         r"its strata hold 4 of the run's 20 questions \(missing q"),
        (lambda d: d["strata"][1]["questions"].append("q999"),
         r"it names question\(s\) the run does not have \(q999\)"),
        (lambda d: d["strata"][1]["questions"].append(d["strata"][0]["questions"][0]),
         r"question\(s\) in more than one stratum \(q0\d\)"),
        (lambda d: (d["strata"][0]["questions"].append("q19"), d["strata"][1]["questions"].remove("q19")),
         r"stratum 'review' holds q19, not in the review queue"),
        (lambda d: d.update(budget=2), r"it draws 8 answers, over its budget of 2"),
    ],
)  # fmt: skip
def test_a_plan_edited_by_hand_is_refused_with_the_cause(folder: Path, edit, why: str) -> None:
    path = _edited(folder, edit)
    with pytest.raises(
        InputError, match=rf"^{path}: not the plan EvalGate drew for this run \(edited by hand\?\): {why}"
    ):
        eg.load_results(folder).label_plan(path)


def test_a_negative_seed_is_one_line(folder: Path) -> None:
    with pytest.raises(InputError, match=r"^--seed must be a whole number >= 0 \(the draw's random seed\), got -1$"):
        eg.draw_label_plan(folder, budget=8, seed=-1)


def test_a_small_plan_draws_the_no_answer_questions_a_rule_reads() -> None:
    """Issue 53 defect: a 4-question plan drew none of 20 no-answer questions, so the refusal rule had no label.
    The no-answer questions are a stratum of their own, never fewer than two drawn."""
    in_review = {f"q{i:03d}": i % 2 == 0 for i in range(101)}
    refusals = [f"q{i:03d}" for i in range(81, 101)]
    for questions, seed in ((4, 1), (8, 2), (40, 7)):
        strata = {s.name: s for s in draw_strata(in_review, questions, seed, no_answer=refusals)}
        apart = strata["no-answer"]
        assert apart.questions == tuple(refusals) and len(apart.drawn) >= 2 and set(apart.drawn) <= set(refusals)
        others = [q for name, s in strata.items() if name != "no-answer" for q in s.questions]
        assert sorted(others) == [f"q{i:03d}" for i in range(81)]  # every answerable question, once
        assert sum(len(s.drawn) for s in strata.values()) == questions
    # 8 of 40: the no-answer share of 40 questions is round(40 · 20 / 101) = 8
    assert len({s.name: s for s in draw_strata(in_review, 40, 7, no_answer=refusals)}["no-answer"].drawn) == 8
    # too small to keep two for the answerable questions: the draw as before
    assert [s.name for s in draw_strata(in_review, 3, 1, no_answer=refusals)] == ["all"]
