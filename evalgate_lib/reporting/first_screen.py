"""The report's first screen: the gate's verdict, the rules that decided it, and what changed, with one set of numbers.

A stakeholder opening the report asks "can we ship the candidate?" before anything else, so the
answer comes first: PASS or FAIL exactly as ``evalgate gate`` decides it. The page renders one
:class:`~evalgate_lib.statistics.decision.GateDecision` (the object the command line, ``gate --json``,
``--junit`` and ``--markdown`` render too) and computes no verdict of its own. Its rules:

* every figure names its source: **judge** (EvalGate's rules on every answer) or **labels**
  (reviewers' labels: a census, or a plan's exact bounds), in words and in a ``data-source`` attribute;
* the figures that decided lead, everywhere: in each rule's line, in the rule table, and in "What
  changed" (the labels' fixed and broken questions first when a census of labels decided);
* the interval beside a decided delta is its test's against no change (at the gate's α): it excludes 0
  exactly when that p is below α, and the page prints that p beside it; what decided the rule, the interval
  and p against its limit (issue 53: FAIL wholly past it, PASS wholly within), follows in the same line;
* a count carries its base ("45 → 61 of 101 answers"), and a metric at 0 in both configs says so
  ("both 0 of 20 no-answer questions").

Everything from a run (names, lines) is escaped; nothing here runs script.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.reporting.candidates_view import leaderboard_html
from evalgate_lib.reporting.paths import shareable_path
from evalgate_lib.reporting.styles import BASE_CSS
from evalgate_lib.statistics.beyond_noise import INTERVAL, MCNEMAR
from evalgate_lib.statistics.candidates import judge_candidates, rank_candidates
from evalgate_lib.statistics.changes import BROKEN, FIXED, FLAGS, count_changes, question_changes
from evalgate_lib.statistics.decision import GateDecision, decide
from evalgate_lib.statistics.gate import (
    BY_BOUND,
    BY_CENSUS,
    BY_ESTIMATE,
    BY_JUDGE,
    BY_RUN,
    GateConfig,
    RuleVerdict,
    bound_text,
    decided_by,
    load_gate,
)
from evalgate_lib.statistics.label_correction import LabelCorrection
from evalgate_lib.statistics.metrics import METRICS, Summary, format_interval, format_value, signed
from evalgate_lib.statistics.paired_tests import TANGO
from evalgate_lib.statistics.power import POPULATION_WORDS, RulePower, cannot_fail, power_sentence, smallest_change_text

e = html.escape
_METRICS = {m.key: m for m in METRICS}

_FIRST_CSS = """
.eg-first { margin: 0.3em 0 0.8em; }
.eg-verdict { display: flex; flex-wrap: wrap; gap: 0.3em 1em; align-items: center; padding: 10px 14px;
  border-radius: 6px; border: 2px solid; margin-bottom: 0.5em; }
.eg-verdict > div { flex: 1 1 14em; min-width: 0; overflow-wrap: anywhere; }
.eg-verdict-pass { background: #e8f5e9; border-color: #2e7d32; }
.eg-verdict-breach { background: #fff8e1; border-color: #f9a825; }
.eg-verdict-fail { background: #ffebee; border-color: #b71c1c; }
.eg-verdict-word { font-size: 30px; font-weight: 800; letter-spacing: 1px; }
@media (max-width: 480px) { .eg-verdict-word { font-size: 24px; letter-spacing: 0; } }
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
.eg-plain .eg-other { color: #555; font-size: 13px; }
.eg-src { display: inline-block; font-size: 11px; padding: 0 5px; border-radius: 8px; margin-left: 3px;
  border: 1px solid #90a4ae; color: #37474f; background: #eceff1; white-space: nowrap; }
.eg-src-labels { border-color: #6a1b9a; color: #4a148c; background: #f3e5f5; }
.eg-how summary { cursor: pointer; color: #1565c0; font-size: 13px; }
.eg-power { background: #fff8e1; border-left: 4px solid #f9a825; padding: 6px 10px; margin: 0.4em 0; font-size: 14px; }
.eg-power ul { margin: 0.2em 0 0 1.2em; padding: 0; }
"""

#: The source of a figure, as the page names it (the ``data-source`` attribute and the badge).
#: The same words as the text, Markdown and JUnit (:func:`~evalgate_lib.statistics.gate.decided_by`).
JUDGE_SOURCE, CENSUS_SOURCE, BOUNDS_SOURCE, ESTIMATE_SOURCE, RUN_SOURCE = (
    BY_JUDGE, BY_CENSUS, BY_BOUND, BY_ESTIMATE, BY_RUN
)  # fmt: skip
_SOURCE_WORDS = {
    JUDGE_SOURCE: "the judge's: EvalGate's rules on every answer",
    CENSUS_SOURCE: "corrected by labels: every answer labelled by reviewers",
    BOUNDS_SOURCE: "corrected by labels: what every census the plan's labels allow says (a stratum with one label)",
    ESTIMATE_SOURCE: "corrected by labels: the judge on every answer corrected by a plan's labels, with its bootstrap",
    RUN_SOURCE: "measured by the run (retrieval): no judgement, nothing for labels to correct",
}
_UNLABELLED = (JUDGE_SOURCE, RUN_SOURCE)


def _badge(source: str) -> str:
    cls = "eg-src-labels" if source not in _UNLABELLED else "eg-src-judge"
    return f'<span class="eg-src {cls}" title="{e(_SOURCE_WORDS[source])}">{e(source)}</span>'


def _source_of(verdict: RuleVerdict) -> str:
    """Where the deciding figure of a rule comes from (:func:`~evalgate_lib.statistics.gate.decided_by`)."""
    return decided_by(verdict)


def _amount(value: float | int, kind: str) -> str:
    """A delta's size in plain units, without its sign: "7.4 points", "9 answers", "0.012"."""
    size = abs(value)
    if kind == "rate":
        return f"{signed(size * 100, 1)[1:]} points"
    if kind == "count":
        return f"{signed(size, 1 if size != int(size) else 0)[1:]} answer" + ("" if size == 1 else "s")
    return f"{size:.3f}"


def _direction(value: float | int, kind: str) -> str:
    """ "7.4 points lower" / "9 answers more" / "unchanged", in the metric's own words."""
    if value == 0:
        return "unchanged"
    up = value > 0
    if kind == "count":
        return f"{_amount(value, kind)} {'more' if up else 'fewer'}"
    return f"{_amount(value, kind)} {'higher' if up else 'lower'}"


def _base(key: str, baseline: Any, candidate: Any, n: int | None) -> str:
    """ "45 → 61 of 101 answers", "18 → 10 of 81 answerable questions", "both 0 of 20 no-answer questions".

    ``baseline``/``candidate`` in the metric's unit: a count for a count, a share for a rate.
    """
    metric = _METRICS[key]
    if not metric.binary or n is None or baseline is None or candidate is None:
        if baseline is None or candidate is None:
            return ""
        return f"{format_value(baseline, metric.kind)} → {format_value(candidate, metric.kind)}"
    words = "answers" if metric.kind == "count" else POPULATION_WORDS[metric.population]
    before = baseline if metric.kind == "count" else baseline * n
    after = candidate if metric.kind == "count" else candidate * n
    slack = n * 1e-6 + 1e-9  # a share is held to 6 places: times n, up to n millionths off a whole count
    exact = abs(before - round(before)) < slack and abs(after - round(after)) < slack
    if not exact:  # an estimate: shares, not counts
        return f"≈ {format_value(baseline, 'rate' if metric.kind == 'rate' else 'count')} → " + format_value(
            candidate, "rate" if metric.kind == "rate" else "count"
        )
    before, after = round(before), round(after)
    if before == after == 0:
        return f"both 0 of {n} {words}"
    return f"{before} → {after} of {n} {words}"


def _judge_base(decision: GateDecision, key: str) -> str:
    """The judge's base of a rule's metric: both configs' values from the summary, over the questions compared."""
    summary = decision.summary
    n = (summary.significance.get(key) or {}).get("n")
    return _base(key, summary.baseline_metrics.get(key), summary.candidate_metrics.get(key), n)


def _test_words(stat: Mapping[str, Any], alpha: float) -> str:
    p = stat.get("p_value")
    if p is None:
        return ""
    test = stat.get("test") or "McNemar"
    name = "McNemar p" if test == "McNemar" else f"{test} p"
    if stat.get("raw_p_value") is not None:
        name = f"Holm-adjusted McNemar p (raw {stat['raw_p_value']:.3f})"
    return f"; {e(name)} against no change = {p:.3f} {'&lt;' if p < alpha else '≥'} {alpha:g}"


def _limit_words(verdict: RuleVerdict, alpha: float) -> str:
    """What decided the rule against its limit, in words: "against its limit: [+8.2, +33.3] at 95% (Tango), wholly
    past it; p = 0.016 < 0.05" (issue 53: FAIL and PASS both read this interval)."""
    margin = verdict.margin
    if margin is None or verdict.outcome not in ("FAIL", "PASS", "INCONCLUSIVE"):
        return ""
    kind = _METRICS[verdict.rule.metric].kind
    how = {"FAIL": "wholly past it", "PASS": "wholly within it"}.get(verdict.outcome, "holding it")
    name = "Tango" if margin.get("interval") == TANGO else "the same interval"
    level = f"{float(margin['confidence']) * 100:.4g}%"
    said = f"against its limit: {format_interval(margin, kind)} at {level} ({name}), {how}"
    p = margin.get("p_value")
    if p is not None:
        holm = "Holm-adjusted " if margin.get("raw_p_value") is not None else ""
        said += f"; {holm}p = {p:.3f} {'<' if p < alpha else '≥'} {alpha:g}"
    return e(said)


def _figure_words(key: str, delta: Any, stat: Mapping[str, Any], base: str, alpha: float) -> str:
    """ "45 → 61 of 101 answers, 16 answers more (plausibly from 2.4 to 27.2 more at 95%; McNemar p = 0.020 < 0.05)"."""
    kind = _METRICS[key].kind
    if delta is None:
        return "not measured in this run"
    said = (base + ", " if base else "") + _direction(delta, kind)
    low, high = stat.get("ci_low"), stat.get("ci_high")
    if low == high == 0 and delta == 0:
        p = stat.get("p_value")
        return e(said) + " (no question moved" + ("" if p is None else f"; McNemar p = {p:.3f}") + ")"
    if low is not None and high is not None:
        level = float(stat.get("confidence") or 1 - alpha)
        said = e(said) + (
            f" (plausibly anywhere from {e(_direction(low, kind))} to {e(_direction(high, kind))}, "
            f"{e(format_interval(stat, kind))} at {level * 100:.4g}%{_test_words(stat, alpha)})"
        )
    else:
        said = e(said)
    return said


def plain_words(verdict: RuleVerdict, decision: GateDecision) -> str:
    """One gate rule in words a product manager reads: the deciding figure first, with its base, interval, p and source.

    "hallucination flags: 45 → 61 of 101 answers, 16 answers more (plausibly anywhere from 2.4 answers more
    to 27.2 answers more, [+2.4, +27.2] at 95%; McNemar p = 0.020 < 0.05) [judge]", then the judge's
    figure when the labels decided, or the labels' when they could not (why, in words).
    """
    key = verdict.rule.metric
    metric = _METRICS[key]
    alpha = decision.gate.alpha
    source = _source_of(verdict)
    stat = verdict.stat or {}
    if source in _UNLABELLED:
        base = _judge_base(decision, key)
    elif source == CENSUS_SOURCE:
        c = verdict.corrected
        base = _base(key, c.baseline, c.candidate, c.questions)
    elif source == ESTIMATE_SOURCE:
        base = f"{verdict.corrected.labelled} of {verdict.corrected.questions} questions labelled"
    else:  # the labelled count of the plan (its box also counts a never-drawn stratum ``same`` as known)
        box = verdict.labels.box
        labelled = verdict.corrected.labelled if verdict.corrected is not None else box.labelled
        base = f"{labelled} of {box.n} questions labelled"
    limit = _limit_words(verdict, alpha) if decision.gate.mode == "significant" else ""
    figure = _figure_words(key, verdict.delta, stat, base, alpha) + (f"; {limit}" if limit else "")
    said = f"<b>{e(metric.label)}</b>: {figure} {_badge(source)}"
    other = ""
    if source not in _UNLABELLED:
        jbase = _judge_base(decision, key)
        other = (
            f"judge alone: {_figure_words(key, verdict.judge_delta, verdict.judge_stat or {}, jbase, alpha)} "
            f"{_badge(JUDGE_SOURCE)}"
        )
    elif verdict.corrected is not None and verdict.note is not None:
        c = verdict.corrected
        other = (
            f"labels: {e(verdict.note)}; their estimate {e(format_value(c.delta, metric.kind, signed=True))} "
            f"{e(format_interval(c.significance(), metric.kind))} {_badge(ESTIMATE_SOURCE)}"
        )
    return said + (f'<br><span class="eg-other">{other}</span>' if other else "")


def _status(verdict: RuleVerdict, alpha: float) -> str:
    p = (verdict.margin or {}).get("p_value")  # against the limit: what decided
    if verdict.failed:  # point mode fails any breach: the note only where the interval cleared the limit
        past = p is not None and verdict.significant
        said = f" <small>({e(f'wholly past its limit; p against the limit = {p:.3f}')})</small>" if past else ""
        return f'<span class="eg-rule-fail">FAIL</span>{said}'
    if verdict.inconclusive:
        why = "neither shown within its limit nor past it"
        if p is not None:
            why += f"; p against the limit = {p:.3f}" + (f" ≥ {alpha:g}" if p >= alpha else "")
        return f'<span class="eg-rule-breach">INCONCLUSIVE</span> <small>({e(why)})</small>'
    if verdict.breached:  # point mode never gets here (a breach fails); kept for a margin-less rule
        why = f"p against the limit = {p:.3f} ≥ {alpha:g}" if p is not None else "its interval is not past the limit"
        return f'<span class="eg-rule-breach">breached, not significant</span> <small>({e(why)})</small>'
    return '<span class="eg-rule-ok">ok</span>'


def _advice(
    failed: Sequence[RuleVerdict], breached: Sequence[RuleVerdict], stuck: int = 0, word: str = "PASS"
) -> str:
    if stuck and not failed:
        return (
            f"{stuck} of the gate's rules cannot fail on a gold set this small (below), so this {word} verdict says "
            "nothing about them: read the broken questions below, and grow the gold set before trusting the gate."
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


def _p_cell(stat: Mapping[str, Any]) -> str:
    p = stat.get("p_value")
    if p is None:
        return ""
    test = stat.get("test") or "McNemar"
    raw = stat.get("raw_p_value")
    holm = "" if raw is None else f" <small>(raw {raw:.3f})</small>"
    return f"{p:.3f}{holm} <small>({e(test)})</small>"


def _rule_row(verdict: RuleVerdict, decision: GateDecision) -> str:
    key = verdict.rule.metric
    kind = _METRICS[key].kind
    stat = verdict.stat or {}
    power = decision.power_of(verdict)
    source = _source_of(verdict)
    level = float(stat.get("confidence") or 1 - decision.gate.alpha)
    low, high = stat.get("ci_low"), stat.get("ci_high")
    excludes = "" if low is None else str(int(low > 0 or high < 0))
    judge = verdict.judge_stat or {}
    other = ""
    if source not in _UNLABELLED:
        jp = judge.get("p_value")
        other = (
            f"<br><small>judge alone: {e(format_value(verdict.judge_delta, kind, signed=True))} "
            f"{e(format_interval(judge, kind))}{'' if jp is None else f', p {jp:.3f}'}</small>"
        )
    return (
        f'<tr data-rule="{e(key)}" data-failed="{int(verdict.failed)}" data-outcome="{e(verdict.outcome)}" '
        f'data-can-fail="{int(power.can_fail)}" '
        f'data-source="{e(source)}" data-p="{"" if stat.get("p_value") is None else stat["p_value"]}" '
        f'data-alpha="{decision.gate.alpha:g}" data-excludes-zero="{excludes}">'
        f"<td>{e(_METRICS[key].label)}</td><td>{e(bound_text(verdict.rule))}</td><td>{_badge(source)}</td>"
        f'<td class="num">{e(format_value(verdict.delta, kind, signed=True))}{other}</td>'
        f'<td class="num">{e(format_interval(stat, kind) if stat else "n/a")} <small>({level * 100:.4g}%)</small></td>'
        f'<td class="num">{_p_cell(stat)}</td>'
        f"<td>{_status(verdict, decision.gate.alpha)}</td><td>{e(smallest_change_text(power))}</td></tr>"
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


def _significant_sentence(decision: GateDecision) -> str:
    """The deltas beyond noise by the judge's figures (named so), each with its interval and p."""
    adjusted = decision.family > 1
    said = "McNemar p" if not adjusted else "Holm-adjusted p"
    if not decision.significant:
        return (
            f"By the judge's figures {_badge(JUDGE_SOURCE)} no delta is beyond noise: no yes/no metric's {said} is "
            "below 0.05 and every score's 95% interval contains 0."
        )
    parts = []
    for key, evidence in decision.significant.items():
        metric, stat = _METRICS[key], decision.summary.significance.get(key) or {}
        p = stat.get("p_value")
        parts.append(
            f"<b>{e(metric.label)} {e(format_value(decision.summary.delta.get(key), metric.kind, signed=True))}</b> "
            f"{e(format_interval(stat, metric.kind))}"
            + ("" if p is None else f" (McNemar p = {p:.3f})")
            + f" {significant_mark(evidence, stat, 0.05, said)}"
        )
    many = "changes are" if len(parts) > 1 else "change is"
    return (
        f"By the judge's figures {_badge(JUDGE_SOURCE)} {len(parts)} {many} beyond noise: "
        + "; ".join(parts)
        + ". Every other delta is within noise."
    )


def _what_changed(decision: GateDecision, counts: Mapping[str, int], anchor: str) -> str:
    """What changed, question by question: the labels' fixed and broken first when a census of labels decided."""
    base, cand = decision.summary.baseline, decision.summary.candidate
    questions = sum(counts.values())
    judged = decision.summary.significance.get("accuracy_overall") or {}
    census = None if decision.correction is None else decision.correction.metrics.get("accuracy_overall")
    lead = ""
    if census is not None and census.census:
        lead = (
            f"By the reviewers' labels {_badge(CENSUS_SOURCE)}, {e(cand)} against {e(base)} on {census.questions} "
            f"questions: <b>{census.c} fixed</b> and <b>{census.b} broken</b> (McNemar p = {census.p_value:.3f}). "
        )
    p = judged.get("p_value")
    return (
        f'<p class="eg-what-changed" id="eg-what-changed">{lead}<b>What changed</b> by the judge '
        f"{_badge(JUDGE_SOURCE)}, {e(cand)} against {e(base)} on {questions} questions: "
        f"<b>{counts[FIXED]} fixed</b> (wrong before, right now) and <b>{counts[BROKEN]} broken</b> "
        "(right before, wrong now)"
        + ("" if p is None else f", the discordant pairs behind accuracy's McNemar p = {p:.3f}")
        + f"; <b>{counts[FLAGS]}</b> changed a flag with the same verdict "
        f'(<a href="#{e(anchor)}">see them side by side</a>). ' + _significant_sentence(decision) + "</p>"
    )


def corrected_html(decision: GateDecision) -> str:
    """Every delta the labels correct beside the judge's (a table), or the one line saying why labels did not."""
    correction = decision.correction
    if correction is None:
        if decision.labels_refused is None:
            return ""
        return (
            '<p class="eg-labels-refused" id="eg-corrected"><b>Reviewer labels not used to correct the deltas:</b> '
            f"{e(decision.labels_refused)}</p>"
        )
    rows = []
    summary = decision.summary
    for m in correction.metrics.values():
        judged = summary.significance.get(m.metric) or {}
        source = CENSUS_SOURCE if m.census else ESTIMATE_SOURCE
        p = "" if m.p_value is None else f", {e(m.significance()['test'])} p {m.p_value:.3f}"
        rows.append(
            f'<tr data-metric="{e(m.metric)}" data-source="{e(source)}"><td>{e(m.label)}</td>'
            f'<td class="num"><b>{e(format_value(m.delta, m.kind, signed=True))}</b> '
            f"{e(format_interval(m.significance(), m.kind))}{p} {_badge(source)}</td>"
            f'<td class="num">{e(format_value(m.judge_delta, m.kind, signed=True))} '
            f"{e(format_interval(judged, m.kind) if judged else '')} {_badge(JUDGE_SOURCE)}</td>"
            f'<td class="num">{m.labelled} of {m.questions}</td></tr>'
        )
    notes = "".join(f"<li>{e(n)}</li>" for n in correction.notes)
    return (
        f'<div class="eg-corrected" id="eg-corrected" data-basis="{e(correction.basis)}">'
        f"<p><small>{e(correction.line())}</small></p>"
        '<table class="eg-gate-rules"><thead><tr><th>delta</th><th>corrected by labels [95% CI]</th>'
        "<th>the judge's [95% CI]</th><th>questions labelled</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>" + (f"<ul>{notes}</ul>" if notes else "") + "</div>"
    )


def first_screen_html(
    decision: GateDecision, counts: Mapping[str, int], leaderboard: str = "", changes_anchor: str = "eg-changes"
) -> str:
    """The verdict box, each rule in words, the power box, the rule table, the labels' deltas, what changed.

    ``decision`` is the gate's (:func:`~evalgate_lib.statistics.decision.decide`); ``counts`` the
    fixed / broken / flag-changed questions (:func:`change_counts`); ``leaderboard`` the family's
    verdicts when this candidate is one of several (:func:`family_html`). All escaped, no script.
    """
    summary, gate = decision.summary, decision.gate
    failed = decision.failed
    breached = [v for v in decision.rules if v.breached and not v.failed]
    word, cls = {"FAIL": ("FAIL", "fail"), "INCONCLUSIVE": ("INCONCLUSIVE", "breach")}.get(
        decision.verdict, ("PASS", "pass")
    )
    if failed:
        decided = (
            f"{e(summary.candidate)} regresses on " + ", ".join(e(_METRICS[v.rule.metric].label) for v in failed) + "."
        )
    elif decision.inconclusive:
        names = ", ".join(e(_METRICS[v.rule.metric].label) for v in decision.inconclusive)
        decided = (
            f"No rule failed, but the data cannot show the candidate within the limit of {names}: "
            "see each rule for what would decide it."
        )
    elif breached:
        names = ", ".join(e(_METRICS[v.rule.metric].label) for v in breached)
        decided = (
            f"No rule failed. {len(breached)} of {len(decision.rules)} numbers moved past their limit ({names}), "
            "but by no more than chance alone explains."
        )
    else:
        decided = "No rule failed: every delta is within its threshold."
    mode = (
        f"a rule fails only when its {(1 - gate.alpha) * 100:.4g}% interval lies wholly past its limit and passes only "
        "when it lies wholly within it, else it is inconclusive (Tango's score interval for yes/no metrics, its p "
        f"against the limit &lt; {gate.alpha:g} exactly when it clears the limit; the percentile-bootstrap interval "
        "for scores); McNemar's exact p is shown against no change"
        if gate.mode == "significant"
        else "any breach of a threshold fails"
    )
    if decision.family > 1:
        mode += (
            f"; p-values Holm-adjusted for the {decision.family} candidates tried against {e(summary.baseline)} "
            "(each interval at the level that adjustment leaves)"
        )
    partial = (
        ""
        if decision.partial is None
        else f"<p><b>A partial run:</b> {decision.partial.questions_run} of {decision.partial.questions_in_file} "
        "gold questions (<code>--limit</code>).</p>"
    )
    rules = "".join(_rule_row(v, decision) for v in decision.rules)
    checked = "".join(
        f'<li data-rule="{e(v.rule.metric)}" data-basis="{e(v.basis)}" data-source="{e(_source_of(v))}">'
        f"{plain_words(v, decision)}</li>"
        for v in decision.rules
    )
    sources = (
        '<p class="eg-sources"><small>Each figure names its source: '
        f"{_badge(JUDGE_SOURCE)} EvalGate's rules on every answer; {_badge(RUN_SOURCE)} measured by the run, "
        f"nothing judged; {_badge(CENSUS_SOURCE)} every answer labelled by reviewers; {_badge(ESTIMATE_SOURCE)} "
        "the judge on every answer corrected by a plan's labels (its bootstrap and floored t interval); "
        f"{_badge(BOUNDS_SOURCE)} what every census a plan's labels allow says (a stratum with one label). The "
        "interval beside a decided delta comes from the test that decides it: it excludes 0 exactly when that p is "
        "below α.</small></p>"
    )
    return (
        f'<div class="eg-report eg-first" id="eg-first-screen"><style>{BASE_CSS}{_FIRST_CSS}</style>{leaderboard}'
        f'<div class="eg-verdict eg-verdict-{cls}" id="eg-verdict" data-verdict="{word}">'
        f'<span class="eg-verdict-word">{word}</span>'
        f'<div><div class="eg-decided">{decided}</div>'
        f'<div class="eg-advice">{e(_advice(failed, breached, len(decision.cannot_fail), word))}</div></div></div>'
        f"{partial}{sources}"
        f'<ul class="eg-plain">{checked}</ul>{power_html(decision.powers, gate)}'
        "<details class='eg-how'><summary>How this was decided: the thresholds, the tests and their p-values</summary>"
        f"<p><small>Gate thresholds <code>{e(decision.thresholds)}</code>, {e(gate.mode)} mode: {mode}. "
        f"{e(decision.judged())}. {e(decision.signature or '')}</small></p>"
        '<table class="eg-gate-rules"><thead><tr><th>rule</th><th>threshold</th><th>decided on</th><th>delta</th>'
        "<th>interval</th><th>p (test)</th><th>status</th><th>smallest change that can fail it</th></tr></thead>"
        f"<tbody>{rules}</tbody></table></details>"
        f"{corrected_html(decision)}"
        f"{_what_changed(decision, counts, changes_anchor)}</div>"
    )


def change_counts(rows: Sequence[ResultRow], summary: Summary) -> dict[str, int]:
    """The fixed / broken / flag-changed question counts the first screen states (the judge's)."""
    return count_changes(question_changes(rows, summary.baseline, summary.candidate))


def family_html(summaries: Sequence[Summary], gate: GateConfig, shown: str) -> str:
    """Every candidate's verdict, best first, when the shown candidate is one of several."""
    return leaderboard_html(rank_candidates(judge_candidates(summaries, gate)), gate, shown)


def first_screen(
    summary: Summary,
    rows: Sequence[ResultRow],
    thresholds: str | Path,
    correction: LabelCorrection | None = None,
    refused: str | None = None,
    family: Sequence[Summary] = (),
) -> str:
    """The first screen of a run from its parts: the decision (:func:`~evalgate_lib.statistics.decision.decide`)
    under the thresholds file, rendered. ``Results.first_screen_html`` is the public door (it also states the
    folder's signature and a partial run); this is it for a summary and rows alone."""
    gate = load_gate(thresholds)
    adjusted, limits, size = None, None, 1
    if family:
        judged = judge_candidates(family, gate)
        mine = next(c for c in judged if c.name == summary.candidate)
        adjusted, limits, size = mine.adjusted_p, mine.adjusted_limit_p, len(judged)
    decision = decide(summary, gate, shareable_path(thresholds), correction, refused, adjusted, size,
                      adjusted_limit_p=limits)
    board = family_html(family, gate, summary.candidate) if family else ""
    return first_screen_html(decision, change_counts(rows, summary), board)
