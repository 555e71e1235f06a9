"""The report's first screen: the gate's verdict, the rules that decided it, and one sentence on what changed.

A stakeholder opening the report asks "can we ship the candidate?" before anything else, so
the answer comes first: PASS or FAIL as ``evalgate gate`` decides it with the same thresholds
file (:func:`evalgate_lib.statistics.gate.judge`), each rule with its delta, interval, p-value and
status, then how many questions the candidate fixed, broke or re-flagged
(:mod:`evalgate_lib.statistics.changes`) and which deltas are beyond noise, marked
*significant* (:mod:`evalgate_lib.statistics.beyond_noise`). Nothing here computes a number;
it lays out what those functions decided.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.reporting.candidates_view import leaderboard_html
from evalgate_lib.reporting.paths import shareable_path
from evalgate_lib.reporting.styles import BASE_CSS
from evalgate_lib.statistics.beyond_noise import (
    INTERVAL,
    MCNEMAR,
    SIGNIFICANCE_ALPHA,
    significant_metrics,
    with_adjusted_p,
)
from evalgate_lib.statistics.candidates import judge_candidates, rank_candidates
from evalgate_lib.statistics.changes import BROKEN, FIXED, FLAGS, count_changes, question_changes
from evalgate_lib.statistics.gate import LABELS, GateConfig, RuleVerdict, judge, load_gate
from evalgate_lib.statistics.label_correction import LabelCorrection
from evalgate_lib.statistics.metrics import METRICS, Summary, format_interval, format_value
from evalgate_lib.statistics.power import RulePower, cannot_fail, power_sentence, smallest_change_text, summary_powers

e = html.escape
_METRICS = {m.key: m for m in METRICS}

_FIRST_CSS = """
.eg-first { margin: 0.3em 0 0.8em; }
.eg-verdict { display: flex; gap: 1em; align-items: center; padding: 10px 14px; border-radius: 6px;
  border: 2px solid; margin-bottom: 0.5em; }
.eg-verdict-pass { background: #e8f5e9; border-color: #2e7d32; }
.eg-verdict-fail { background: #ffebee; border-color: #b71c1c; }
.eg-verdict-word { font-size: 30px; font-weight: 800; letter-spacing: 1px; }
.eg-verdict-pass .eg-verdict-word { color: #1b5e20; }
.eg-verdict-fail .eg-verdict-word { color: #b71c1c; }
.eg-rule-fail { color: #b71c1c; font-weight: 700; }
.eg-rule-breach { color: #e65100; font-weight: 600; }
.eg-rule-ok { color: #1b5e20; }
.eg-report table.eg-gate-rules { margin: 0.3em 0 0.5em; font-size: 13px; }
.eg-what-changed { font-size: 15px; line-height: 1.45; }
.eg-decided { font-size: 16px; font-weight: 600; margin-bottom: 2px; }
.eg-advice { font-size: 14px; }
.eg-plain { margin: 0.2em 0 0.4em; font-size: 14px; }
.eg-how summary { cursor: pointer; color: #1565c0; font-size: 13px; }
.eg-power { background: #fff8e1; border-left: 4px solid #f9a825; padding: 6px 10px; margin: 0.4em 0; font-size: 14px; }
.eg-power ul { margin: 0.2em 0 0 1.2em; padding: 0; }
"""


def _bound(verdict: RuleVerdict) -> str:
    kind = _METRICS[verdict.rule.metric].kind
    if verdict.rule.max_drop is not None:
        return f"must not drop by more than {format_value(verdict.rule.max_drop, kind)}"
    return f"must not rise by more than {format_value(verdict.rule.max_increase, kind)}"


def _status(verdict: RuleVerdict, stat: Mapping[str, Any], gate: GateConfig) -> str:
    if verdict.failed:
        return '<span class="eg-rule-fail">FAIL</span>'
    if verdict.breached:
        p = verdict.p_value if verdict.adjusted else stat.get("p_value")
        test = "Holm-adjusted" if verdict.adjusted else stat.get("test", "McNemar")
        why = f"{test} p = {p:.3f} ≥ {gate.alpha:g}" if p is not None else "its interval is not wholly past the limit"
        return f'<span class="eg-rule-breach">breached, not significant</span> <small>({e(why)})</small>'
    return '<span class="eg-rule-ok">ok</span>'


def _amount(value: float | int, kind: str) -> str:
    """A delta's size in plain units, without its sign: "7.4 points", "9 answers", "0.012"."""
    size = abs(value)
    if kind == "rate":
        return f"{size * 100:.1f} points"
    if kind == "count":
        return f"{size:g} answer" + ("" if size == 1 else "s")
    return f"{size:.3f}"


def _direction(value: float | int, kind: str) -> str:
    """ "7.4 points lower" / "9 answers more" / "unchanged", in the metric's own words."""
    if value == 0:
        return "unchanged"
    up = value > 0
    if kind == "count":
        return f"{_amount(value, kind)} {'more' if up else 'fewer'}"
    return f"{_amount(value, kind)} {'higher' if up else 'lower'}"


def plain_words(verdict: RuleVerdict, stat: Mapping[str, Any]) -> str:
    """One gate rule in words a product manager reads without a glossary.

    "Accuracy on answerable questions: 7.4 points lower (plausibly anywhere from 16.0 points lower
    to 1.2 points higher)". The interval is the 95% paired-bootstrap one; the test's name and p-value
    stay in the rule table one click away.
    """
    metric = _METRICS[verdict.rule.metric]
    if verdict.delta is None:
        return f"{metric.label}: not measured in this run"
    said = f"{metric.label}: {_direction(verdict.delta, metric.kind)}"
    low, high = stat.get("ci_low"), stat.get("ci_high")
    if low is not None and high is not None:
        said += f" (plausibly anywhere from {_direction(low, metric.kind)} to {_direction(high, metric.kind)})"
    return said


def _advice(failed: Sequence[RuleVerdict], breached: Sequence[RuleVerdict], stuck: int = 0) -> str:
    if stuck and not failed:
        return (
            f"{stuck} of the gate's rules cannot fail on a gold set this small (below), so this PASS says nothing "
            "about them: read the broken questions below, and grow the gold set before trusting the gate."
        )
    if failed:
        return (
            "Do not ship the candidate as it is: it is worse beyond what chance explains. "
            "Read the broken questions below to see where."
        )
    if breached:
        return (
            "Nothing is worse beyond what chance explains on this gold set, but some numbers moved the wrong way: "
            "read the broken questions below before shipping, or confirm on a larger gold set."
        )
    return "Nothing moved past its limit: as far as these checks go, the candidate can ship."


def _rule_row(verdict: RuleVerdict, stat: Mapping[str, Any], gate: GateConfig, power: RulePower | None) -> str:
    kind = _METRICS[verdict.rule.metric].kind
    p = stat.get("p_value")
    smallest = "" if power is None else e(smallest_change_text(power))
    return (
        f'<tr data-rule="{e(verdict.rule.metric)}" data-failed="{int(verdict.failed)}" '
        f'data-can-fail="{"" if power is None else int(power.can_fail)}">'
        f"<td>{e(_METRICS[verdict.rule.metric].label)}</td><td>{e(_bound(verdict))}</td>"
        f'<td class="num">{e(format_value(verdict.delta, kind, signed=True))}</td>'
        f'<td class="num">{e(format_interval(stat, kind) if stat else "n/a")}</td>'
        f'<td class="num">{"" if p is None else f"{p:.3f}"}{" (t test)" if stat.get("test") == "t" else ""}'
        f"{_holm(verdict)}</td>"
        f"<td>{_status(verdict, stat, gate)}</td><td>{smallest}</td></tr>"
    )


def power_html(powers: Sequence[RulePower], gate: GateConfig) -> str:
    """The first screen's power box: every rule that cannot fail at this gold set's size, and what would let it.

    Empty when every rule can fail. The sentences are
    :func:`~evalgate_lib.statistics.power.power_sentence`, the ones ``evalgate gate`` prints.
    """
    stuck = cannot_fail(powers)
    if not stuck:
        return ""
    items = "".join(
        f'<li data-rule="{e(p.rule.metric)}">{e(power_sentence(p, gate.alpha, gate.mode))}.</li>' for p in stuck
    )
    many = "rules cannot" if len(stuck) > 1 else "rule cannot"
    return (
        f'<div class="eg-power" id="eg-power"><b>{len(stuck)} of {len(powers)} gate {many} fail at this gold '
        f"set's size</b> ({e(gate.mode)} mode, α = {gate.alpha:g}; the smallest detectable change by the gate's own "
        f"test):<ul>{items}</ul></div>"
    )


def _holm(verdict: RuleVerdict) -> str:
    """The rule's Holm-adjusted p beside McNemar's, when the candidate is one of several."""
    return "" if not verdict.adjusted or verdict.p_value is None else f" <small>(Holm {verdict.p_value:.3f})</small>"


def significant_mark(evidence: Sequence[str], stat: Mapping[str, Any], alpha: float, p_label: str = "McNemar p") -> str:
    """The visible *significant* mark, its tooltip naming the test(s) that say so (``p_label``: whose p it is)."""
    if not evidence:
        return ""
    said = []
    if INTERVAL in evidence:
        said.append("the 95% interval of the delta excludes 0")
    if MCNEMAR in evidence:
        said.append(f"{p_label} = {stat['p_value']:.3f} < {alpha:g}")
    return f'<span class="eg-sig" title="{e("; ".join(said))}">significant</span>'


def _significant_sentence(
    summary: Summary,
    significant: Mapping[str, Sequence[str]],
    alpha: float,
    adjusted_p: Mapping[str, float | None] | None = None,
) -> str:
    said = "McNemar p" if adjusted_p is None else "Holm-adjusted p"
    if not significant:
        return (
            f"No delta is beyond noise: no yes/no metric's {said} is below {alpha:g} and every score's 95% "
            "interval contains 0."
        )
    sig = summary.significance
    parts = []
    for key, evidence in significant.items():
        metric, stat = _METRICS[key], with_adjusted_p(sig.get(key) or {}, adjusted_p, key)
        parts.append(
            f"<b>{e(metric.label)} {e(format_value(summary.delta.get(key), metric.kind, signed=True))}</b> "
            f"{e(format_interval(stat, metric.kind))} {significant_mark(evidence, stat, alpha, said)}"
        )
    many = "changes are" if len(parts) > 1 else "change is"
    return f"{len(parts)} {many} beyond noise: " + "; ".join(parts) + ". Every other delta is within noise."


def first_screen_html(
    summary: Summary,
    gate: GateConfig,
    verdicts: Sequence[RuleVerdict],
    counts: Mapping[str, int],
    significant: Mapping[str, Sequence[str]],
    thresholds: str,
    changes_anchor: str = "eg-changes",
    alpha: float = SIGNIFICANCE_ALPHA,
    labels_html: str = "",
    adjusted_p: Mapping[str, float | None] | None = None,
    family: int = 1,
    powers: Sequence[RulePower] = (),
) -> str:
    """The verdict box, the gate's rules and the sentence on what changed (all escaped, no script).

    For one candidate of ``family`` several, ``verdicts`` were judged on ``adjusted_p`` (each yes/no
    metric's Holm-adjusted McNemar p) and ``significant`` computed from it; the text says so.

    ``verdicts`` is :func:`~evalgate_lib.statistics.gate.judge` of ``summary`` under ``gate``
    (loaded from ``thresholds``); ``counts`` is
    :func:`~evalgate_lib.statistics.changes.count_changes`; ``significant`` is
    :func:`~evalgate_lib.statistics.beyond_noise.significant_metrics` at ``alpha`` (the level of the
    *significant* marks, which is not necessarily the gate's own ``alpha``); ``powers`` is
    :func:`~evalgate_lib.statistics.power.summary_powers` (one per rule, in gate order), which names
    the rules that cannot fail at this size.
    """
    base, cand = summary.baseline, summary.candidate
    sig = summary.significance
    failed = [v for v in verdicts if v.failed]
    breached = [v for v in verdicts if v.breached and not v.failed]
    word, cls = ("FAIL", "fail") if failed else ("PASS", "pass")
    if failed:
        decided = f"{e(cand)} regresses on " + ", ".join(e(_METRICS[v.rule.metric].label) for v in failed) + "."
    elif breached:
        names = ", ".join(e(_METRICS[v.rule.metric].label) for v in breached)
        decided = (
            f"No rule failed. {len(breached)} of {len(verdicts)} numbers moved past their limit ({names}), "
            "but by no more than chance alone explains."
        )
    else:
        decided = "No rule failed: every delta is within its threshold."
    mode = (
        f"a breach fails only when it is beyond noise: McNemar p &lt; {gate.alpha:g} for yes/no metrics, "
        "the 95% interval wholly past the limit for scores"
        if gate.mode == "significant"
        else "any breach of a threshold fails"
    )
    if adjusted_p is not None:
        mode += f"; McNemar p Holm-adjusted for the {family} candidates tried against {e(base)}"
    by_rule = dict(zip((p.rule for p in powers), powers, strict=True))
    rules = "".join(_rule_row(v, _stat_of(v, sig), gate, by_rule.get(v.rule)) for v in verdicts)
    p = (sig.get("accuracy_overall") or {}).get("p_value")
    behind = (
        ""
        if p is None
        else f" The fixed and broken questions are the discordant pairs behind accuracy's McNemar p = {p:.3f}."
    )
    questions = sum(counts.values())
    changed = (
        f"<b>What changed</b>, {e(cand)} against {e(base)} on {questions} questions: "
        f"<b>{counts[FIXED]} fixed</b> (wrong before, right now) and <b>{counts[BROKEN]} broken</b> "
        "(right before, wrong now), "
        f"<b>{counts[FLAGS]}</b> changed a flag with the same verdict "
        f'(<a href="#{e(changes_anchor)}">see them side by side</a>). '
        + _significant_sentence(summary, significant, alpha, adjusted_p)
    )
    checked = "".join(
        f'<li data-rule="{e(v.rule.metric)}" data-basis="{e(v.basis)}">{e(plain_words(v, _stat_of(v, sig)))}'
        + (" <small>(corrected by reviewers' labels)</small>" if v.basis == LABELS else "")
        + "</li>"
        for v in verdicts
    )
    return (
        f'<div class="eg-report eg-first" id="eg-first-screen"><style>{BASE_CSS}{_FIRST_CSS}</style>'
        f'<div class="eg-verdict eg-verdict-{cls}" id="eg-verdict" data-verdict="{word}">'
        f'<span class="eg-verdict-word">{word}</span>'
        f'<div><div class="eg-decided">{decided}</div>'
        f'<div class="eg-advice">{e(_advice(failed, breached, len(cannot_fail(powers))))}</div></div></div>'
        f'<ul class="eg-plain">{checked}</ul>{power_html(powers, gate)}'
        "<details class='eg-how'><summary>How this was decided: the thresholds, the test and its p-values</summary>"
        f"<p><small>Gate thresholds <code>{e(thresholds)}</code>, {e(gate.mode)} mode: {mode}.{behind}</small></p>"
        '<table class="eg-gate-rules"><thead><tr><th>rule</th><th>threshold</th><th>delta</th>'
        "<th>95% CI</th><th>McNemar p</th><th>status</th><th>smallest change that can fail it</th></tr></thead>"
        f"<tbody>{rules}</tbody></table></details>"
        f"{labels_html}"
        f'<p class="eg-what-changed">{changed}</p></div>'
    )


def _stat_of(verdict: RuleVerdict, sig: Mapping[str, Any]) -> Mapping[str, Any]:
    """The interval and p-value the rule decided on: the labels' when they corrected it, else the run's."""
    if verdict.basis == LABELS and verdict.stat is not None:
        return verdict.stat
    return sig.get(verdict.rule.metric) or {}


def corrected_html(summary: Summary, correction: LabelCorrection | None, refused: str | None) -> str:
    """The corrected deltas beside the judge's (a table), or the one line saying why labels did not correct them."""
    if correction is None:
        if refused is None:
            return ""
        return (
            '<p class="eg-labels-refused" id="eg-corrected"><b>Reviewer labels not used to correct the deltas:</b> '
            f"{e(refused)}</p>"
        )
    rows = []
    for m in correction.metrics.values():
        judged = summary.significance.get(m.metric) or {}
        rows.append(
            f'<tr data-metric="{e(m.metric)}"><td>{e(m.label)}</td>'
            f'<td class="num">{e(format_value(m.judge_delta, m.kind, signed=True))} '
            f"{e(format_interval(judged, m.kind) if judged else '')}</td>"
            f'<td class="num"><b>{e(format_value(m.delta, m.kind, signed=True))}</b> '
            f"{e(format_interval(m.significance(), m.kind))}</td>"
            f'<td class="num">{m.labelled} of {m.questions}</td></tr>'
        )
    notes = "".join(f"<li>{e(n)}</li>" for n in correction.notes)
    return (
        f'<div class="eg-corrected" id="eg-corrected" data-basis="{e(correction.basis)}">'
        f"<p><small>{e(correction.line())}</small></p>"
        '<table class="eg-gate-rules"><thead><tr><th>delta</th><th>judge only [95% CI]</th>'
        "<th>corrected by labels [95% CI]</th><th>questions labelled</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>" + (f"<ul>{notes}</ul>" if notes else "") + "</div>"
    )


def first_screen(
    summary: Summary,
    rows: Sequence[ResultRow],
    thresholds: str | Path,
    correction: LabelCorrection | None = None,
    refused: str | None = None,
    family: Sequence[Summary] = (),
) -> str:
    """The first screen of a run: judge ``summary`` under the thresholds file, count the changes, lay them out.

    ``thresholds`` is a gate file such as ``configs/gate.toml`` (what ``evalgate gate`` reads);
    the verdict is the one ``evalgate gate --thresholds <file> --results <run>`` prints, with
    ``--labels`` when ``correction`` is given (the deltas corrected by labels, shown beside the
    judge's); ``refused`` is the line saying why given labels could not correct them. ``family``
    holds every candidate's summary when ``summary`` is one of several candidates against one
    baseline: the screen then opens on every candidate's verdict, and this one's rules on the
    judge's delta are decided on Holm-adjusted p-values, as ``evalgate gate`` decides them.
    """
    gate = load_gate(thresholds)
    counts = count_changes(question_changes(rows, summary.baseline, summary.candidate))
    corrected = None if correction is None else correction.metrics
    labels_html = corrected_html(summary, correction, refused)
    if not family:
        return first_screen_html(
            summary,
            gate,
            judge(summary, gate, corrected),
            counts,
            significant_metrics(summary),
            shareable_path(thresholds),
            labels_html=labels_html,
            powers=summary_powers(gate, summary),
        )
    judged = judge_candidates(family, gate)
    this = next(c for c in judged if c.name == summary.candidate)
    return leaderboard_html(rank_candidates(judged), gate, this.name) + first_screen_html(
        summary,
        gate,
        judge(summary, gate, corrected, this.adjusted_p),
        counts,
        significant_metrics(summary, adjusted_p=this.adjusted_p),
        shareable_path(thresholds),
        labels_html=labels_html,
        adjusted_p=this.adjusted_p,
        family=len(judged),
        powers=summary_powers(gate, summary, comparisons=len(judged)),
    )
