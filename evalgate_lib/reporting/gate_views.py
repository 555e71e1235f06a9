"""The gate's decision in the two formats CI systems read natively: JUnit XML and a Markdown job summary.

Both render one :class:`~evalgate_lib.statistics.decision.GateDecision` (as ``evalgate gate``'s text,
``--json`` and the report's first screen do) and compute nothing: each rule's line is the line the
verdict prints.

* **JUnit XML** (``gate --junit FILE``): one test suite, one test case per gate rule. A rule that
  failed is a failing case whose message and text are its line; a rule no change could fail at this
  gold set's size is a *skipped* case saying so (its pass is no evidence); the others pass. The
  suite's properties carry the verdict, the mode, α, the questions judged and the signature line,
  and its ``system-out`` the whole verdict as ``evalgate gate`` prints it. Written with the
  standard library's ``xml.etree.ElementTree``, which escapes markup; a character XML 1.0 forbids
  (an ``ESC`` or a vertical tab in a config name) is written as its visible escape
  (:func:`~evalgate_lib.text.escaping.xml10_text`), so the document always parses.
* **Markdown** (``gate --markdown FILE``, for ``$GITHUB_STEP_SUMMARY`` and the like): the verdict,
  what it rests on, one table row per rule (which figure decided, its interval and p against no change, the
  limit, the status, and the interval and p against the limit that decided it), the power lines and the full
  text in a collapsed block. Every string from a run (config names, lines) goes through
  :func:`~evalgate_lib.text.escaping.markdown_text`: one line, HTML escaped, links, images, emphasis and table
  pipes neutralised, so a name cannot inject markup.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import Sequence

from evalgate_lib.statistics.decision import GateDecision
from evalgate_lib.statistics.gate import RuleVerdict, bound_text, decided_by
from evalgate_lib.statistics.metrics import METRICS, format_interval, format_value
from evalgate_lib.statistics.power import power_sentence
from evalgate_lib.text.escaping import markdown_text as _md
from evalgate_lib.text.escaping import terminal_text, xml10_text

_METRICS = {m.key: m for m in METRICS}


def _case_name(verdict: RuleVerdict) -> str:
    return f"{verdict.rule.metric}: {_METRICS[verdict.rule.metric].label} ({bound_text(verdict.rule)})"


def decision_junit(decisions: Sequence[GateDecision]) -> str:
    """The decisions as a JUnit XML document (module docstring): one test suite per candidate, one case per rule."""
    failures = sum(_counts(d)[0] for d in decisions)
    errors = sum(_counts(d)[1] for d in decisions)
    tests = sum(len(d.rules) for d in decisions)
    suites = ET.Element(
        "testsuites", name="evalgate gate", tests=str(tests), failures=str(failures), errors=str(errors)
    )
    for decision in decisions:
        _suite(suites, decision)
    for element in suites.iter():  # every name, message and text: XML 1.0 has characters it cannot hold
        element.attrib = {key: xml10_text(value) for key, value in element.attrib.items()}
        element.text = None if element.text is None else xml10_text(element.text)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _counts(decision: GateDecision) -> tuple[int, int, int]:
    """(failures, errors, skipped) of one decision's cases: an INCONCLUSIVE rule is a failure or an error as
    configured (``--junit-inconclusive``), skipped with ``--allow-inconclusive``."""
    unsure = len(decision.inconclusive)
    cannot = {p.rule for p in decision.powers if not p.can_fail}
    skipped = sum(1 for v in decision.rules if not v.failed and not v.inconclusive and v.rule in cannot)
    if decision.allow_inconclusive:
        return len(decision.failed), 0, skipped + unsure
    if decision.junit_inconclusive == "error":
        return len(decision.failed), unsure, skipped
    return len(decision.failed) + unsure, 0, skipped


def _suite(parent: ET.Element, decision: GateDecision) -> None:
    skipped = {p.rule for p in decision.powers if not p.can_fail}
    failures, errors, skips = _counts(decision)
    suite = ET.SubElement(
        parent,
        "testsuite",
        name=f"evalgate gate: {decision.summary.candidate} vs {decision.summary.baseline}",
        tests=str(len(decision.rules)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(skips),
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("verdict", decision.verdict),
        ("mode", decision.gate.mode),
        ("alpha", f"{decision.gate.alpha:g}"),
        ("thresholds", decision.thresholds),
        ("judged", decision.judged()),
        ("signature", decision.signature or ""),
        ("basis", decision.basis()),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    for verdict in decision.rules:
        case = ET.SubElement(suite, "testcase", classname="evalgate.gate", name=_case_name(verdict))
        line = verdict.message.strip()
        if verdict.failed:
            failure = ET.SubElement(case, "failure", message=line, type="regression")
            failure.text = line
        elif verdict.inconclusive:
            if decision.allow_inconclusive:
                ET.SubElement(case, "skipped", message=f"INCONCLUSIVE (allowed by --allow-inconclusive): {line}")
            else:
                tag = "error" if decision.junit_inconclusive == "error" else "failure"
                ET.SubElement(case, tag, message=line, type="inconclusive").text = line
        elif verdict.rule in skipped:
            power = decision.power_of(verdict)
            ET.SubElement(case, "skipped", message=power_sentence(power, decision.gate.alpha, decision.gate.mode))
        ET.SubElement(case, "system-out").text = f"{line}\ndecided by: {decided_by(verdict)}"
    ET.SubElement(suite, "system-out").text = decision.text()


def decision_markdown(decision: GateDecision) -> str:
    """The decision as a Markdown job summary (module docstring)."""
    word = {"PASS": "✅ PASS", "FAIL": "❌ FAIL"}.get(decision.verdict, "⚠️ INCONCLUSIVE")
    lines = [
        f"### EvalGate gate: {word} — {_md(decision.summary.candidate)} vs {_md(decision.summary.baseline)}",
        "",
        f"{_md(decision.tail())}",
        "",
        f"- {_md(decision.judged())}",
        f"- {decision.gate.mode} mode, α = {decision.gate.alpha:g}; thresholds {_md(decision.thresholds)}",
    ]
    if decision.signature:
        lines.append(f"- {_md(decision.signature)}")
    lines.append(f"- {_md(decision.basis().splitlines()[0])}")
    lines += [f"- {_md(line)}" for line in decision.basis().splitlines()[1:]]
    lines += [
        "",
        "| rule | limit | decided on | delta | interval | p against no change | status | interval against the limit "
        "| p against the limit |",
        "|---|---|---|---:|---|---:|---|---|---:|",
    ]
    for v in decision.rules:
        kind = _METRICS[v.rule.metric].kind
        stat = v.stat or {}
        level = float(stat.get("confidence") or 0.95)
        p = stat.get("p_value")
        status = {"FAIL": "**FAIL**", "INCONCLUSIVE": "**INCONCLUSIVE**"}.get(v.outcome, "ok")
        margin = v.margin or {}
        decided = "" if not margin else f"{format_interval(margin, kind)} ({float(margin['confidence']) * 100:.4g}%)"
        limit_p = margin.get("p_value")
        if v.outcome == "PASS" and not decision.power_of(v).can_fail:
            status += " (cannot fail at this size)"
        lines.append(
            f"| {_md(_METRICS[v.rule.metric].label)} | {_md(bound_text(v.rule))} | {_md(decided_by(v))} | "
            f"{_md(format_value(v.delta, kind, signed=True))} | "
            f"{_md(format_interval(stat, kind))} ({level * 100:.4g}%) | {'' if p is None else f'{p:.3f}'} | {status} | "
            f"{_md(decided)} | {'' if limit_p is None else f'{limit_p:.3f}'} |"
        )
    lines += ["", *[f"- {_md(line.strip())}" for line in decision.power_lines()]]
    lines += ["", "<details><summary>The verdict as <code>evalgate gate</code> prints it</summary>", ""]
    lines += [f"<pre>{html.escape(terminal_text(decision.text()), quote=False)}</pre>", "", "</details>", ""]
    return "\n".join(lines)
