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
fails the gate. In ``significant`` mode a breach fails only when the paired
test says it is beyond noise: McNemar's exact p < ``alpha`` for yes/no
metrics, or a bootstrap interval entirely past the threshold for scores. The
verdict names each metric, its delta and its 95% interval either way.

With reviewers' labels (``corrected``, from :func:`evalgate_lib.statistics.label_correction.correct_with_labels`),
each rule on a metric a label measures decides on the delta corrected by the labels instead, with
its interval and p-value (McNemar's on a census of labels, the corrected delta's normal p under a
plan), and its line prints the judge-only delta beside it; the other rules (retrieval, ...) involve
no judgement and keep the run's delta. ``RuleVerdict.basis`` says which delta decided.

Several candidates against one baseline (:mod:`evalgate_lib.statistics.candidates`) are judged
by the same :func:`judge`, given each yes/no metric's p-value adjusted for the number of
candidates (Holm): a rule on the judge's delta then names both p-values and decides on the
adjusted one (a rule corrected by labels keeps its own test).
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
from evalgate_lib.statistics.metrics import METRICS, Summary, compare, format_interval, format_value
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED

EXIT_REGRESSION = 1
_KINDS = {m.key: m for m in METRICS}


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
    rule: Rule
    delta: float | None
    breached: bool
    significant: bool | None
    failed: bool
    message: str
    basis: str = JUDGE
    stat: Mapping[str, Any] | None = None
    #: The p-value the rule was decided on: McNemar's, or its Holm adjustment when ``adjusted`` (``None``: a score).
    p_value: float | None = None
    adjusted: bool = False


def _significant(rule: Rule, sig: Mapping[str, Any], alpha: float, limit: float) -> bool | None:
    if sig.get("p_value") is not None:
        return sig["p_value"] < alpha
    if sig.get("ci_low") is None:
        return None
    # a score: significant when the whole interval lies past the threshold
    return sig["ci_high"] < limit if rule.max_drop is not None else sig["ci_low"] > limit


def recompute_summary(rows: Sequence[ResultRow], recorded: Summary, source: str) -> Summary:
    """The summary ``rows`` give; a ``recorded`` one (``summary.json``) whose figures differ is refused.

    The gate, like every reader, decides from the rows, never from a summary it takes on trust: a
    folder whose rows were edited (and checksums recomputed) while its summary was not would
    otherwise PASS while ``evalgate diff`` lists the edited rows as broken. The first figure that
    differs is named. The bootstrap is redrawn with the recorded seed, so an intact folder matches
    figure for figure.
    """
    seed = recorded.bootstrap.get("seed")
    fresh = compare(rows, recorded.baseline, recorded.candidate, seed if _is_seed(seed) else DEFAULT_SEED)
    difference = _first_difference(recorded.to_json(), fresh.to_json(), "")
    if difference is not None:
        where, was, now = difference
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


def judge(
    summary: Summary,
    gate: GateConfig,
    corrected: Mapping[str, Any] | None = None,
    adjusted_p: Mapping[str, float | None] | None = None,
) -> list[RuleVerdict]:
    """One verdict per rule, from the summary of a run (recomputed from its rows: :func:`recompute_summary`);
    with ``corrected``, on the labels' delta where there is one.

    ``corrected`` maps a metric key to a
    :class:`~evalgate_lib.statistics.label_correction.CorrectedDelta` (``delta``, ``significance()``).
    ``adjusted_p`` (one candidate of several: each metric's Holm-adjusted McNemar p,
    :func:`evalgate_lib.statistics.candidates.holm_p_values`) replaces McNemar's p in the decision
    of a rule on the judge's delta; the message names both.
    """
    verdicts = []
    for rule in gate.rules:
        metric = _KINDS[rule.metric]
        fixed = (corrected or {}).get(rule.metric)
        delta = summary.delta.get(rule.metric) if fixed is None else fixed.delta
        sig = summary.significance.get(rule.metric, {}) if fixed is None else fixed.significance()
        raw_p = sig.get("p_value")
        adjusted = fixed is None and raw_p is not None and (adjusted_p or {}).get(rule.metric) is not None
        if adjusted:
            sig = {**sig, "p_value": (adjusted_p or {})[rule.metric]}
        if rule.max_drop is not None:
            limit, bound = (
                -float(rule.max_drop),
                f"must not drop by more than {format_value(rule.max_drop, metric.kind)}",
            )
            breached = delta is not None and delta < limit
        else:
            limit, bound = (
                float(rule.max_increase),
                f"must not rise by more than {format_value(rule.max_increase, metric.kind)}",
            )
            breached = delta is not None and delta > limit
        significant = _significant(rule, sig, gate.alpha, limit) if breached else None
        failed = breached and (gate.mode == "point" or bool(significant))
        p = sig.get("p_value")
        status = "FAIL" if failed else ("breach, not significant" if breached else "ok")
        judged = summary.significance.get(rule.metric, {})
        judge_delta = summary.delta.get(rule.metric)
        if fixed is None:
            said = (
                f"delta {format_value(delta, metric.kind, signed=True)} "
                f"95% CI {format_interval(sig, metric.kind) if sig else 'n/a'}"
                + ("" if raw_p is None else f", McNemar p={raw_p:.3f}")
                + (f", Holm p={p:.3f}" if adjusted else "")
            )
        else:
            said = (
                f"corrected delta {format_value(delta, metric.kind, signed=True)} "
                f"95% CI {format_interval(sig, metric.kind)}"
                + ("" if p is None else f", {sig.get('test', 'McNemar')} p={p:.3f}")
                + f"; judge-only {format_value(judge_delta, metric.kind, signed=True)} "
                f"{format_interval(judged, metric.kind) if judged else 'n/a'}"
            )
        message = f"{status:>4}  {metric.label}: {said} ({bound})"
        basis = JUDGE if fixed is None else LABELS
        verdicts.append(RuleVerdict(rule, delta, breached, significant, failed, message, basis, sig, p, adjusted))
    return verdicts


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
    """Which delta the verdict used: the judge's alone, or the labels' for the rules a label measures."""
    corrected = [v.rule.metric for v in verdicts if v.basis == LABELS]
    if not corrected:
        return "decided on the judge's delta (no reviewer labels given)"
    rest = [v.rule.metric for v in verdicts if v.basis != LABELS]
    said = f"decided on the delta corrected by labels for {', '.join(corrected)}"
    if rest:
        said += f"; on the run's delta for {', '.join(rest)} (no judgement to correct)"
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
) -> str:
    """The readable verdict: what was judged, which delta decided, one line per rule, then PASS or FAIL.

    ``questions_in_file`` is given for a partial (``--limit``) run only, so the verdict says it;
    ``labels_line`` (:meth:`~evalgate_lib.statistics.label_correction.LabelCorrection.line`) when labels corrected it;
    ``trust`` is a line on what vouches for the folder (its signature, or checksums only), after the count.
    ``power`` are the lines of :func:`evalgate_lib.statistics.power.format_powers`, printed before
    the verdict, and ``cannot_fail`` the rules (metric keys) no change could fail at this size: a PASS
    then says that those rules could not have failed it.
    """
    head = f"gate ({gate.mode} mode): {summary.candidate} vs {summary.baseline}"
    failed = [v.rule.metric for v in verdicts if v.failed]
    tail = f"FAIL: candidate regresses on {', '.join(failed)}" if failed else "PASS: no regression beyond thresholds"
    if cannot_fail and not failed:
        tail += f" (but {', '.join(cannot_fail)} could not fail on this gold set: see power above)"
    lines = [head, judged_line(summary, questions_in_file), *([trust] if trust else [])]
    if labels_line is not None or any(v.basis == LABELS for v in verdicts):
        lines.append(basis_line(verdicts, labels_line))
    return "\n".join(lines + [v.message for v in verdicts] + list(power) + [tail])
