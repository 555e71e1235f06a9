"""The first lines of a report on several candidates: each one's verdict, best first, and which one it shows.

Rendering only: the verdicts are :func:`~evalgate_lib.statistics.candidates.judge_candidates`'s (each
yes/no rule decided on its Holm-adjusted p) and the order is
:func:`~evalgate_lib.statistics.candidates.rank_candidates`'s. Every name is escaped.
"""

from __future__ import annotations

import html
from typing import Sequence

from evalgate_lib.statistics.candidates import CandidateVerdict
from evalgate_lib.statistics.gate import GateConfig
from evalgate_lib.statistics.metrics import METRICS, format_value

e = html.escape
_METRICS = {m.key: m for m in METRICS}

_CSS = """
.eg-candidates { margin: 0.3em 0 0.8em; }
.eg-report table.eg-candidates-table { font-size: 13px; margin: 0.3em 0; }
.eg-candidates-table tr.eg-shown { background: #e3f2fd; }
.eg-cand-pass { color: #1b5e20; font-weight: 700; }
.eg-cand-fail { color: #b71c1c; font-weight: 700; }
.eg-cand-inconclusive { color: #e65100; font-weight: 700; }
"""


def _rule_cell(candidate: CandidateVerdict, index: int) -> str:
    verdict = candidate.verdicts[index]
    kind = _METRICS[verdict.rule.metric].kind
    raw = (candidate.summary.significance.get(verdict.rule.metric) or {}).get("p_value")
    limit = (verdict.margin or {}).get("p_value")  # what decided: the (Holm-adjusted) p against the rule's limit
    p = (
        ""
        if raw is None
        else f"<br><small>p {raw:.3f}"
        + (f", Holm {verdict.p_value:.3f}" if verdict.adjusted and verdict.p_value is not None else "")
        + ("" if limit is None else f"; against the limit {limit:.3f}")
        + "</small>"
    )
    mark = " ✗" if verdict.failed else (" ≈" if verdict.breached else "")
    return f'<td class="num">{e(format_value(verdict.delta, kind, signed=True))}{mark}{p}</td>'


def leaderboard_html(ranked: Sequence[CandidateVerdict], gate: GateConfig, shown: str) -> str:
    """Every candidate's PASS / FAIL (best first), each gate rule's delta with McNemar's and Holm's p against no
    change and the (Holm-adjusted) p against the rule's limit that decided it.

    ``shown`` is the candidate whose full report follows (the first of ``ranked`` that passes,
    unless the report was built for another one); its row is marked.
    """
    n = len(ranked)
    baseline = ranked[0].summary.baseline
    passing = [c for c in ranked if c.outcome == "PASS"]
    first_rule = _METRICS[gate.rules[0].metric].label
    head = "".join(f"<th>{e(_METRICS[r.metric].label)}</th>" for r in gate.rules)
    rows = []
    for place, candidate in enumerate(ranked, start=1):
        word = candidate.outcome
        failed = ", ".join(_METRICS[v.rule.metric].label for v in candidate.verdicts if v.failed)
        cells = "".join(_rule_cell(candidate, i) for i in range(len(candidate.verdicts)))
        cls = ' class="eg-shown"' if candidate.name == shown else ""
        rows.append(
            f'<tr{cls} data-candidate="{e(candidate.name)}" data-verdict="{word}"><td class="num">{place}</td>'
            f"<td>{e(candidate.name)}{' <small>(shown below)</small>' if candidate.name == shown else ''}</td>"
            f'<td><span class="eg-cand-{word.lower()}">{word}</span>'
            f"{f' <small>({e(failed)})</small>' if failed else ''}</td>{cells}</tr>"
        )
    if shown != ranked[0].name:
        why = "the candidate this report was built for (its pair folder was named)"
    elif passing:
        why = f"the best candidate that passes (passing first, then the best delta on {e(first_rule)}, the first rule)"
    else:
        why = f"the best of them on {e(first_rule)}, the first rule: none passes"
    return (
        f'<div class="eg-report eg-candidates" id="eg-candidates"><style>{_CSS}</style>'
        f"<p><b>{n} candidates against {e(baseline)}</b>: {len(passing)} pass, "
        f"{sum(c.inconclusive for c in ranked)} inconclusive, {sum(c.failed for c in ranked)} fail. "
        f"This report shows <b>{e(shown)}</b>, {why}. Each candidate is its own pair with {e(baseline)} (the "
        f"baseline answered once for all); each yes/no rule is decided on its McNemar p Holm-adjusted for the {n} "
        "candidates, so trying more candidates does not make a false regression more likely.</p>"
        '<table class="eg-candidates-table"><thead><tr><th>#</th><th>candidate</th><th>gate</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        "<p><small>Deltas against the baseline; ✗ failed the rule, ≈ past its limit within noise. Another "
        "candidate's full report: <code>evalgate report --results</code> with its pair folder.</small></p></div>"
    )
