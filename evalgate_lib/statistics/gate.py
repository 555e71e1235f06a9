"""The CI gate: fail a build when the candidate regresses beyond the thresholds.

Thresholds live in a TOML file (``configs/gate.toml``)::

    mode = "point"          # or "significant"
    alpha = 0.05

    [[rule]]
    metric = "accuracy_answerable"
    max_drop = 0.05         # a rate: 0.05 = 5 points

    [[rule]]
    metric = "hallucination"
    max_increase = 0        # a count of questions

A rule *breaches* when the delta (candidate − baseline) falls below
``-max_drop`` or rises above ``max_increase``. In ``point`` mode any breach
fails the gate. In ``significant`` mode a rule has three outcomes (issue 53,
:func:`rule_outcome`), read off one interval at 1 − α (Tango's score interval
for a yes/no delta, :func:`margin_interval`; a plan's or a score's deciding
interval otherwise): FAIL when it lies wholly past the limit (the candidate is
worse than the limit beyond chance: its p *against the limit* < α), PASS when
it lies wholly within it (non-inferiority), INCONCLUSIVE otherwise (exit
:data:`EXIT_INCONCLUSIVE`). FAIL and PASS are mirror images: a test against 0
would FAIL a true delta between 0 and the limit. The verdict names each metric,
its delta and interval against no change (McNemar's p) and the interval and p
against the limit that decided.

With reviewers' labels (``corrected``, from :func:`evalgate_lib.statistics.label_correction.correct_with_labels`),
each rule on a metric a label measures decides on the delta corrected by the labels instead, with
its interval and p-value (McNemar's on a census of labels; under a plan, the PPI++ estimate with the
hull of its stratified bootstrap and floored t interval, :func:`plan_stat`), and its line prints the
judge-only delta beside it; the other rules (retrieval, ...) involve no judgement and keep the run's
delta. :func:`decided_by` names which figure decided, in the words every view uses.

Several candidates against one baseline (:mod:`evalgate_lib.statistics.candidates`) are judged
by the same :func:`judge`, given each yes/no rule's p against its limit adjusted for the number of
candidates (Holm): a rule on the judge's delta then decides on Tango's interval at the level the
adjusted p implies and names both p-values (a rule corrected by labels keeps its own test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import check_keys
from evalgate_lib.inputs.structured import read_toml
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.statistics.label_bootstrap import BOOTSTRAP_INTERVAL, plan_figure
from evalgate_lib.statistics.label_bounds import FAIL, IMPROVED, REGRESSED, CensusRule, decide_by_labels
from evalgate_lib.statistics.label_bounds import PASS as LABELS_PASS
from evalgate_lib.statistics.limit_decision import breaches, three_way
from evalgate_lib.statistics.limit_decision import past_limit as _past
from evalgate_lib.statistics.limit_decision import within_limit as _within
from evalgate_lib.statistics.metrics import METRICS, Summary, compare, format_interval, format_value
from evalgate_lib.statistics.paired_tests import (
    DEFAULT_SEED,
    EXACT_MCNEMAR,
    TANGO,
    mcnemar_interval,
    tango_interval,
    tango_p,
)

EXIT_REGRESSION = 1
#: The thresholds shipped inside the package: what ``evalgate gate`` reads with no ``--thresholds`` and no
#: ``configs/gate.toml`` in the working directory (the repository's file is the same).
PACKAGED_THRESHOLDS = Path(__file__).with_name("gate.toml")
#: ``evalgate gate``'s exit when no rule fails but one cannot be shown within its limit (0 with --allow-inconclusive).
EXIT_INCONCLUSIVE = 4
#: A rule's outcome: shown within its limit, worse beyond chance, or neither (the data cannot tell yet).
PASS, INCONCLUSIVE = "PASS", "INCONCLUSIVE"
FAILED = "FAIL"
_KINDS = {m.key: m for m in METRICS}


def outcome_of(failed: bool, inconclusive: bool, allow_inconclusive: bool = False) -> tuple[str, int]:
    """The verdict word and exit code of a gate, one pair's or a family's: ``FAIL`` (exit 1) when a rule fails;
    else ``INCONCLUSIVE`` when one is not shown within its limit (exit 4, 0 with ``--allow-inconclusive``); else
    ``PASS`` (exit 0). One place, so the text, ``--json`` and the exit status never disagree."""
    if failed:
        return FAILED, EXIT_REGRESSION
    if inconclusive:
        return INCONCLUSIVE, 0 if allow_inconclusive else EXIT_INCONCLUSIVE
    return PASS, 0


@dataclass(frozen=True)
class Rule:
    metric: str
    max_drop: float | None = None
    max_increase: float | None = None


@dataclass(frozen=True)
class GateConfig:
    rules: tuple[Rule, ...]
    mode: str = "point"
    alpha: float = 0.05


#: Every key a thresholds file may hold, at the top and in a ``[[rule]]``: a typo must not pass silently.
GATE_KEYS = ("mode", "alpha", "rule")
RULE_KEYS = ("metric", "max_drop", "max_increase")


def load_gate(path: str | Path) -> GateConfig:
    """Parse and validate a thresholds file, naming the rule and key that are wrong.

    A threshold is a plain non-negative number in the metric's unit: a fraction for a rate or a
    score (at most 1: ``0.05`` is 5 points), a number of questions for a count. A string such as
    ``"5%"``, a boolean, NaN or a negative bound is refused rather than read some way.
    """
    file = Path(path)
    raw = read_toml(file, "gate thresholds file")
    check_keys(raw, GATE_KEYS, file, "the top level")
    mode = raw.get("mode", "point")
    if mode not in ("point", "significant"):
        raise InputError(f"{file}: mode must be 'point' or 'significant', got {mode!r}")
    alpha = raw.get("alpha", 0.05)
    if not _is_number(alpha) or not 0 < alpha < 1:
        raise InputError(f"{file}: alpha must be a number between 0 and 1 (a p-value threshold), got {alpha!r}")
    items = raw.get("rule", [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise InputError(f"{file}: 'rule' must be [[rule]] tables, each with a metric and max_drop or max_increase")
    rules = [_rule(item, file, i) for i, item in enumerate(items, start=1)]
    if not rules:
        raise InputError(f"{file}: no [[rule]] tables; a gate with no rules would pass anything")
    return GateConfig(tuple(rules), mode, float(alpha))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _rule(item: Mapping[str, Any], file: Path, number: int) -> Rule:
    """Rule ``number``, checked: only known keys, a known metric, exactly one bound, a number in the metric's unit."""
    check_keys(item, RULE_KEYS, file, f"[[rule]] {number}")
    where = f"{file}: rule {number}"
    metric = item.get("metric")
    if metric not in _KINDS:
        raise InputError(f"{where} names unknown metric {metric!r}; known: {', '.join(_KINDS)}")
    drop, rise = item.get("max_drop"), item.get("max_increase")
    if (drop is None) == (rise is None):
        raise InputError(f"{where} ({metric}) needs exactly one of max_drop or max_increase")
    key, value = ("max_drop", drop) if drop is not None else ("max_increase", rise)
    kind = _KINDS[metric].kind
    unit = "a number of questions" if kind == "count" else "a fraction (0.05 = 5 points)"
    ceiling = None if kind == "count" else 1
    if not _is_number(value) or value < 0 or (ceiling is not None and value > ceiling):
        bound = "" if ceiling is None else f" and at most {ceiling}"
        raise InputError(
            f"{where} ({metric}) {key} must be a number >= 0{bound}, {unit} for this {kind}, got {value!r}"
        )
    return Rule(metric, drop, rise)


#: Which delta a rule decided on: the judge's verdicts, or the delta corrected by reviewers' labels.
JUDGE, LABELS = "judge", "labels"


@dataclass(frozen=True)
class RuleVerdict:
    """One rule, decided: the delta and interval it was decided on, and every other figure printed beside it.

    ``delta``/``stat`` are the deciding delta and its figures against no change (``stat``: ``ci_low``,
    ``ci_high``, ``p_value``, ``test``, ``interval``, ``source``), from the procedure of the source that
    decides, at the gate's level: the interval excludes 0 exactly when that p < α. ``margin`` is what decides
    the outcome against the limit (issue 53): the interval at 1 − α (Holm-adjusted level for one of several
    candidates) and its ``p_value`` against the limit; FAIL when it lies wholly past the limit, PASS wholly
    within. ``significant`` (``None`` without a breach): whether it lies wholly past. ``judge_stat`` is the
    judge's own delta at that level (the same as ``stat`` when the judge decided); ``corrected`` the
    labels' :class:`~evalgate_lib.statistics.label_correction.CorrectedDelta` when there is one, and
    ``labels`` the exact :class:`~evalgate_lib.statistics.label_bounds.LabelDecision` of a plan's labels.
    ``basis`` says which decided; ``note`` why labels that were given did not (they cannot tell yet, or
    the rule's population has no label).
    """

    rule: Rule
    delta: float | None
    breached: bool
    significant: bool | None
    failed: bool
    message: str
    basis: str = JUDGE
    stat: Mapping[str, Any] | None = None
    #: The p against no change printed first: McNemar's, or its Holm adjustment when ``adjusted`` (``None``: a score).
    p_value: float | None = None
    adjusted: bool = False
    judge_delta: float | None = None
    judge_stat: Mapping[str, Any] | None = None
    corrected: Any = None
    labels: Any = None
    note: str | None = None
    #: :data:`PASS`, :data:`FAILED` or :data:`INCONCLUSIVE` (``significant`` mode; ``point`` mode never is).
    outcome: str = PASS
    #: The interval that decides the rule against its limit (past it: FAIL; within: PASS; else INCONCLUSIVE), in
    #: the metric's unit, how it is made (Tango's score interval for a yes/no delta, the deciding interval
    #: otherwise) and its ``p_value`` against the limit (``raw_p_value`` beside a Holm-adjusted one).
    margin: Mapping[str, Any] | None = None

    @property
    def inconclusive(self) -> bool:
        return self.outcome == INCONCLUSIVE


def recompute_summary(
    rows: Sequence[ResultRow], recorded: Summary, source: str, depths: Mapping[str, int] | None = None
) -> Summary:
    """The summary ``rows`` give; a ``recorded`` one (``summary.json``) whose figures differ is refused.

    The gate, like every reader, decides from the rows, never from a summary it takes on trust: a
    folder whose rows were edited (and checksums recomputed) while its summary was not would
    otherwise PASS while ``evalgate diff`` lists the edited rows as broken. The first figure that
    differs is named. The bootstrap is redrawn with the recorded seed, so an intact folder matches
    figure for figure. ``depths`` is how deep each config's rank metrics look, from the manifest
    (:func:`~evalgate_lib.statistics.metrics.ranking_depths`), never from the summary itself.
    """
    seed = recorded.bootstrap.get("seed")
    fresh = compare(rows, recorded.baseline, recorded.candidate, seed if _is_seed(seed) else DEFAULT_SEED, depths)
    difference = _first_difference(recorded.to_json(), fresh.to_json(), "")
    if difference is not None:
        where, was, now = difference
        if where.endswith(".p_value") and was == 1.0 and now is None:  # the one figure EvalGate itself changed
            raise InputError(
                f"{source}: written by an earlier EvalGate: {where} is 1.0 for a metric measured on no question "
                "(no test is made now: n/a)"
            )
        raise InputError(
            f"{source}: {where} is {was!r}, but the rows give {now!r}: the summary does not match its rows "
            "(one of them was changed after the run)"
        )
    return fresh


def _is_seed(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _first_difference(recorded: Any, fresh: Any, where: str) -> tuple[str, Any, Any] | None:
    """``(dotted key, recorded value, fresh value)`` of the first figure that differs, or ``None``."""
    if isinstance(recorded, dict) and isinstance(fresh, dict):
        for key in sorted(set(recorded) | set(fresh), key=str):
            found = _first_difference(recorded.get(key), fresh.get(key), f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(fresh, list) and len(recorded) == len(fresh):
        for index, (a, b) in enumerate(zip(recorded, fresh, strict=True)):
            found = _first_difference(a, b, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    return None if _same(recorded, fresh) else (where, recorded, fresh)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: NaN equals NaN (a NaN figure must not refuse its own folder), and True is not 1."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def level_of(alpha: float, p_raw: float | None = None, p_adjusted: float | None = None, family: int = 1) -> float:
    """The confidence of the interval that agrees with a decision at ``alpha``: 1 − α for McNemar's own p.

    With Holm's adjustment the rule is decided on the adjusted p, ``k`` times the raw one for this
    candidate's step (``k`` = adjusted / raw): the raw p < α / k exactly when the adjusted one is below
    α, so the interval at 1 − α / k excludes 0 exactly then. (``family``: the candidates, for a raw p of 0.)
    """
    if p_adjusted is None or p_raw is None:
        return 1.0 - alpha
    if p_raw <= 0 or p_adjusted <= 0:
        return 1.0 - alpha / max(1, family)
    return 1.0 - alpha * p_raw / p_adjusted


def exact_stat(b: int, c: int, n: int, count: bool, confidence: float, p_value: float) -> dict[str, Any]:
    """A yes/no delta's interval at ``confidence`` by the exact McNemar procedure, in the metric's unit."""
    low, high = mcnemar_interval(b, c, n, confidence)
    scale = n if count else 1
    return {"ci_low": round(low * scale, 6), "ci_high": round(high * scale, 6), "p_value": p_value,
            "test": "McNemar", "interval": EXACT_MCNEMAR, "confidence": confidence, "b": b, "c": c, "n": n}  # fmt: skip


def _judge_stat(summary: Summary, metric: str, alpha: float, adjusted: float | None, family: int) -> dict[str, Any]:
    """The judge's delta's interval and p, at the level the gate decides at (summary.json holds 95 %)."""
    sig = dict(summary.significance.get(metric) or {})
    kind = _KINDS[metric]
    if not kind.binary or sig.get("b") is None or not sig.get("n"):
        return {**sig, "test": None if not kind.binary else "McNemar", "interval": sig.get("interval")}
    raw = sig["p_value"]
    stat = exact_stat(sig["b"], sig["c"], sig["n"], kind.kind == "count", level_of(alpha, raw, adjusted, family), raw)
    if adjusted is not None:
        stat["p_value"] = adjusted
        stat["raw_p_value"] = raw
        stat["test"] = "Holm-adjusted McNemar"
    return stat


def _breach(rule: Rule, delta: float | None) -> tuple[bool, float]:
    """``(whether the point estimate is past the limit, the limit as a signed delta)``."""
    size, drop = _drop(rule)
    return breaches(delta, size, drop), -size if drop else size


def limit_of(rule: Rule) -> float:
    """The rule's limit as a signed delta in the metric's unit: ``-max_drop`` for a drop rule, ``max_increase`` else."""
    return _breach(rule, None)[1]


def decide_rule(
    rule: Rule, delta: float | None, margin: Mapping[str, Any] | None, mode: str
) -> tuple[bool, bool | None, str]:
    """``(breached, beyond the limit, outcome)`` of one rule from its deciding delta and interval (``margin``).

    The one decision every basis goes through (judge, a census of labels, a plan's bootstrap), so the
    benchmark (``bench/gate_labels.py``) measures the gate's own rule: ``outcome`` is :func:`rule_outcome`;
    *beyond the limit* (``None`` without a breach) says whether the interval lies wholly past the limit.
    """
    breached = _breach(rule, delta)[0]
    beyond = past_limit(rule, margin) if breached else None
    return breached, beyond, rule_outcome(rule, delta, margin, mode)


def judge_limit_p(summary: Summary, rule: Rule) -> float | None:
    """The judge's p against ``rule``'s limit: Tango's score test of "the delta equals the limit"
    (:func:`~evalgate_lib.statistics.paired_tests.tango_p`); ``None`` for a score or an unmeasured metric.

    What a family of candidates adjusts (:func:`evalgate_lib.statistics.candidates.holm_limit_p_values`): the test
    a yes/no rule on the judge's delta is decided by.
    """
    sig = summary.significance.get(rule.metric) or {}
    if not _KINDS[rule.metric].binary or sig.get("b") is None or not sig.get("n"):
        return None
    n = int(sig["n"])
    return tango_p(int(sig["b"]), int(sig["c"]), n, _as_rate(limit_of(rule), _KINDS[rule.metric].kind, n))


def _as_rate(limit: float, kind: str, n: int) -> float:
    """A limit in the metric's unit as a paired rate delta (a count's over its ``n`` questions), within [-1, 1]."""
    rate = limit / n if kind == "count" else limit
    return max(-1.0, min(1.0, rate))


def judge(
    summary: Summary,
    gate: GateConfig,
    corrected: Mapping[str, Any] | None = None,
    adjusted_p: Mapping[str, float | None] | None = None,
    family: int = 1,
    not_corrected: Mapping[str, str] | None = None,
    adjusted_limit_p: Mapping[str, float | None] | None = None,
) -> list[RuleVerdict]:
    """One verdict per rule, from the summary of a run (recomputed from its rows: :func:`recompute_summary`);
    with ``corrected``, on the labels where they can decide.

    ``corrected`` maps a metric key to a
    :class:`~evalgate_lib.statistics.label_correction.CorrectedDelta`. A census of labels decides on the
    labels' delta with McNemar's exact test; a plan's labels on the PPI++ estimate and its interval and p
    (:func:`plan_stat`); where a plan stratum has a single label (no bootstrap), on the census bound
    (:func:`~evalgate_lib.statistics.label_bounds.decide_by_labels`), else the judge's delta decides and the
    verdict says the labels cannot tell yet.
    Each rule is decided (:func:`decide_rule`) on its *margin*, the interval tested against its limit
    (:func:`margin_interval`: Tango's score interval for a yes/no delta with its counts, else the deciding
    interval), with its p against the limit: FAIL when it lies wholly past the limit, PASS when wholly
    within, else INCONCLUSIVE. ``stat`` beside it is the delta against no change (McNemar's p, its interval).
    ``adjusted_p`` (one candidate of ``family``: each metric's Holm-adjusted McNemar p against no change,
    :func:`evalgate_lib.statistics.candidates.holm_p_values`) is printed beside McNemar's; ``adjusted_limit_p``
    (the Holm-adjusted p against each rule's limit, :func:`evalgate_lib.statistics.candidates.holm_limit_p_values`)
    decides a rule on the judge's delta: its Tango interval is at the level that adjustment implies
    (:func:`level_of`), so it clears the limit exactly when the adjusted p is below α.
    ``not_corrected`` maps a metric the labels could not correct (no labelled question of its
    population) to why: its rule keeps the judge's delta and says so.
    """
    verdicts = []
    for rule in gate.rules:
        metric = _KINDS[rule.metric]
        fixed = (corrected or {}).get(rule.metric)
        adjusted = None if fixed is not None else (adjusted_p or {}).get(rule.metric)
        judge_stat = _judge_stat(summary, rule.metric, gate.alpha, adjusted, family)
        judge_delta = summary.delta.get(rule.metric)
        basis, delta, stat, labels, note = JUDGE, judge_delta, judge_stat, None, None
        if fixed is None and (not_corrected or {}).get(rule.metric):
            note = f"{(not_corrected or {})[rule.metric]}: decided on the judge's delta"
        if fixed is not None and fixed.census:
            sig = fixed.significance()
            basis, delta = LABELS, fixed.delta
            stat = exact_stat(sig["b"], sig["c"], sig["n"], metric.kind == "count", 1.0 - gate.alpha, fixed.p_value)
            stat["source"] = BY_CENSUS
        elif fixed is not None and fixed.replicates:
            basis, delta = LABELS, fixed.delta
            stat = plan_stat(fixed, gate.alpha, limit_of(rule))
        elif fixed is not None:
            labels = decide_by_labels(fixed.strata, census_rule(rule, gate))
            if labels.decided:
                basis, delta = LABELS, fixed.delta
                stat = {"ci_low": labels.low, "ci_high": labels.high, "p_value": labels.p_value,
                        "test": "McNemar, largest over the censuses the labels allow",
                        "interval": "hull of the exact McNemar intervals of those censuses",
                        "source": BY_BOUND}  # fmt: skip
            else:
                note = (
                    f"the {labels.box.labelled} labelled question(s) cannot tell (every census they allow lies in "
                    f"{format_interval({'ci_low': labels.low, 'ci_high': labels.high}, metric.kind)}, McNemar p up "
                    f"to {labels.p_value:.3f}): decided on the judge's delta"
                )
        if basis == JUDGE:
            stat = {**stat, "source": BY_RUN if _is_run_metric(rule.metric) else BY_JUDGE}
        limit_adjusted = None if basis == LABELS else (adjusted_limit_p or {}).get(rule.metric)
        level = 1.0 - gate.alpha
        if limit_adjusted is not None:
            level = level_of(gate.alpha, judge_limit_p(summary, rule), limit_adjusted, family)
        margin = margin_interval(stat, metric.kind, gate.alpha, limit_of(rule), level)
        if margin is not None and limit_adjusted is not None:
            margin.update(raw_p_value=margin["p_value"], p_value=limit_adjusted, test="Holm-adjusted Tango")
        if basis == LABELS and labels is not None:  # the census bound: every census it allows, decided alike
            margin = {"ci_low": labels.margin_low, "ci_high": labels.margin_high, "interval": TANGO_HULL,
                      "confidence": 1.0 - gate.alpha, "p_value": None}  # fmt: skip
        breached, significant, outcome = decide_rule(rule, delta, margin, gate.mode)
        if basis == LABELS and labels is not None:  # the labels' own verdict of every census (the hull agrees)
            outcome = {FAIL: FAILED, LABELS_PASS: PASS}.get(labels.outcome, INCONCLUSIVE)
            breached = breached or outcome == FAILED
            significant = past_limit(rule, margin) if breached else None
        failed = outcome == FAILED
        message = _message(rule, metric.kind, basis, delta, stat, judge_delta, judge_stat, fixed, labels, note,
                           gate, outcome, margin)  # fmt: skip
        verdicts.append(
            RuleVerdict(
                rule,
                delta,
                breached,
                significant,
                failed,
                message,
                basis,
                stat,
                stat.get("p_value"),
                adjusted is not None,
                judge_delta,
                judge_stat,
                fixed,
                labels,
                note,
                outcome,
                margin,
            )  # fmt: skip
        )
    return verdicts


#: How the census bound's deciding interval is made, as its rule's line names it.
TANGO_HULL = "hull of Tango's intervals of the censuses the labels allow"


def margin_interval(stat: Mapping[str, Any], kind: str, alpha: float, limit: float | None = None,
                    confidence: float | None = None) -> dict[str, Any] | None:  # fmt: skip
    """The interval a rule is decided by against its limit, in the metric's unit, with its p against the limit
    (``None``: no interval).

    A yes/no delta with its counts (the judge's, or a census of labels): Tango's score interval at
    ``confidence`` (1 − α unless a family's Holm adjustment sets it;
    :func:`~evalgate_lib.statistics.paired_tests.tango_interval`), which, unlike the exact McNemar interval,
    keeps the width a gold set of this size leaves when nothing moved, and the p of the score test it inverts
    at ``limit`` (signed, in the metric's unit; :func:`~evalgate_lib.statistics.paired_tests.tango_p`): the
    interval excludes the limit exactly when that p is below 1 − ``confidence``. Otherwise (a plan's
    bootstrap, a score's bootstrap) the deciding interval itself, with the p against the limit its procedure
    gave (``limit_p_value``; a score has none).
    """
    level = 1.0 - alpha if confidence is None else confidence
    if stat.get("b") is not None and stat.get("n"):
        b, c, n = int(stat["b"]), int(stat["c"]), int(stat["n"])
        low, high = tango_interval(b, c, n, level)
        scale = n if kind == "count" else 1
        p = None if limit is None else tango_p(b, c, n, _as_rate(limit, kind, n))
        return {"ci_low": round(low * scale, 6), "ci_high": round(high * scale, 6), "interval": TANGO,
                "confidence": level, "p_value": p, "test": "Tango"}  # fmt: skip
    if stat.get("ci_low") is None or stat.get("ci_high") is None:
        return None
    return {"ci_low": stat["ci_low"], "ci_high": stat["ci_high"], "interval": stat.get("interval"),
            "confidence": stat.get("confidence") or 0.95, "p_value": stat.get("limit_p_value"),
            "test": stat.get("test")}  # fmt: skip


def _drop(rule: Rule) -> tuple[float, bool]:
    """``(the limit's size, whether it bounds a drop)``."""
    drop = rule.max_drop is not None
    return float(rule.max_drop if drop else rule.max_increase), drop  # type: ignore[arg-type]


def within_limit(rule: Rule, margin: Mapping[str, Any] | None) -> bool:
    """Whether the whole interval lies on the good side of the rule's limit (non-inferiority shown)."""
    return margin is not None and _within(float(margin["ci_low"]), float(margin["ci_high"]), *_drop(rule))


def past_limit(rule: Rule, margin: Mapping[str, Any] | None) -> bool:
    """Whether the whole interval lies past the rule's limit (worse than it beyond chance)."""
    return margin is not None and _past(float(margin["ci_low"]), float(margin["ci_high"]), *_drop(rule))


def rule_outcome(rule: Rule, delta: float | None, margin: Mapping[str, Any] | None, mode: str) -> str:
    """FAIL, PASS or INCONCLUSIVE (:func:`~evalgate_lib.statistics.limit_decision.three_way`): in ``significant``
    mode FAIL when the interval shows the candidate past the limit, PASS when it shows it within, else
    INCONCLUSIVE; in ``point`` mode FAIL on any breach of the point estimate, else PASS.

    A limit of exactly 0 on a yes/no metric is never shown: no finite gold set excludes every rise.
    """
    interval = None if margin is None else (float(margin["ci_low"]), float(margin["ci_high"]))
    return three_way(delta, interval, *_drop(rule), mode)


def plan_stat(fixed: Any, alpha: float, limit: float | None = None) -> dict[str, Any]:
    """A plan's corrected delta's interval at 1 − α and its p against no change, from its bootstrap replicates
    (one procedure), and, with the rule's ``limit`` (signed, in the metric's unit), its p against the limit
    (``limit_p_value``: the same hull excludes the limit exactly when it is below α).

    ``fixed`` is a :class:`~evalgate_lib.statistics.label_correction.CorrectedDelta` with replicates; a
    count's replicates (rates) are scaled by its population.
    """
    scale = fixed.questions if fixed.kind == "count" else 1
    est = fixed.estimate
    fig = plan_figure(fixed.replicates, est.estimate, est.total_se, est.total_df, 1.0 - alpha, scale)
    out = {"ci_low": fig.ci_low, "ci_high": fig.ci_high, "p_value": fig.p_value, "test": "bootstrap",
           "interval": BOOTSTRAP_INTERVAL, "confidence": fig.confidence, "source": BY_ESTIMATE}  # fmt: skip
    if limit is not None:
        null = limit / scale if scale else limit
        out["limit_p_value"] = plan_figure(fixed.replicates, est.estimate, est.total_se, est.total_df,
                                           1.0 - alpha, scale, null).p_value  # fmt: skip
    return out


#: The metrics no judgement makes (retrieval): the run measures them, labels have nothing to correct.
RUN_METRICS = ("retrieval_recall", "mrr", "evidence_hit", "evidence_mrr")
#: What decided a rule, in the one wording the text, Markdown, JUnit and the report all use (:func:`decided_by`).
BY_CENSUS, BY_ESTIMATE, BY_BOUND = "labels (census)", "labels (PPI++ estimate)", "labels (census bound)"
BY_JUDGE, BY_RUN = "judge", "run (no judgement)"


def decided_by(verdict: RuleVerdict) -> str:
    """Which figure decided ``verdict``'s rule: :data:`BY_CENSUS`, :data:`BY_ESTIMATE`, :data:`BY_BOUND`,
    :data:`BY_JUDGE` or :data:`BY_RUN` (a retrieval metric: measured by the run, nothing judged)."""
    if verdict.basis == LABELS:
        if verdict.corrected is not None and verdict.corrected.census:
            return BY_CENSUS
        return BY_ESTIMATE if verdict.labels is None else BY_BOUND
    return BY_RUN if _is_run_metric(verdict.rule.metric) else BY_JUDGE


def _is_run_metric(metric: str) -> bool:
    return metric in RUN_METRICS or metric.startswith("recall@")


def census_rule(rule: Rule, gate: GateConfig) -> CensusRule:
    """``rule`` as a census of labels would apply it (:class:`~evalgate_lib.statistics.label_bounds.CensusRule`)."""
    metric = _KINDS[rule.metric]
    drop = rule.max_drop is not None
    limit = float(rule.max_drop if drop else rule.max_increase)  # type: ignore[arg-type]
    return CensusRule(REGRESSED if drop else IMPROVED, limit, metric.kind == "count", gate.mode, gate.alpha)


def bound_text(rule: Rule) -> str:
    """ "must not drop by more than 5.0%", in the metric's unit."""
    kind = _KINDS[rule.metric].kind
    if rule.max_drop is not None:
        return f"must not drop by more than {format_value(rule.max_drop, kind)}"
    return f"must not rise by more than {format_value(rule.max_increase, kind)}"


#: What every printed p says it tests: McNemar's (or a plan's) against no change, the margin's against the limit.
AGAINST_ZERO, AGAINST_LIMIT = "against no change", "against the limit"


def figure_text(delta: float | None, stat: Mapping[str, Any] | None, kind: str) -> str:
    """ "-9.9 pts 95% CI [-19.4, +0.6], McNemar p=0.077 against no change": a delta with its interval at its level
    and its test's p. That p tests "nothing changed", not the rule's limit (the limit's test is the margin's,
    :func:`margin_text`), and says so, so a small p beside a rule that is not FAIL contradicts nothing."""
    if stat is None:
        return f"{format_value(delta, kind, signed=True)} (no interval)"
    level = float(stat.get("confidence") or 0.95)
    said = f"{format_value(delta, kind, signed=True)} {level * 100:.4g}% CI {format_interval(stat, kind)}"
    p = stat.get("p_value")
    if p is None:
        return said + ("" if stat.get("interval") is None else f" ({stat['interval']})")
    if stat.get("raw_p_value") is not None:
        return said + f", McNemar p={stat['raw_p_value']:.3f}, Holm p={p:.3f} {AGAINST_ZERO}"
    test = stat.get("test") or "McNemar"
    return said + (f", McNemar p={p:.3f}" if test == "McNemar" else f", {test} p={p:.3f}") + f" {AGAINST_ZERO}"


def _message(rule: Rule, kind: str, basis: str, delta: float | None, stat: Mapping[str, Any],
             judge_delta: float | None, judge_stat: Mapping[str, Any], fixed: Any, labels: Any, note: str | None,
             gate: GateConfig, outcome: str = PASS, margin: Mapping[str, Any] | None = None) -> str:  # fmt: skip
    """The rule's line: its status, the deciding figure first, then the other figures, then its limit."""
    status = {FAILED: "FAIL", INCONCLUSIVE: "INCONCLUSIVE"}.get(outcome, "ok")
    label = _KINDS[rule.metric].label
    if basis == JUDGE and fixed is None:
        said = f"delta {figure_text(delta, stat, kind)}" + ("" if note is None else f" ({note})")
    elif basis == LABELS and fixed.census:
        said = (
            f"corrected delta {figure_text(delta, {**stat, 'p_value': stat['p_value']}, kind)} (the labels' census); "
            f"judge-only {figure_text(judge_delta, judge_stat, kind)}"
        )
    elif basis == LABELS and labels is None:
        said = (
            f"corrected delta {figure_text(delta, stat, kind)} (the judge on every answer corrected by "
            f"{fixed.labelled} labelled question(s)); judge-only {figure_text(judge_delta, judge_stat, kind)}"
        )
    elif basis == LABELS:
        said = (
            f"decided by labels: every census the {labels.box.labelled} labelled question(s) allow lies in "
            f"{format_interval(stat, kind)}, McNemar p up to {stat['p_value']:.3f} {AGAINST_ZERO}; corrected "
            f"estimate {format_value(delta, kind, signed=True)} {format_interval(fixed.significance(), kind)} (t p="
            f"{(fixed.p_value if fixed.p_value is not None else float('nan')):.3f}); judge-only "
            f"{figure_text(judge_delta, judge_stat, kind)}"
        )
    else:
        est = (
            ""
            if fixed is None
            else f"; corrected estimate {format_value(fixed.delta, kind, signed=True)} "
            f"{format_interval(fixed.significance(), kind)}"
            + ("" if fixed.p_value is None else f" (t p={fixed.p_value:.3f})")
        )
        said = f"delta {figure_text(delta, stat, kind)} ({note}){est}"
    return f"{status:>4}  {label}: {said} ({bound_text(rule)}){margin_text(rule, kind, outcome, margin, gate.mode)}"


def margin_text(rule: Rule, kind: str, outcome: str, margin: Mapping[str, Any] | None, mode: str) -> str:
    """What decided the rule against its limit: "; past the limit: Tango 95% CI [+8.2, +33.3], p=0.016 against the
    limit", "; within the limit: …", or "; neither within the limit nor past it: … holds it (p=…)"."""
    if mode == "point":
        return ""
    if margin is None:
        return "; neither within the limit nor past it: no interval (no question of its population)"
    level = f"{float(margin['confidence']) * 100:.4g}%"
    how = "Tango" if margin.get("interval") == TANGO else "the same" if margin.get("interval") != TANGO_HULL else (
        "every census's Tango")  # fmt: skip
    said = f"{how} {level} CI {format_interval(margin, kind)}"
    p = margin.get("p_value")
    if p is not None and margin.get("raw_p_value") is not None:
        p_said = f"Holm p={p:.3f} {AGAINST_LIMIT} (Tango p={margin['raw_p_value']:.3f})"
    else:
        p_said = None if p is None else f"p={p:.3f} {AGAINST_LIMIT}"
    if outcome == FAILED:
        return f"; past the limit: {said}" + ("" if p_said is None else f", {p_said}")
    if outcome == PASS:
        return f"; within the limit: {said}" + ("" if p_said is None else f", {p_said}")
    zero = (rule.max_drop if rule.max_drop is not None else rule.max_increase) == 0
    why = " (a limit of 0 can never be shown by data)" if zero else ""
    return f"; neither within the limit nor past it: {said} holds it{why}" + (
        "" if p_said is None else f" ({p_said})")  # fmt: skip


def judged_line(summary: Summary, questions_in_file: int | None = None) -> str:
    """How many questions the verdict rests on; with ``questions_in_file``, says the run was partial."""
    counts = summary.questions_per_config()
    base, cand = counts[summary.baseline], counts[summary.candidate]
    judged = (
        f"judged {base} questions per config"
        if base == cand
        else f"judged {base} questions of {summary.baseline}, {cand} of {summary.candidate}"
    )
    if questions_in_file is None:
        return judged
    return f"{judged}, a PARTIAL run (--limit: {base} of {questions_in_file} gold questions), judged by --allow-partial"


def basis_line(verdicts: Sequence[RuleVerdict], labels_line: str | None = None) -> str:
    """What decided each rule, grouped in :func:`decided_by`'s words: "decided by: labels (PPI++ estimate) for
    accuracy_answerable; judge for refusal_accuracy (not corrected: see the rule); run (no judgement) for ..."."""
    groups: dict[str, list[str]] = {}
    for v in verdicts:
        word = decided_by(v)
        name = v.rule.metric + (" (labels could not decide: see the rule)" if word == BY_JUDGE and v.note else "")
        groups.setdefault(word, []).append(name)
    said = "decided by: " + "; ".join(f"{word} for {', '.join(names)}" for word, names in groups.items())
    return said + ("" if labels_line is None else f"\n{labels_line}")


def format_verdict(
    summary: Summary,
    gate: GateConfig,
    verdicts: list[RuleVerdict],
    questions_in_file: int | None = None,
    labels_line: str | None = None,
    trust: str | None = None,
    power: Sequence[str] = (),
    cannot_fail: Sequence[str] = (),
    tail: str | None = None,
) -> str:
    """The readable verdict: what was judged, which delta decided, one line per rule, then PASS, INCONCLUSIVE or FAIL.

    ``questions_in_file`` is given for a partial (``--limit``) run only, so the verdict says it;
    ``labels_line`` (:meth:`~evalgate_lib.statistics.label_correction.LabelCorrection.line`) when labels corrected it;
    ``trust`` is a line on what vouches for the folder (its signature, or checksums only), after the count.
    ``power`` are the lines of :func:`evalgate_lib.statistics.power.format_powers`, printed before
    the verdict, and ``cannot_fail`` the rules (metric keys) no change could fail at this size: a PASS
    then says that those rules could not have failed it. ``tail``: the last line as the decision words it
    (:meth:`~evalgate_lib.statistics.decision.GateDecision.tail`), else made here from the verdicts.
    """
    head = f"gate ({gate.mode} mode): {summary.candidate} vs {summary.baseline}"
    failed = [v.rule.metric for v in verdicts if v.failed]
    if tail is None:
        unsure = [v.rule.metric for v in verdicts if v.inconclusive]
        tail = (
            f"FAIL: candidate regresses on {', '.join(failed)}" if failed
            else f"INCONCLUSIVE: not shown within the limit of {', '.join(unsure)}" if unsure
            else "PASS: no regression beyond thresholds"
        )  # fmt: skip
        if cannot_fail and not failed and not unsure:
            tail += f" (but {', '.join(cannot_fail)} could not fail on this gold set: see power above)"
    lines = [head, judged_line(summary, questions_in_file), *([trust] if trust else [])]
    lines.append(basis_line(verdicts, labels_line))
    return "\n".join(lines + [v.message for v in verdicts] + list(power) + [tail])
