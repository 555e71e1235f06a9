"""The report's table of every answer: filterable offline, readable at 1280 px, details below the row.

What it fixes and why it is built this way:

* **It fits the screen.** The table has a fixed layout at 100% of the page width and sits in a
  box at most one screen tall that scrolls on its own, header row kept in view; long words
  wrap. No column can push the table wider than the page, so there is no horizontal
  scrollbar thousands of pixels below. On a phone (below
  :data:`~evalgate_lib.reporting.styles.NARROW_BREAKPOINT_PX`) each answer is a card instead, each
  cell a full-width line led by its column's heading (:mod:`evalgate_lib.reporting.page_layout`).
* **Details open as a full-width row under the answer**, not in a narrow last column: the
  retrieved chunks' text with the supporting spans marked, each sentence's verdict and
  reason, the flags' reasons and any reviewer's verdicts
  (:func:`~evalgate_lib.reporting.answer_details.details_html`).
* **Search matches what the reader sees.** Each row carries its visible text, lower-cased, in
  ``data-search``; the search box looks only there, never in the (hidden) details, so a word
  that appears only in a collapsed chunk does not keep a row on screen.

Each ``<tr class="eg-row">`` carries ``data-config``, ``data-question-id``, ``data-search``,
``data-detail`` (the id of its details row) and ``data-wrong`` / ``data-hallucination`` /
``data-grounded-but-wrong`` / ``data-review`` set to ``"1"`` or ``"0"``. The page needs no
kernel and loads nothing from the network. Every string from the model, the gold file or the
corpus is HTML-escaped.
"""

from __future__ import annotations

import html
import json
import re
from typing import Mapping, Sequence

from evalgate_lib.inputs.corpus import OUTPUT_MARKER
from evalgate_lib.inputs.labels import Label, match_labels
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow
from evalgate_lib.reporting.answer_details import DETAILS_CSS, details_html
from evalgate_lib.reporting.explorer import FLAG_LABELS
from evalgate_lib.reporting.page_layout import finish_page
from evalgate_lib.reporting.pager import PAGER_JS, pager_html
from evalgate_lib.reporting.styles import BASE_CSS, PHONE_PAGE_ROWS, SCROLL_CSS

e = html.escape

#: Flag key → label in the filter control (the order the control lists them).
FILTER_LABELS = FLAG_LABELS

_TABLE_CSS = """
.eg-results-table { font-size: 13px; }
.eg-results-table .eg-accept { margin-top: 4px; color: #444; font-size: 12px; }
.eg-results-table tr.eg-detail > td { background: #fff; border-top: 2px solid #90caf9; }
.eg-results-table button.eg-toggle { font-size: 12px; cursor: pointer; }
.eg-results-table small { color: #555; }
"""

#: Column headings and widths (percent of the table): they add up to 100, so the table never overflows.
_COLUMNS = (
    ("answer of", 8),
    ("question · accepted answers", 22),
    ("answer (model output)", 36),
    ("verdict<br>retrieval", 8),
    ("grounded&shy;ness<br>confidence", 9),
    ("flags", 11),
    ("", 6),
)

_FILTER_JS = """
(function () {
  var root = document.getElementById(%(root)s);
  if (!root) { return; }
  var flag = root.querySelector('select.eg-flag-filter');
  var config = root.querySelector('select.eg-config-filter');
  var search = root.querySelector('input.eg-search');
  var count = root.querySelector('.eg-visible-count');
  function detailOf(row) { return document.getElementById(row.getAttribute('data-detail')); }
  function isOpen(row) { return row.getAttribute('data-open') === '1'; }
  function show(row, visible) {
    row.style.display = visible ? '' : 'none';
    var detail = detailOf(row);
    if (detail) { detail.style.display = visible && isOpen(row) ? '' : 'none'; }
  }
  var pager = window.egPager(root, %(page)d, show);
  function passes(row) {
    var needle = (search.value || '').toLowerCase().trim();
    return (flag.value === 'all' || row.getAttribute('data-' + flag.value) === '1') &&
           (config.value === 'all' || row.getAttribute('data-config') === config.value) &&
           (!needle || (row.getAttribute('data-search') || '').indexOf(needle) >= 0);
  }
  function apply() {
    var rows = root.querySelectorAll('tr.eg-row');
    var kept = [];
    for (var i = 0; i < rows.length; i++) {
      if (passes(rows[i])) { kept.push(rows[i]); } else { show(rows[i], false); }
    }
    count.textContent = String(kept.length);
    pager.set(kept);
  }
  function setOpen(row, open) {
    row.setAttribute('data-open', open ? '1' : '0');
    var button = row.querySelector('button.eg-toggle');
    button.setAttribute('aria-expanded', open ? 'true' : 'false');
    button.textContent = open ? 'hide' : 'details';
    show(row, row.style.display !== 'none');
  }
  root.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button.eg-toggle') : null;
    if (!button || !root.contains(button)) { return; }
    var row = button.closest('tr.eg-row');
    setOpen(row, !isOpen(row));
  });
  // another view (what changed) asks to show one answer: make sure it is not filtered out, turn to its page, open it
  root.addEventListener('eg-open', function (event) {
    var row = event.target;
    if (row.style.display === 'none') {
      if (!passes(row)) { flag.value = 'all'; config.value = 'all'; search.value = ''; apply(); }
      pager.reveal(row);
    }
    setOpen(row, true);
    row.scrollIntoView({block: 'start'});
  });
  flag.addEventListener('change', apply);
  config.addEventListener('change', apply);
  search.addEventListener('input', apply);
  apply();
})();
"""


def row_anchor(config: str, question_id: str) -> str:
    """The HTML id of an answer's row (letters, digits, ``-`` and ``_`` only), so other views can link to it."""
    return "eg-row-" + re.sub(r"[^A-Za-z0-9_-]", "_", f"{config}-{question_id}")


def _attr(flag: str) -> str:
    """``grounded_but_wrong`` → ``grounded-but-wrong``: the row attribute is ``data-grounded-but-wrong``."""
    return flag.replace("_", "-")


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def flag_title(row: ResultRow, key: str) -> str:
    """A badge's tooltip: the reasons the flag carries."""
    return "; ".join(row.flags.reasons.get(key, ())) or FILTER_LABELS[key]


def badges_html(row: ResultRow) -> str:
    """One coloured badge per fired flag, its reasons in the tooltip; a dash when none fired."""
    shown = [
        f'<span class="eg-badge eg-badge-{key}" title="{e(flag_title(row, key))}">{e(FILTER_LABELS[key])}</span>'
        for key in FLAG_NAMES
        if row.flags.fired(key)
    ]
    return "".join(shown) or "—"


def verdict_html(correct: bool) -> str:
    return '<span class="eg-ok">correct</span>' if correct else '<span class="eg-miss">wrong</span>'


def visible_text(row: ResultRow) -> str:
    """The words a reader sees in the row (not in its details), lower-cased: what the search box matches."""
    parts = [
        row.config,
        row.question_id,
        row.type,
        row.question,
        *(row.accept or ("(no answer: must refuse)",)),
        row.answer,
        "correct" if row.correct else "wrong",
        {True: "hit", False: "miss", None: "—"}[row.retrieval_hit],
        _num(row.groundedness),
        _num(row.confidence),
        *(FILTER_LABELS[key] for key in FLAG_NAMES if row.flags.fired(key)),
    ]
    return " \n".join(parts).lower()


def _row_html(row: ResultRow, bodies: Mapping[str, str] | None, labels: Sequence[Label]) -> str:
    anchor = row_anchor(row.config, row.question_id)
    attrs = " ".join(f'data-{_attr(key)}="{1 if row.flags.fired(key) else 0}"' for key in FLAG_NAMES)
    accept = ", ".join(f"<code>{e(a)}</code>" for a in row.accept) or "<i>(no answer: must refuse)</i>"
    hit = {True: "hit", False: "miss", None: "—"}[row.retrieval_hit]
    reviewed = f"<br><small class='eg-reviewer'>{len(labels)} reviewer label(s)</small>" if labels else ""
    return (
        f'<tr class="eg-row" id="{anchor}" data-detail="{anchor}-details" data-open="0" '
        f'data-config="{e(row.config)}" data-question-id="{e(row.question_id)}" {attrs} '
        f'data-search="{e(visible_text(row))}">'
        f"<td>{e(row.config)}<br><b>{e(row.question_id)}</b><br><small>{e(row.type)}</small></td>"
        f'<td class="question">{e(row.question)}<div class="eg-accept">accepted: {accept}</div></td>'
        f'<td class="answer">{e(row.answer)}</td>'
        f"<td>{verdict_html(row.correct)}<br><small>retrieval</small> {hit}{reviewed}</td>"
        f'<td class="num">{_num(row.groundedness)}<br>{_num(row.confidence)}</td>'
        f"<td>{badges_html(row)}</td>"
        f'<td><button type="button" class="eg-toggle" aria-expanded="false" aria-controls="{anchor}-details">'
        "details</button></td></tr>"
        f'<tr class="eg-detail" id="{anchor}-details" style="display:none">'
        f'<td colspan="{len(_COLUMNS)}">{details_html(row, bodies, labels)}</td></tr>'
    )


def results_table_html(
    rows: Sequence[ResultRow],
    root_id: str = "eg-results",
    bodies: Mapping[str, str] | None = None,
    labels: Sequence[Label] = (),
) -> str:
    """Every answer of every config as one filterable table (HTML with its own CSS and vanilla JS).

    ``bodies`` (article id → text, from :func:`~evalgate_lib.reporting.explorer.chunk_texts`)
    puts the retrieved chunks' text in the details; ``labels`` puts reviewers' verdicts beside
    EvalGate's. Only labels of the exact answer text shown are used: a label whose answer has
    changed since (stale) is counted in a note, never shown as if it judged this answer.
    """
    configs = list(dict.fromkeys(r.config for r in rows))
    totals = {key: sum(1 for r in rows if r.flags.fired(key)) for key in FLAG_NAMES}
    flag_options = [f'<option value="all">All answers ({len(rows)})</option>'] + [
        f'<option value="{_attr(key)}">{e(FILTER_LABELS[key])} ({totals[key]})</option>' for key in FLAG_NAMES
    ]
    config_options = ['<option value="all">both</option>'] + [
        f'<option value="{e(c)}">{e(c)}</option>' for c in configs
    ]
    matched = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows}) if labels else None
    note = ""
    if matched is not None:
        used = sum(len(v) for v in matched.matched.values())
        note = (
            f'<p class="eg-reviewer">{used} reviewer label(s) of these exact answers are shown in the details'
            + (f"; {len(matched.stale)} label(s) of answers that have changed since are not" if matched.stale else "")
            + ".</p>"
        )
    body = "".join(
        _row_html(r, bodies, matched.matched.get((r.config, r.question_id), []) if matched else []) for r in rows
    )
    colgroup = "".join(f'<col style="width:{width}%">' for _, width in _COLUMNS)
    header = "".join(f"<th>{h}</th>" for h, _ in _COLUMNS)
    root = e(root_id)
    return (
        f'<div class="eg-report eg-results" id="{root}"><style>{BASE_CSS}{SCROLL_CSS}{_TABLE_CSS}{DETAILS_CSS}</style>'
        '<div class="eg-controls">'
        f'<span><label for="{root}-flag">Show</label> '
        f'<select id="{root}-flag" class="eg-flag-filter" name="flag">{"".join(flag_options)}</select></span>'
        f'<span><label for="{root}-config">config</label> '
        f'<select id="{root}-config" class="eg-config-filter" name="config">{"".join(config_options)}</select></span>'
        f'<span><label for="{root}-search">search</label> '
        f'<input id="{root}-search" class="eg-search" type="search" placeholder="text shown in the rows"></span>'
        f'<span><b class="eg-visible-count">{len(rows)}</b> of {len(rows)} answers shown</span>'
        f"</div>{note}{pager_html('answers')}"
        f'<div class="eg-scroll"><table class="eg-results-table eg-fit"><colgroup>{colgroup}</colgroup>'
        f"<thead><tr>{header}</tr></thead><tbody>{body}</tbody></table></div>{pager_html('answers')}"
        f"<script>{PAGER_JS}{_FILTER_JS % {'root': json.dumps(root_id), 'page': PHONE_PAGE_ROWS}}</script></div>"
    )


def table_page_html(
    rows: Sequence[ResultRow],
    title: str = "EvalGate results",
    bodies: Mapping[str, str] | None = None,
    labels: Sequence[Label] = (),
) -> str:
    """A standalone HTML page holding only :func:`results_table_html` (no notebook, no kernel), laid out as the
    report is (:func:`~evalgate_lib.reporting.page_layout.finish_page`: cards on a phone)."""
    return finish_page(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{OUTPUT_MARKER}'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">'
        f"<title>{e(title)}</title></head>"
        f"<body><h1>{e(title)}</h1>{results_table_html(rows, bodies=bodies, labels=labels)}</body></html>"
    )
