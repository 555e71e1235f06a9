"""Which gate rules can fail at a gold set's size: the smallest detectable change, by hand and against the gate.

Since issue 53 a rule fails when Tango's score interval lies wholly past its limit: the score test of "the delta
equals the limit" rejects on the bad side. With ``k`` of ``n`` questions all moving one way and a limit of 0, its
statistic is McNemar's asymptotic one, ``Z = k / sqrt(k) = sqrt(k)``: k = 3 gives 1.73, k = 4 gives 2 > 1.96, so
a count rule with a zero limit fails from 4 one-way moves. With a 10-point limit, 4 no-answer questions cannot
fail the refusal rule even all broken (Z = -1.809, p = 0.0704); 5 can (Z = -2.023, p = 0.0431).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import make_row, write_results_folder

from evalgate_lib.cli import main
from evalgate_lib.reporting.first_screen import first_screen
from evalgate_lib.statistics.gate import GateConfig, Rule, judge
from evalgate_lib.statistics.metrics import Summary
from evalgate_lib.statistics.paired_tests import mcnemar_exact
from evalgate_lib.statistics.power import (
    cannot_fail,
    format_powers,
    gold_sizes,
    power_sentence,
    rule_powers,
    smallest_change_text,
    smallest_detectable_change,
)

ROOT = Path(__file__).resolve().parents[1]
REFUSAL = Rule("refusal_accuracy", max_drop=0.10)
ACCURACY = Rule("accuracy_answerable", max_drop=0.05)
HALLUCINATION = Rule("hallucination", max_increase=0)


def sdc(rule: Rule, n: int, mode: str = "significant", alpha: float = 0.05):
    return smallest_detectable_change(rule, n, mode, alpha)


def test_four_no_answer_questions_cannot_fail_the_refusal_rule():
    power = sdc(REFUSAL, 4)
    assert not power.can_fail and power.smallest is None
    # 4 of 4 broken against δ0 = -0.1 (Tango 1998): a = 8, b = -4 + 12 (-0.1) = -5.2, c = -4 (-0.1)(1.1) = 0.44,
    # p21 = (sqrt(27.04 - 14.08) + 5.2) / 16 = 0.55, variance = 4 (1.1 - 0.11) = 3.96,
    # Z = (-4 + 0.4) / sqrt(3.96) = -1.80906, p = 2 (1 - Φ(1.80906)) = 0.07044
    assert power.p_all == pytest.approx(0.07044, abs=1e-5)
    assert power.questions_needed == 5  # 5 of 5: Z = -4.5 / sqrt(4.95) = -2.0226, p = 0.04311 < 0.05
    assert power.questions_for_limit is None  # a breach just past the limit never fails, at any size
    assert power_sentence(power, 0.05, "significant") == (
        "refusal accuracy on no-answer cannot fail on 4 no-answer questions: even 4 of 4 broken (100.0 points, "
        "p against the limit = 0.07044 ≥ 0.05); it can fail from 5 no-answer questions"
    )
    assert smallest_change_text(power) == "cannot fail at this size"


@pytest.mark.parametrize(
    ("rule", "n", "smallest", "delta", "p"),
    [
        (REFUSAL, 5, 5, 1.0, 0.043114),  # all 5 broken (the module docstring's Z = -2.0226)
        (REFUSAL, 20, 7, 0.35, 0.033006),  # 6 of 20 (30 points) leaves Tango's interval reaching past -10
        (ACCURACY, 81, 9, 9 / 81, 0.029913),  # the shipped gold set: 9 of 81 (11.1 points), not the first breach (5)
        (ACCURACY, 100, 10, 0.1, 0.029096),
        (HALLUCINATION, 4, 4, 4.0, 0.0455),  # a zero limit: Z = sqrt(4) = 2, p = 2 (1 - Φ(2)) = 0.0455
        (HALLUCINATION, 101, 4, 4.0, 0.0455),  # a count with a zero limit: the same 4 at any size
    ],
)
def test_smallest_detectable_change_by_hand(rule, n, smallest, delta, p):
    power = sdc(rule, n)
    assert (power.smallest, power.p_value) == (smallest, p)
    assert power.delta == pytest.approx(delta)


def test_a_count_rule_with_a_zero_limit_never_fails_on_fewer_than_four_more():
    power = sdc(HALLUCINATION, 8)
    assert power.smallest == 4 and power.questions_for_limit is None  # 3 more: Z = sqrt(3) = 1.73 < 1.96, never
    assert power_sentence(power, 0.05, "significant").endswith(
        "a smaller one cannot fail at this size (FAIL needs the interval wholly past the limit)"
    )
    assert not sdc(HALLUCINATION, 3).can_fail


def test_point_mode_fails_on_any_breach_and_alpha_moves_the_threshold():
    assert sdc(REFUSAL, 5, mode="point").smallest == 1  # 1 of 5 = 20 points > 10
    assert sdc(Rule("refusal_accuracy", max_drop=0.25), 5, mode="point").smallest == 2  # 1 of 5 is not past 25
    strict = sdc(REFUSAL, 9, alpha=0.01)  # at 99 %: 9 of 9 broken is the first to clear the 10-point limit
    assert strict.smallest == 9 and strict.p_value == 0.006656 and strict.questions_needed == 9
    assert not sdc(REFUSAL, 8, alpha=0.01).can_fail


def test_limits_out_of_reach_and_score_rules():
    never = sdc(Rule("refusal_accuracy", max_drop=1.0), 500)  # a rate cannot drop by more than 100 points
    assert not never.can_fail and never.questions_needed is None
    assert "nor on any number" in power_sentence(never, 0.05, "significant")
    mrr = sdc(Rule("mrr", max_drop=0.1), 3)  # a score: a uniform drop makes its bootstrap interval a point
    assert mrr.can_fail and mrr.delta == pytest.approx(0.1)
    assert not sdc(Rule("mrr", max_drop=0.1), 0).can_fail
    assert power_sentence(sdc(ACCURACY, 0), 0.05, "significant") == (
        "accuracy on answerable cannot fail: not measured on any question in this run"
    )


def _summary(rule: Rule, n: int, b: int, c: int) -> Summary:
    """A summary whose only figures are one rule's delta and test on ``n`` questions, ``b`` broken and ``c`` fixed."""
    kind_count = rule.metric == "hallucination"
    moved = (b - c) if kind_count else (c - b) / n  # the flag rises with b; the rate drops with b
    p = round(mcnemar_exact([True] * b + [False] * c, [False] * b + [True] * c).p_value, 6)
    delta = round(moved, 6)
    # the counts the gate's Tango interval reads: a count's rise is its candidate-only answers (c in the summary)
    down, up = (c, b) if kind_count else (b, c)
    sig = {"p_value": p, "n": n, "b": down, "c": up}
    return Summary("base", "cand", {}, {rule.metric: delta}, {rule.metric: sig}, {})


@pytest.mark.parametrize("rule", [REFUSAL, ACCURACY, HALLUCINATION])
@pytest.mark.parametrize("n", [1, 4, 5, 6, 7, 12, 19])
def test_no_change_smaller_than_the_reported_one_fails_the_gate(rule, n):
    """Every (broken, fixed) split of ``n`` questions through the gate's own judge: the smallest failing net change
    is the one reported, and none fails where the rule is said to be unable to."""
    gate = GateConfig((rule,), "significant", 0.05)
    failing = [
        b - c
        for b, c in itertools.product(range(n + 1), repeat=2)
        if b + c <= n and judge(_summary(rule, n, b, c), gate)[0].failed
    ]
    power = sdc(rule, n)
    assert (min(failing) if failing else None) == power.smallest


def test_rule_powers_take_each_rule_population_from_the_gold_set():
    gate = GateConfig((ACCURACY, REFUSAL, HALLUCINATION), "significant", 0.05)
    sizes = gold_sizes(["answerable"] * 3 + ["no_answer"] * 5)
    assert sizes == {"answerable": 3, "no_answer": 5, "all": 8}
    powers = rule_powers(gate, sizes)
    assert [p.questions for p in powers] == [3, 5, 8]
    assert [p.rule.metric for p in cannot_fail(powers)] == ["accuracy_answerable"]  # 5 no-answer: 5 of 5 can
    lines = format_powers(powers, 0.05, "significant")
    assert lines[0] == (
        "power: 1 of 3 gate rule(s) cannot fail at this size (significant mode, α = 0.05): accuracy on answerable"
    )
    assert lines[1].startswith("  CANNOT FAIL  accuracy on answerable") and lines[3].startswith("  hallucination")


def _five_no_answer_rows(broken: int) -> list:
    rows = []
    for i in range(1, 6):
        qid = f"q{i}"
        rows.append(make_row(config="baseline", question_id=qid, type="no_answer"))
        wrong = i <= broken
        rows.append(
            make_row(config="candidate", question_id=qid, type="no_answer", correct=not wrong, refused=not wrong)
        )
    return rows


def test_a_gate_over_five_no_answer_questions_says_which_rule_cannot_fail(tmp_path, capsys):
    """Issue 30: the chatty version broke 4 of 5 refusals (−80 points, p = 0.125). Since issue 53 (FAIL when Tango's
    interval clears the limit) 5 of 5 broken could fail; 4 of 5 leaves [-96.4, -1.8], which holds the -10 limit."""
    folder = write_results_folder(tmp_path / "run", _five_no_answer_rows(broken=4))
    # issue 53: no longer a PASS: nothing shows the candidate within its limits on five questions (exit 4)
    assert main(["gate", "--results", str(folder), "--thresholds", str(ROOT / "configs" / "gate.toml")]) == 4
    out = capsys.readouterr().out
    assert "INCONCLUSIVE  refusal accuracy on no-answer: delta -80.0 pts" in out
    assert "Tango 95% CI [-96.4, -1.8] holds it (p=0.074 against the limit)" in out
    assert (
        "  refusal accuracy on no-answer: the smallest change that can fail it on 5 no-answer questions is 5 of 5 "
        "broken (100.0 points, p against the limit = 0.04311 < 0.05)" in out
    )
    assert "  CANNOT FAIL  hallucination flags cannot fail on 5 questions" in out
    assert out.rstrip().endswith(
        "INCONCLUSIVE: no rule fails, but the data cannot show the candidate within the limit of accuracy_answerable, "
        "refusal_accuracy, retrieval_recall, unsupported_claim (see each rule: what would decide it); exit 4"
    )


def test_the_first_screen_names_the_rules_that_cannot_fail(tmp_path):
    from evalgate_lib.api import load_results

    results = load_results(write_results_folder(tmp_path / "run", _five_no_answer_rows(broken=4)))
    soup = BeautifulSoup(first_screen(results.summary, results.rows, ROOT / "configs" / "gate.toml"), "html.parser")
    box = soup.select_one("#eg-power")
    assert box is not None and box.b.get_text() == "3 of 5 gate rules cannot fail at this gold set's size"
    items = {li["data-rule"]: li.get_text() for li in box.select("li")}
    assert items["hallucination"].startswith("hallucination flags cannot fail on 5 questions")
    assert "refusal_accuracy" not in items  # 5 of 5 broken would clear its 10-point limit
    row = soup.select_one('tr[data-rule="hallucination"]')
    assert row["data-can-fail"] == "0" and row.select("td")[-1].get_text() == "cannot fail at this size"
    assert soup.select_one('tr[data-rule="refusal_accuracy"]')["data-can-fail"] == "1"
    # the advice names the page's own verdict word (4 of 5 refusals broken, under the 10-point limit's reach: not PASS)
    word = soup.select_one("#eg-verdict")["data-verdict"]
    assert word == "INCONCLUSIVE"
    assert f"so this {word} verdict says nothing about them" in soup.select_one(".eg-advice").get_text()


def test_a_rate_at_its_bound_cannot_move_that_way() -> None:
    """Why 9: the baseline's refusal accuracy is 0 of 20, so a drop rule on it cannot fail, and power says so."""
    from evalgate_lib.statistics.power import power_sentence, smallest_detectable_change

    rule = Rule("refusal_accuracy", max_drop=0.1)
    free = smallest_detectable_change(rule, 20, "significant", 0.05)
    assert free.smallest == 7  # 7 one-way moves: Tango's interval wholly past the 10-point limit on 20
    stuck = smallest_detectable_change(rule, 20, "significant", 0.05, room=0, baseline_count=0)
    assert not stuck.can_fail and stuck.blocked and stuck.smallest_free == 7
    assert power_sentence(stuck, 0.05, "significant") == (
        "refusal accuracy on no-answer cannot fail: the baseline's is 0 of 20 no-answer questions, so it can drop "
        "on at most 0 of them, and failing it takes 7"
    )
    # 6 of 20 right: 6 can drop, 7 are needed; 7 of 20: it can fail
    assert not smallest_detectable_change(rule, 20, "significant", 0.05, room=6).can_fail
    assert smallest_detectable_change(rule, 20, "significant", 0.05, room=7).smallest == 7
    # a rise rule reads the other side: 98 of 101 flagged leaves 3 that can be newly flagged, and 4 are needed
    rise = Rule("hallucination", max_increase=0)
    assert not smallest_detectable_change(rise, 101, "significant", 0.05, room=3).can_fail
