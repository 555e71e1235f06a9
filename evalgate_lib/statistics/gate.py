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
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.statistics.metrics import METRICS, Summary, format_interval, format_value

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


def load_gate(path: str | Path) -> GateConfig:
    """Parse and validate a thresholds file, naming the rule that is wrong."""
    file = Path(path)
    if file.is_dir():
        raise InputError(f"gate thresholds file {file} is a directory, not a TOML file")
    if not file.is_file():
        raise InputError(f"gate thresholds file {file} does not exist")
    try:
        raw = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{file}: not valid TOML ({exc})") from None
    mode = raw.get("mode", "point")
    if mode not in ("point", "significant"):
        raise InputError(f"{file}: mode must be 'point' or 'significant', got {mode!r}")
    rules = []
    for i, item in enumerate(raw.get("rule", []), start=1):
        metric = item.get("metric")
        if metric not in _KINDS:
            raise InputError(f"{file}: rule {i} names unknown metric {metric!r}; known: {', '.join(_KINDS)}")
        drop, rise = item.get("max_drop"), item.get("max_increase")
        if (drop is None) == (rise is None):
            raise InputError(f"{file}: rule {i} ({metric}) needs exactly one of max_drop or max_increase")
        rules.append(Rule(metric, drop, rise))
    if not rules:
        raise InputError(f"{file}: no [[rule]] tables; a gate with no rules would pass anything")
    return GateConfig(tuple(rules), mode, float(raw.get("alpha", 0.05)))


@dataclass(frozen=True)
class RuleVerdict:
    rule: Rule
    delta: float | None
    breached: bool
    significant: bool | None
    failed: bool
    message: str


def _significant(rule: Rule, sig: Mapping[str, Any], alpha: float, limit: float) -> bool | None:
    if sig.get("p_value") is not None:
        return sig["p_value"] < alpha
    if sig.get("ci_low") is None:
        return None
    # a score: significant when the whole interval lies past the threshold
    return sig["ci_high"] < limit if rule.max_drop is not None else sig["ci_low"] > limit


def judge(summary: Summary, gate: GateConfig) -> list[RuleVerdict]:
    """One verdict per rule, from the summary of a run."""
    verdicts = []
    for rule in gate.rules:
        metric = _KINDS[rule.metric]
        delta = summary.delta.get(rule.metric)
        sig = summary.significance.get(rule.metric, {})
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
        message = (
            f"{status:>4}  {metric.label}: delta {format_value(delta, metric.kind, signed=True)} "
            f"95% CI {format_interval(sig, metric.kind) if sig else 'n/a'}"
            + ("" if p is None else f", McNemar p={p:.3f}")
            + f" ({bound})"
        )
        verdicts.append(RuleVerdict(rule, delta, breached, significant, failed, message))
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


def format_verdict(
    summary: Summary,
    gate: GateConfig,
    verdicts: list[RuleVerdict],
    questions_in_file: int | None = None,
    power: Sequence[str] = (),
    cannot_fail: Sequence[str] = (),
) -> str:
    """The readable verdict: what was judged, one line per rule, then PASS or FAIL naming the regressed metrics.

    ``questions_in_file`` is given for a partial (``--limit``) run only, so the verdict says it.
    ``power`` are the lines of :func:`evalgate_lib.statistics.power.format_powers`, printed before
    the verdict, and ``cannot_fail`` the rules (metric keys) no change could fail at this size: a PASS
    then says that those rules could not have failed it.
    """
    head = f"gate ({gate.mode} mode): {summary.candidate} vs {summary.baseline}"
    failed = [v.rule.metric for v in verdicts if v.failed]
    tail = f"FAIL: candidate regresses on {', '.join(failed)}" if failed else "PASS: no regression beyond thresholds"
    if cannot_fail and not failed:
        tail += f" (but {', '.join(cannot_fail)} could not fail on this gold set: see power above)"
    lines = [head, judged_line(summary, questions_in_file)] + [v.message for v in verdicts]
    return "\n".join(lines + list(power) + [tail])
