"""The report's "what changed" view: per question, the baseline's and the candidate's answer side by side.

The headline deltas say how much moved; a reviewer needs to see *which* questions moved and
how: the few the candidate fixed, the ones it broke (together: the discordant pairs McNemar's
test counts) and the ones whose flags changed with the same verdict. Before this view the only
way to find them was to search the answer table one id at a time.

The kinds come from :func:`evalgate_lib.statistics.changes.classify`; this module only lays
them out. Each ``<tr class="eg-change">`` carries ``data-change`` (``fixed``, ``broken`` or
``flags``) and ``data-question-id``; a select keeps the kinds asked for, offline, in plain
JavaScript. Each side links to that answer's row in the answer table, whose details it opens.
"""

from __future__ import annotations

import html
import json
from typing import Sequence

from evalgate_lib.reporting.diff_text import unsupported_line
from evalgate_lib.reporting.explorer import FLAG_LABELS
from evalgate_lib.reporting.pager import PAGER_JS, pager_html
from evalgate_lib.reporting.results_table import badges_html, row_anchor, verdict_html
from evalgate_lib.reporting.styles import BASE_CSS, PHONE_PAGE_ROWS, SCROLL_CSS
from evalgate_lib.statistics.changes import BROKEN, FIXED, FLAGS, QuestionChange, count_changes, select_changes

e = html.escape

#: Filter value → (label, kinds it keeps), in the order the select lists them; the first is the default.
CHANGE_FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "verdict": ("verdict changed: fixed + broken", (FIXED, BROKEN)),
    FIXED: ("fixed (wrong → correct)", (FIXED,)),
    BROKEN: ("broken (correct → wrong)", (BROKEN,)),
    FLAGS: ("flag changed, same verdict", (FLAGS,)),
    "any": ("any change", (FIXED, BROKEN, FLAGS)),
}

_KIND_LABEL = {FIXED: "fixed", BROKEN: "broken", FLAGS: "flag changed"}

_CHANGES_CSS = """
.eg-changes-table { font-size: 13px; }
.eg-changes-table .eg-answer { white-space: pre-wrap; margin-top: 4px; }
.eg-change-kind { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 11px; font-weight: 700;
  color: #fff; }
.eg-change-fixed { background: #2e7d32; }
.eg-change-broken { background: #b71c1c; }
.eg-change-flags { background: #546e7a; }
.eg-flag-delta { font-size: 12px; color: #444; }
"""

_CHANGES_JS = """
(function () {
  var root = document.getElementById(%(root)s);
  if (!root) { return; }
  var pick = root.querySelector('select.eg-change-filter');
  var count = root.querySelector('.eg-change-count');
  var keep = %(keep)s;
  var pager = window.egPager(root, %(page)d, function (row, shown) { row.style.display = shown ? '' : 'none'; });
  function apply() {
    var rows = root.querySelectorAll('tr.eg-change');
    var wanted = keep[pick.value] || [];
    var kept = [];
    for (var i = 0; i < rows.length; i++) {
      if (wanted.indexOf(rows[i].getAttribute('data-change')) >= 0) { kept.push(rows[i]); }
      else { rows[i].style.display = 'none'; }
    }
    count.textContent = String(kept.length);
    pager.set(kept);
  }
  root.addEventListener('click', function (event) {
    var link = event.target.closest ? event.target.closest('a.eg-goto') : null;
    if (!link || !root.contains(link)) { return; }
    var target = document.getElementById(link.getAttribute('href').slice(1));
    if (!target) { return; }
    event.preventDefault();
    target.dispatchEvent(new CustomEvent('eg-open', {bubbles: true}));
  });
  pick.addEventListener('change', apply);
  apply();
})();
"""


def _flag_delta(change: QuestionChange) -> str:
    parts = []
    if change.flags_gained:
        parts.append("candidate gains " + ", ".join(FLAG_LABELS[f] for f in change.flags_gained))
    if change.flags_lost:
        parts.append("loses " + ", ".join(FLAG_LABELS[f] for f in change.flags_lost))
    return f'<div class="eg-flag-delta">{e("; ".join(parts))}</div>' if parts else ""


def _side(change: QuestionChange, which: str) -> str:
    row = change.baseline if which == "baseline" else change.candidate
    anchor = row_anchor(row.config, row.question_id)
    return (
        f'<td data-side="{which}">{verdict_html(row.correct)} {badges_html(row)} '
        f'<a class="eg-goto" href="#{anchor}">details</a>'
        f'<div class="eg-answer">{e(row.answer)}</div></td>'
    )


def changes_html(changes: Sequence[QuestionChange], root_id: str = "eg-changes") -> str:
    """Every question whose verdict or flags changed, both answers side by side, filterable by kind of change.

    ``changes`` is :func:`~evalgate_lib.statistics.changes.question_changes` of the run (questions
    without a change are counted in the heading, not listed).
    """
    counts = count_changes(changes)
    changed = select_changes(changes)
    keep = {value: list(kinds) for value, (_, kinds) in CHANGE_FILTERS.items()}
    options = "".join(
        f'<option value="{e(value)}">{e(label)} ({sum(counts[k] for k in kinds)})</option>'
        for value, (label, kinds) in CHANGE_FILTERS.items()
    )
    base = changes[0].baseline.config if changes else "baseline"
    cand = changes[0].candidate.config if changes else "candidate"
    body = "".join(
        f'<tr class="eg-change" data-change="{e(c.kind)}" data-question-id="{e(c.question_id)}">'
        f'<td><b>{e(c.question_id)}</b> <span class="eg-change-kind eg-change-{e(c.kind)}">{e(_KIND_LABEL[c.kind])}'
        f"</span><div>{e(c.baseline.question)}</div>"
        f'<div class="eg-accept"><small>accepted: '
        f"{', '.join(e(a) for a in c.baseline.accept) or '(no answer: must refuse)'}</small></div>"
        f"{_flag_delta(c)}</td>{_side(c, 'baseline')}{_side(c, 'candidate')}</tr>"
        for c in changed
    )
    root = e(root_id)
    return (
        f'<div class="eg-report eg-changes" id="{root}"><style>{BASE_CSS}{SCROLL_CSS}{_CHANGES_CSS}</style>'
        f"<p>Of <b>{len(changes)}</b> questions both configs answered: <b>{counts[FIXED]}</b> fixed, "
        f"<b>{counts[BROKEN]}</b> broken, <b>{counts[FLAGS]}</b> changed a flag with the same verdict, "
        f"{counts['same']} unchanged (same verdict, same flags).</p>"
        f"<p>{e(unsupported_line(changes))}.</p>"
        '<div class="eg-controls">'
        f'<span><label for="{root}-kind">Show</label> '
        f'<select id="{root}-kind" class="eg-change-filter" name="change">{options}</select></span>'
        f'<span><b class="eg-change-count">{len(changed)}</b> of {len(changed)} changed questions shown</span>'
        f"</div>{pager_html('changed questions')}"
        '<div class="eg-scroll"><table class="eg-changes-table eg-fit">'
        '<colgroup><col style="width:24%"><col style="width:38%"><col style="width:38%"></colgroup>'
        f"<thead><tr><th>question</th><th>{e(base)}: verdict, flags, answer</th>"
        f"<th>{e(cand)}: verdict, flags, answer</th></tr></thead><tbody>{body}</tbody></table></div>"
        f"{pager_html('changed questions')}<script>{PAGER_JS}"
        f"{_CHANGES_JS % {'root': json.dumps(root_id), 'keep': json.dumps(keep), 'page': PHONE_PAGE_ROWS}}"
        "</script></div>"
    )
