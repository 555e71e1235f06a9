"""The gate's three outcomes on project data (issue 53): a real regression on a small gold set is INCONCLUSIVE, not
PASS, says what would decide it, and CI sees it as configured; the packaged thresholds; Tango's interval by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.statistics.gate import EXIT_INCONCLUSIVE, PACKAGED_THRESHOLDS, Rule, load_gate, rule_outcome
from evalgate_lib.statistics.paired_tests import tango_interval, tango_p

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "labels" / "demo" / "nimbus-answers"
#: 17 answerable questions of the shipped nimbus pair: 2 the candidate breaks (q001, q011), 15 it answers as the
#: baseline does; and 6 no-answer questions answered alike. Accuracy on answerable: −2/17 = −11.8 points.
ANSWERABLE = ("q001", "q011", "q002", "q004", "q005", "q007", "q008", "q009", "q012", "q013", "q016", "q017", "q019",
              "q023", "q026", "q027", "q028")  # fmt: skip
NO_ANSWER = ("q082", "q083", "q087", "q088", "q090", "q091")


@pytest.fixture(scope="module")
def small_pair(tmp_path_factory) -> Path:
    """``evalgate score`` of 23 questions cut from the shipped nimbus pair (its gold and both answer logs)."""
    base = tmp_path_factory.mktemp("small-pair")
    keep = set(ANSWERABLE + NO_ANSWER)
    gold = [line for line in (ROOT / "gold" / "questions.jsonl").read_text().splitlines() if line.strip()]
    (base / "gold.jsonl").write_text("\n".join(x for x in gold if json.loads(x)["id"] in keep) + "\n")
    for config in ("baseline", "candidate"):
        lines = (LOGS / f"{config}.jsonl").read_text().splitlines()
        (base / f"{config}.jsonl").write_text(
            "\n".join(x for x in lines if x.strip() and json.loads(x)["question_id"] in keep) + "\n"
        )
    out = base / "results"
    code = main(["score", str(base / "baseline.jsonl"), str(base / "candidate.jsonl"), "--gold",
                 str(base / "gold.jsonl"), "--corpus", str(ROOT / "corpus"), "--names", "baseline,candidate",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    return out


def test_a_23_question_regression_is_inconclusive_and_says_what_would_decide(small_pair: Path, tmp_path, capsys):
    """−11.8 points on 17 answerable questions (McNemar p = 0.5): before issue 53 a PASS, exit 0, JUnit green."""
    import junitparser

    capsys.readouterr()
    xml = tmp_path / "gate.xml"
    code = main(["gate", "--results", str(small_pair), "--thresholds", str(ROOT / "configs" / "gate.toml"),
                 "--junit", str(xml)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_INCONCLUSIVE == 4, out
    line = next(x for x in out.splitlines() if "accuracy on answerable:" in x)
    assert line.lstrip().startswith("INCONCLUSIVE  accuracy on answerable: delta -11.8 pts"), line
    assert "McNemar p=0.500 against no change" in line
    assert "neither within the limit nor past it: Tango 95% CI [" in line and "against the limit" in line
    assert "answerable questions (now 17) would decide it" in line
    assert "INCONCLUSIVE: no rule fails" in out.splitlines()[-2]
    (suite,) = list(junitparser.JUnitXml.fromfile(str(xml)))
    accuracy = next(c for c in suite if c.name.startswith("accuracy_answerable"))
    assert isinstance(accuracy.result[0], junitparser.Failure) and accuracy.result[0].type == "inconclusive"
    assert suite.failures >= 1
    # the team that wants today's behaviour: exit 0, the case skipped (not green-as-passed)
    code = main(["gate", "--results", str(small_pair), "--thresholds", str(ROOT / "configs" / "gate.toml"),
                 "--junit", str(xml), "--allow-inconclusive"])  # fmt: skip
    assert code == 0 and "exit 0: --allow-inconclusive" in capsys.readouterr().out
    (suite,) = list(junitparser.JUnitXml.fromfile(str(xml)))
    accuracy = next(c for c in suite if c.name.startswith("accuracy_answerable"))
    assert isinstance(accuracy.result[0], junitparser.Skipped) and suite.failures == 0


def test_the_gate_outside_the_repository_reads_the_packaged_thresholds(small_pair: Path, tmp_path, capsys):
    """Issue 53 defect: ``gate thresholds file configs/gate.toml does not exist`` outside the repository."""
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        code = main(["gate", "--results", str(small_pair)])
    finally:
        os.chdir(here)
    out = capsys.readouterr().out
    assert code == EXIT_INCONCLUSIVE, out
    assert out.startswith(f"thresholds: {PACKAGED_THRESHOLDS} (EvalGate's packaged default: no configs/gate.toml here)")
    # the packaged file is the repository's, and it ships in the wheel
    assert PACKAGED_THRESHOLDS.read_text() == (ROOT / "configs" / "gate.toml").read_text()
    assert '"evalgate_lib.statistics" = ["gate.toml"]' in (ROOT / "pyproject.toml").read_text()


def test_every_shipped_limit_can_be_shown() -> None:
    """A limit of 0 can never be shown by data; the shipped limits are all above it."""
    for rule in load_gate(PACKAGED_THRESHOLDS).rules:
        assert (rule.max_drop if rule.max_drop is not None else rule.max_increase) > 0, rule.metric


def test_tango_by_hand() -> None:
    # nothing moved on 20 pairs: |Z| = sqrt(n δ / (1 − δ)) = z  =>  δ = z² / (n + z²) = 3.841459 / 23.841459
    low, high = tango_interval(0, 0, 20, 0.95)
    assert high == pytest.approx(3.841459 / 23.841459, abs=1e-6) and low == -high
    # the score interval holds the observed delta and, at δ0 = 0, its statistic is McNemar's: (c − b) / sqrt(b + c)
    low, high = tango_interval(5, 1, 23, 0.95)
    assert low < -4 / 23 < high and low < 0 < high  # |−4 / sqrt 6| = 1.63 < 1.96: 0 inside
    low, high = tango_interval(9, 0, 23, 0.95)
    assert high < 0  # 9 / 3 = 3 > 1.96: 0 outside
    with pytest.raises(ValueError):
        tango_interval(3, 3, 5)


def test_rule_outcome_by_hand() -> None:
    """FAIL is the mirror of PASS: the interval wholly past the limit, against wholly within it."""
    drop = Rule("accuracy_answerable", max_drop=0.05)
    within = {"ci_low": -0.04, "ci_high": 0.02}
    holds = {"ci_low": -0.2, "ci_high": 0.02}
    past = {"ci_low": -0.2, "ci_high": -0.06}
    assert rule_outcome(drop, -0.01, within, "significant") == "PASS"
    assert rule_outcome(drop, -0.01, holds, "significant") == "INCONCLUSIVE"
    assert rule_outcome(drop, -0.1, holds, "significant") == "INCONCLUSIVE"  # a breach the interval does not show
    assert rule_outcome(drop, -0.1, past, "significant") == "FAIL"
    # the defect issue 53 measured: [-0.2, -0.01] excludes 0 (p < α against no change) but holds the -0.05 limit
    assert rule_outcome(drop, -0.1, {"ci_low": -0.2, "ci_high": -0.01}, "significant") == "INCONCLUSIVE"
    assert rule_outcome(drop, -0.01, holds, "point") == "PASS"  # point mode: two outcomes, the point estimate
    assert rule_outcome(drop, -0.1, within, "point") == "FAIL"
    assert rule_outcome(drop, -0.1, None, "significant") == "INCONCLUSIVE"  # no interval shows nothing
    zero = Rule("hallucination", max_increase=0)
    assert rule_outcome(zero, 0, {"ci_low": -1.4, "ci_high": 1.4}, "significant") == "INCONCLUSIVE"
    rise = Rule("unsupported_claim", max_increase=0.10)
    assert rule_outcome(rise, 0.158, {"ci_low": 0.028, "ci_high": 0.284}, "significant") == "INCONCLUSIVE"
    assert rule_outcome(rise, 0.25, {"ci_low": 0.1000001, "ci_high": 0.4}, "significant") == "FAIL"
    assert rule_outcome(rise, 0.05, {"ci_low": -0.1, "ci_high": 0.1}, "significant") == "PASS"  # touching counts


def test_tango_p_by_hand() -> None:
    """The p against a limit is the score test the Tango interval inverts."""
    # δ0 = 0: McNemar's asymptotic statistic, Z = (8 − 2) / sqrt(10) = 1.8974, p = 2 (1 − Φ(1.8974)) = 0.05778
    assert tango_p(2, 8, 30, 0.0) == pytest.approx(0.05778, abs=1e-5)
    # nothing moved on 20 pairs, δ0 = 0.1: p̃21 = 0, variance = 20 · 0.1 · 0.9 = 1.8, Z = −2 / sqrt(1.8) = −1.4907,
    # p = 2 (1 − Φ(1.4907)) = 0.13604
    assert tango_p(0, 0, 20, 0.1) == pytest.approx(0.13604, abs=1e-5)
    # the interval's ends are where p = α: the interval excludes δ0 exactly when p < α
    low, high = tango_interval(15, 31, 101, 0.95)
    assert tango_p(15, 31, 101, low) == pytest.approx(0.05, abs=1e-5) == tango_p(15, 31, 101, high)
    assert tango_p(15, 31, 101, 0.10) > 0.05 and low < 0.10 < high
    with pytest.raises(ValueError):
        tango_p(3, 3, 5, 0.0)


def test_sample_forecasts_the_interval_and_the_budget_a_width_needs(small_pair: Path, tmp_path, capsys) -> None:
    """Issue 53 defect: a budget-8 plan printed a ±100-point interval and nothing said what budget helps."""
    capsys.readouterr()
    assert main(["sample", "--results", str(small_pair), "--budget", "8", "--out", str(tmp_path / "plan.json")]) == 0
    out = capsys.readouterr().out
    assert "interval forecast at this budget" in out
    line = next(x for x in out.splitlines() if x.startswith("  accuracy on answerable: ±"))
    assert "of 17 answerable questions labelled; ±5.0 pts needs" in line
    refusal = next(x for x in out.splitlines() if x.startswith("  refusal accuracy: "))
    assert "no-answer questions drawn: its rule keeps the judge's delta" in refusal or "labelled; ±5.0" in refusal
