"""The CI gate: verdicts from a summary, thresholds validation, exit codes."""

from __future__ import annotations

import pytest
from conftest import make_flags, make_matching, make_row, write_results_folder

from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.statistics.gate import GateConfig, Rule, format_verdict, judge, load_gate
from evalgate_lib.statistics.metrics import Summary, compare


def _row(config: str, qid: str, qtype: str, correct: bool, hallucination: bool = False) -> ResultRow:
    return make_row(
        config=config,
        question_id=qid,
        type=qtype,
        correct=correct,
        groundedness=0.9,
        retrieval_hit=True if qtype == "answerable" else None,
        retrieval_metrics=None,
        matching=make_matching(correct),
        flags=make_flags(wrong=not correct, hallucination=hallucination),
    )


def _rows(base_correct: list[bool], cand_correct: list[bool], cand_halluc: int = 0) -> list[ResultRow]:
    rows = [_row("base", f"q{i}", "answerable", c) for i, c in enumerate(base_correct)]
    rows += [_row("cand", f"q{i}", "answerable", c, hallucination=i < cand_halluc) for i, c in enumerate(cand_correct)]
    return rows


def _summary(base_correct: list[bool], cand_correct: list[bool], cand_halluc: int = 0) -> Summary:
    return compare(_rows(base_correct, cand_correct, cand_halluc), "base", "cand")


def test_passes_when_within_thresholds():
    # 10 questions, baseline 8 right, candidate 8 right (different ones): delta 0
    summary = _summary([True] * 8 + [False] * 2, [False] * 2 + [True] * 8)
    gate = GateConfig((Rule("accuracy_answerable", max_drop=0.05), Rule("hallucination", max_increase=0)))
    verdicts = judge(summary, gate)
    assert not any(v.failed for v in verdicts)
    assert "PASS" in format_verdict(summary, gate, verdicts)


def test_fails_naming_metric_and_interval():
    # baseline 10/10, candidate 5/10: delta -50 pts, breaching a 5-point max drop
    summary = _summary([True] * 10, [True] * 5 + [False] * 5, cand_halluc=2)
    gate = GateConfig((Rule("accuracy_answerable", max_drop=0.05), Rule("hallucination", max_increase=0)))
    verdicts = judge(summary, gate)
    assert [v.failed for v in verdicts] == [True, True]
    text = format_verdict(summary, gate, verdicts)
    assert "FAIL: candidate regresses on accuracy_answerable, hallucination" in text
    assert "accuracy on answerable: delta -50.0 pts 95% CI [" in text
    # McNemar: b = 5 discordant (base right, cand wrong), c = 0 -> p = 2 * 0.5**5 = 0.0625
    assert "McNemar p=0.062" in text


def test_significant_mode_lets_a_noisy_breach_through():
    # delta -30 pts, 3 discordant pairs of 10: Tango's 95% interval [-60.3, +6.1] holds the -5 limit: not beyond it
    summary = _summary([True] * 10, [True] * 7 + [False] * 3)
    gate = GateConfig((Rule("accuracy_answerable", max_drop=0.05),), mode="significant", alpha=0.05)
    (verdict,) = judge(summary, gate)
    assert verdict.breached and verdict.significant is False and not verdict.failed
    assert verdict.outcome == "INCONCLUSIVE" and verdict.margin["ci_low"] < -0.05 < verdict.margin["ci_high"]
    # 20 questions, 10 discordant: Tango [-70.1, -25.8] lies wholly past -5 (p against the limit 0.003) -> fails
    summary = _summary([True] * 20, [True] * 10 + [False] * 10)
    (verdict,) = judge(summary, gate)
    assert verdict.failed and verdict.significant is True
    assert verdict.margin["ci_high"] < -0.05 and verdict.margin["p_value"] == pytest.approx(0.003415, abs=1e-6)


def test_fail_tests_the_limit_not_zero():
    """Issue 53: a rise beyond 0 beyond noise, whose interval still holds the limit, is INCONCLUSIVE, not FAIL.

    The shipped pair's unsupported-claim rate: 31 answers gained a claim the passages do not make, 15 lost one, of
    101 (+15.8 points; McNemar p = 0.026 against no change) against a 10-point limit: Tango [+2.8, +28.4] holds it.
    """
    def row(config: str, i: int, unsupported: bool) -> ResultRow:
        return make_row(config=config, question_id=f"q{i}", type="answerable", correct=True, groundedness=0.9,
                        retrieval_hit=True, retrieval_metrics=None, matching=make_matching(True),
                        flags=make_flags(unsupported_claim=unsupported))  # fmt: skip

    # q0..q14 lose the claim (b = 15), q15..q45 gain it (c = 31), the other 55 never have one
    rows = [row("base", i, i < 15) for i in range(101)] + [row("cand", i, 15 <= i < 46) for i in range(101)]
    summary = compare(rows, "base", "cand")
    sig = summary.significance["unsupported_claim"]
    assert (sig["b"], sig["c"], sig["n"], sig["p_value"]) == (15, 31, 101, 0.025896)
    gate = GateConfig((Rule("unsupported_claim", max_increase=0.10),), mode="significant", alpha=0.05)
    (verdict,) = judge(summary, gate)
    assert verdict.breached and not verdict.failed and verdict.outcome == "INCONCLUSIVE"
    assert (verdict.margin["ci_low"], verdict.margin["ci_high"]) == (0.027548, 0.284442)
    assert verdict.margin["p_value"] == 0.375092  # Tango's score test of "+10 points"
    assert "McNemar p=0.026 against no change" in verdict.message
    assert "neither within the limit nor past it: Tango 95% CI [+2.8, +28.4] holds it (p=0.375 against the limit)" in (
        verdict.message
    )
    # in point mode the breach alone fails
    (verdict,) = judge(summary, GateConfig(gate.rules, mode="point"))
    assert verdict.failed


def test_load_gate_validates(tmp_path):
    good = tmp_path / "g.toml"
    good.write_text('[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    assert load_gate(good).rules == (Rule("accuracy_answerable", 0.05, None),)
    bad = tmp_path / "b.toml"
    bad.write_text('[[rule]]\nmetric = "accuracy"\nmax_drop = 0.05\n')
    with pytest.raises(InputError, match="rule 1 names unknown metric 'accuracy'"):
        load_gate(bad)
    both = tmp_path / "c.toml"
    both.write_text('[[rule]]\nmetric = "wrong"\nmax_drop = 1\nmax_increase = 1\n')
    with pytest.raises(InputError, match="exactly one of max_drop or max_increase"):
        load_gate(both)
    empty = tmp_path / "d.toml"
    empty.write_text('mode = "point"\n')
    with pytest.raises(InputError, match="no \\[\\[rule\\]\\]"):
        load_gate(empty)


def test_shipped_thresholds_parse():
    gate = load_gate("configs/gate.toml")
    assert {r.metric for r in gate.rules} >= {"accuracy_answerable", "hallucination"}


def test_gate_command_on_results_folder(tmp_path, capsys):
    thresholds = tmp_path / "g.toml"
    thresholds.write_text('[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    regressed = write_results_folder(tmp_path / "res", _rows([True] * 10, [True] * 5 + [False] * 5), "base", "cand")
    assert main(["gate", "--results", str(regressed), "--thresholds", str(thresholds)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["gate (point mode): cand vs base", "judged 10 questions per config"]
    assert "FAIL" in out
    same = write_results_folder(tmp_path / "same", _rows([True] * 10, [True] * 10), "base", "cand")
    assert main(["gate", "--results", str(same), "--thresholds", str(thresholds)]) == 0
    assert main(["gate", "--results", str(tmp_path / "nope"), "--thresholds", str(thresholds)]) == 2


def test_a_summary_that_tested_a_metric_measured_on_no_question_is_named_as_an_earlier_evalgates() -> None:
    """EvalGate gave a yes/no metric with no complete pair McNemar p = 1; now it makes no test (None). A folder
    written before is refused for what it is, not as a summary edited after the run."""
    import dataclasses

    from evalgate_lib.statistics.gate import recompute_summary

    rows = [make_row(config=c, question_id=f"q{n}", retrieval_metrics=None, retrieval_hit=None)
            for c in ("baseline", "candidate") for n in range(3)]  # fmt: skip
    fresh = compare(rows, "baseline", "candidate")
    assert fresh.significance["recall@1"]["n"] == 0 and fresh.significance["recall@1"]["p_value"] is None
    assert recompute_summary(rows, fresh, "summary.json") == fresh
    old = dataclasses.replace(fresh, significance={**fresh.significance,
                                                   "recall@1": {**fresh.significance["recall@1"], "p_value": 1.0}})
    with pytest.raises(InputError, match=r"^summary\.json: written by an earlier EvalGate: significance\.recall@1\."
                                         r"p_value is 1\.0 for a metric measured on no question"):  # fmt: skip
        recompute_summary(rows, old, "summary.json")
