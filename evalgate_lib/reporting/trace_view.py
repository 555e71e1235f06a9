"""The trace behind one answer's verdicts as HTML: what the explorer and the report's "why" show.

It renders :class:`~evalgate_lib.judging.trace.Explanation` (made by :func:`~evalgate_lib.judging.trace.explain`
from the row's recorded steps; nothing is judged again here): correctness and its rules tried in order, then
each sentence with its role, the rule that decided it, every rule tried with its outcome, reason and evidence,
and the span of the context it read. Every string is escaped.
"""

from __future__ import annotations

import html

from evalgate_lib.judging.rules import ABSTAINS
from evalgate_lib.judging.trace import Explanation, StepView

e = html.escape

#: Trace rules, included once by the page (the report's styles, the explorer's cell).
TRACE_CSS = """
.eg-trace { font-size: 12px; }
.eg-trace ol { margin: 0.2em 0 0.6em 1.2em; padding: 0; }
.eg-trace li.eg-step-abstains { color: #777; }
.eg-trace li.eg-step-decides { font-weight: 600; }
.eg-trace .eg-evidence { font-family: ui-monospace, monospace; font-weight: 400; color: #333; overflow-wrap: anywhere; }
.eg-trace .eg-role { display: inline-block; padding: 0 4px; border-radius: 3px; background: #e3f2fd; font-size: 11px; }
"""


def _evidence(step: StepView) -> str:
    if not step.evidence:
        return ""
    items = "; ".join(f"{e(str(k))}={e(str(v))}" for k, v in step.evidence.items())
    return f' <span class="eg-evidence">[{items}]</span>'


def _steps(steps: tuple[StepView, ...]) -> str:
    deciding = max((i for i, s in enumerate(steps) if s.outcome != ABSTAINS), default=-1)
    items = []
    for i, step in enumerate(steps):
        kind = "decides" if i == deciding else "abstains" if step.outcome == ABSTAINS else "tried"
        said = e(step.decides) if step.outcome == ABSTAINS else e(step.reason)
        items.append(f'<li class="eg-step-{kind}"><code>{e(step.rule)}</code> → {e(step.outcome)}: {said}'
                     f"{'' if step.outcome == ABSTAINS else _evidence(step)}</li>")  # fmt: skip
    return f"<ol>{''.join(items)}</ol>"


def explanation_html(explanation: Explanation, anchor: str = "") -> str:
    """The trace as HTML (module docstring); ``anchor`` is the element id the report's "why" links to."""
    ident = f' id="{e(anchor)}"' if anchor else ""
    parts = [f'<div class="eg-trace"{ident}>', f"<p><b>Correctness:</b> {e(explanation.correct)}</p>",
             _steps(explanation.correctness_steps)]  # fmt: skip
    for s in explanation.sentences:
        parts.append(
            f'<p><b>Sentence {s.index + 1}</b> <span class="eg-role">{e(s.role)}</span> {e(s.text)}<br>'
            f"verdict: <b>{e(s.verdict)}</b> (decided by <code>{e(s.rule)}</code>)</p>"
        )
        if s.span:
            where = f" (passage [{s.passage}])" if s.passage else ""
            shown = " / ".join(x.strip() for x in s.span.splitlines() if x.strip())
            parts.append(f'<p class="eg-evidence">span{e(where)}: {e(shown)}</p>')
        parts.append(_steps(s.steps))
    if explanation.passages:
        parts.append("<details><summary>The passages the prompt showed</summary><ol>")
        parts += [
            f'<li><b>{e(title)}</b><pre class="eg-passage">{e(text)}</pre></li>' for title, text in explanation.passages
        ]
        parts.append("</ol></details>")
    parts.append("</div>")
    return "\n".join(parts)
