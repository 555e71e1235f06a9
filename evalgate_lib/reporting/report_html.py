"""HTML pieces of the stakeholder report, built from result rows, summary and manifest.

Built here, not in the notebooks, so that tests reach them: :func:`results_table_html`
(every answer of both configs, filterable by flag in the browser with plain JavaScript),
:func:`headline_html`, :func:`fairness_html`, :func:`manifest_html`,
:func:`methodology_html`, :func:`report_intro_html`. Every string that comes from the
model, the gold file, the configs or the corpus goes through :func:`html.escape`.
The page loads nothing from the network: no CDN, no fonts.
"""

from __future__ import annotations

import html
import json
from typing import Any, Mapping, Sequence

from evalgate_lib.judging.flags import REVIEW_CONFIDENCE
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow
from evalgate_lib.judging.scoring import COVERAGE_FLOOR, REFUSAL_PATTERNS
from evalgate_lib.reporting.explorer import FLAG_LABELS
from evalgate_lib.statistics.metrics import METRICS, format_interval, format_value

#: Flag key → label in the filter control (the order the control lists them).
FILTER_LABELS = FLAG_LABELS

e = html.escape


# --------------------------------------------------------------------------- HTML pieces

_CSS = """
.eg-report { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; }
.eg-report table { border-collapse: collapse; margin: 0.5em 0 1em; }
.eg-report th, .eg-report td { border: 1px solid #ccc; padding: 4px 8px; vertical-align: top;
  text-align: left !important; }
.eg-report th { background: #f3f3f3; }
.eg-report td.num { text-align: right !important; font-variant-numeric: tabular-nums; }
.eg-report .better { color: #1b5e20; font-weight: 600; }
.eg-report .worse { color: #b71c1c; font-weight: 600; }
.eg-controls { display: flex; gap: 1.2em; align-items: center; flex-wrap: wrap; margin: 0.6em 0;
  padding: 0.6em; background: #f7f7f7; border: 1px solid #ddd; }
.eg-controls label { font-weight: 600; }
.eg-report table { table-layout: auto !important; }
.eg-results-table { width: 100%; font-size: 13px; }
.eg-results-table td.answer { min-width: 24em; max-width: 40em; white-space: pre-wrap; word-break: break-word; }
.eg-results-table td.question { min-width: 14em; max-width: 22em; }
.eg-results-table td.nowrap { white-space: nowrap; }
.eg-badge { display: inline-block; padding: 0 6px; margin: 1px; border-radius: 8px; font-size: 11px;
  color: white; white-space: nowrap; }
.eg-badge-wrong { background: #757575; }
.eg-badge-hallucination { background: #c62828; }
.eg-badge-grounded_but_wrong { background: #ef6c00; }
.eg-badge-review { background: #1565c0; }
.eg-ok { color: #1b5e20; font-weight: 600; }
.eg-miss { color: #b71c1c; font-weight: 600; }
.eg-results-table details summary { cursor: pointer; color: #1565c0; }
.eg-sentences td, .eg-sentences th, .eg-retrieved td, .eg-retrieved th { font-size: 12px; }
"""

_FILTER_JS = """
(function () {
  var root = document.getElementById(%(root)s);
  if (!root) { return; }
  var flag = root.querySelector('select.eg-flag-filter');
  var config = root.querySelector('select.eg-config-filter');
  var search = root.querySelector('input.eg-search');
  var count = root.querySelector('.eg-visible-count');
  function apply() {
    var rows = root.querySelectorAll('tr.eg-row');
    var needle = (search.value || '').toLowerCase();
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = (flag.value === 'all' || row.getAttribute('data-' + flag.value) === '1') &&
               (config.value === 'all' || row.getAttribute('data-config') === config.value) &&
               (!needle || row.textContent.toLowerCase().indexOf(needle) >= 0);
      row.style.display = ok ? '' : 'none';
      if (ok) { shown++; }
    }
    count.textContent = String(shown);
  }
  flag.addEventListener('change', apply);
  config.addEventListener('change', apply);
  search.addEventListener('input', apply);
  apply();
})();
"""


def _attr(flag: str) -> str:
    """``grounded_but_wrong`` → ``grounded-but-wrong``: the row attribute is ``data-grounded-but-wrong``."""
    return flag.replace("_", "-")


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _badges(row: ResultRow) -> str:
    shown = [
        f'<span class="eg-badge eg-badge-{key}" title="{e(_flag_title(row, key))}">{e(FILTER_LABELS[key])}</span>'
        for key in FLAG_NAMES
        if row.flags.fired(key)
    ]
    return "".join(shown) or "—"


def _flag_title(row: ResultRow, key: str) -> str:
    """The badge's tooltip: the reasons the flag carries."""
    return "; ".join(row.flags.reasons.get(key, ())) or FILTER_LABELS[key]


def _detail(row: ResultRow) -> str:
    from evalgate_lib.reporting.plots import sentences_html

    retrieved = "".join(
        f"<li>{r.rank}. {e(r.chunk_id)} (similarity {r.similarity:.3f})"
        f"{' — gold article' if r.article_id == row.gold_article else ''}</li>"
        for r in row.retrieved
    )
    reasons = "".join(
        f"<p>{e(FILTER_LABELS[key])}: {e('; '.join(row.flags.reasons[key]))}</p>"
        for key in FLAG_NAMES
        if key in row.flags.reasons
    )
    return (
        "<details><summary>details</summary>"
        f"<p>Retrieved (top {len(row.retrieved)}):</p><ul>{retrieved}</ul>"
        f"{reasons}{sentences_html(row)}</details>"
    )


def results_table_html(rows: Sequence[ResultRow], root_id: str = "eg-results") -> str:
    """Every answer of every config as one filterable table (HTML with its own CSS and vanilla JS).

    Each ``<tr class="eg-row">`` carries ``data-config``, ``data-question-id`` and
    ``data-wrong`` / ``data-hallucination`` / ``data-grounded-but-wrong`` /
    ``data-review`` set to ``"1"`` or ``"0"``. The flag select keeps only the rows
    whose attribute is ``"1"``; it works offline in any browser, no kernel needed.
    """
    configs = list(dict.fromkeys(r.config for r in rows))
    totals = {key: sum(1 for r in rows if r.flags.fired(key)) for key in FLAG_NAMES}
    flag_options = [f'<option value="all">All answers ({len(rows)})</option>'] + [
        f'<option value="{_attr(key)}">{e(FILTER_LABELS[key])} ({totals[key]})</option>' for key in FLAG_NAMES
    ]
    config_options = ['<option value="all">both</option>'] + [
        f'<option value="{e(c)}">{e(c)}</option>' for c in configs
    ]
    body = []
    for r in rows:
        attrs = " ".join(f'data-{_attr(key)}="{1 if r.flags.fired(key) else 0}"' for key in FLAG_NAMES)
        accept = ", ".join(f"<code>{e(a)}</code>" for a in r.accept) or "<i>(no answer: must refuse)</i>"
        verdict = '<span class="eg-ok">correct</span>' if r.correct else '<span class="eg-miss">wrong</span>'
        hit = {True: "hit", False: "miss", None: "—"}[r.retrieval_hit]
        body.append(
            f'<tr class="eg-row" data-config="{e(r.config)}" data-question-id="{e(r.question_id)}" {attrs}>'
            f"<td class='nowrap'>{e(r.config)}</td><td class='nowrap'>{e(r.question_id)}</td>"
            f"<td class='nowrap'>{e(r.type)}</td>"
            f'<td class="question">{e(r.question)}</td>'
            f'<td class="answer">{e(r.answer)}</td>'
            f"<td>{accept}</td><td class='nowrap'>{verdict}</td><td class='nowrap'>{hit}</td>"
            f'<td class="num">{_num(r.groundedness)}</td><td class="num">{_num(r.confidence)}</td>'
            f"<td>{_badges(r)}</td><td>{_detail(r)}</td></tr>"
        )
    header = "".join(
        f"<th>{h}</th>"
        for h in (
            "config",
            "id",
            "type",
            "question",
            "answer (model output)",
            "accepted",
            "verdict",
            "retrieval",
            "grounded&shy;ness",
            "confi&shy;dence",
            "flags",
            "",
        )
    )
    root = e(root_id)
    return (
        f'<div class="eg-report eg-results" id="{root}"><style>{_CSS}</style>'
        '<div class="eg-controls">'
        f'<span><label for="{root}-flag">Show</label> '
        f'<select id="{root}-flag" class="eg-flag-filter" name="flag">{"".join(flag_options)}</select></span>'
        f'<span><label for="{root}-config">config</label> '
        f'<select id="{root}-config" class="eg-config-filter" name="config">{"".join(config_options)}</select></span>'
        f'<span><label for="{root}-search">search</label> '
        f'<input id="{root}-search" class="eg-search" type="search" placeholder="text in any cell"></span>'
        f'<span><b class="eg-visible-count">{len(rows)}</b> of {len(rows)} answers shown</span>'
        "</div>"
        f'<table class="eg-results-table"><thead><tr>{header}</tr></thead><tbody>{"".join(body)}</tbody></table>'
        f"<script>{_FILTER_JS % {'root': json.dumps(root_id)}}</script></div>"
    )


def table_page_html(rows: Sequence[ResultRow], title: str = "EvalGate results") -> str:
    """A standalone HTML page holding only :func:`results_table_html` (no notebook, no kernel)."""
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title></head>'
        f"<body><h1>{e(title)}</h1>{results_table_html(rows)}</body></html>"
    )


def _delta_class(kind: str, value: float | None) -> str:
    if not value:
        return ""
    better = value > 0 if kind != "count" else value < 0
    return "better" if better else "worse"


def headline_html(summary: Mapping[str, Any]) -> str:
    """Per-config metrics side by side with the delta, its 95% paired-bootstrap interval and McNemar p.

    Each number cell carries its exact value in ``data-value`` (``data-metric``,
    ``data-config`` = a config name or ``delta``), so a test or a script can read
    the numbers back without parsing the formatting.
    """
    base, cand = summary["baseline"], summary["candidate"]
    b, c, d = summary["configs"][base], summary["configs"][cand], summary["delta"]
    sig = summary.get("significance") or {}

    def cell(key: str, kind: str, config: str, value: float | None, signed: bool = False, cls: str = "") -> str:
        raw = "" if value is None else repr(value)
        return (
            f'<td class="num {cls}" data-metric="{e(key)}" data-config="{e(config)}" data-value="{raw}">'
            f"{e(format_value(value, kind, signed=signed))}</td>"
        )

    lines = [
        f'<div class="eg-report"><style>{_CSS}</style><table class="eg-headline" id="eg-headline">'
        f"<thead><tr><th>metric</th><th>{e(base)}</th><th>{e(cand)}</th><th>delta ({e(cand)} − {e(base)})</th>"
        "<th>95% CI of the delta (paired bootstrap)</th><th>McNemar p</th></tr></thead><tbody>"
    ]
    for m in METRICS:
        s = sig.get(m.key) or {}
        p = s.get("p_value")
        lines.append(
            f"<tr><td>{e(m.label)}</td>{cell(m.key, m.kind, base, b.get(m.key))}"
            f"{cell(m.key, m.kind, cand, c.get(m.key))}"
            f"{cell(m.key, m.kind, 'delta', d.get(m.key), signed=True, cls=_delta_class(m.kind, d.get(m.key)))}"
            f'<td class="num">{e(format_interval(s, m.kind)) if s else "n/a"}</td>'
            f'<td class="num">{"" if p is None else f"{p:.3f}"}</td></tr>'
        )
    lines.append("</tbody></table>")
    boot = summary.get("bootstrap") or {}
    lines.append(
        f"<p>Questions per config: <b>{b['questions']}</b> ({b['answerable']} answerable, "
        f"{b['no_answer']} no-answer). Rates are shares of the questions they name; flag counts are numbers of "
        "answers (lower is better). Green: the candidate is better, red: worse. An interval that contains 0 "
        "means the difference is within noise at this sample size"
        + (f" (bootstrap seed {e(str(boot.get('seed')))}, paired by question id)" if boot else "")
        + ".</p></div>"
    )
    return "".join(lines)


def _value(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
    return e(text)


def fairness_html(manifest: Mapping[str, Any]) -> str:
    """What differs between the configs and what is held constant (from the manifest)."""
    fairness = manifest["fairness"]
    differs = ", ".join(f"<code>{e(k)}</code>" for k in fairness["differs"]) or "nothing"
    used = str(manifest.get("backend", {}).get("backend", ""))

    def note(key: str) -> str:
        # [shared.models.ollama] names Ollama's models; a run on another backend did not use them
        parts = key.split(".")
        if len(parts) > 2 and parts[:2] == ["shared", "models"] and parts[2] != used:
            return f" <small>(not used: this run used the {e(used)} backend)</small>"
        return ""

    shared = "".join(
        f"<tr><td><code>{e(k)}</code></td><td>{_value(v)}{note(k)}</td></tr>"
        for k, v in sorted(fairness["shared"].items())
    )
    configs = "".join(
        f"<tr><td>{e(name)}</td><td><code>{e(json.dumps(c['chunking'], sort_keys=True))}</code></td>"
        f"<td class='num'>{e(str(c.get('chunks')))}</td><td><code>{e(c['sha256'][:12])}</code></td>"
        f"<td><code>{e(c['prompt_sha256'][:12])}</code></td></tr>"
        for name, c in manifest["configs"].items()
    )
    return (
        f'<div class="eg-report"><style>{_CSS}</style>'
        f"<p><b>Allowed to differ</b> (what is being evaluated): {differs}.</p>"
        "<table><thead><tr><th>config</th><th>chunking</th><th>chunks</th><th>config sha256</th>"
        f"<th>prompt sha256</th></tr></thead><tbody>{configs}</tbody></table>"
        "<p><b>Held constant</b> (evalgate refuses to run the pair if any of these differs):</p>"
        f"<table><thead><tr><th>key</th><th>value</th></tr></thead><tbody>{shared}</tbody></table></div>"
    )


def manifest_html(manifest: Mapping[str, Any]) -> str:
    """Hashes and model identities: what a reader needs to tell whether two reports measured the same thing."""
    backend = manifest.get("backend", {})
    rows = [
        ("evalgate version", manifest.get("evalgate_version")),
        ("corpus", f"{manifest['corpus']['articles']} articles, sha256 {manifest['corpus']['sha256']}"),
        (
            "gold set",
            f"{manifest['gold']['questions_run']} of {manifest['gold']['questions_in_file']} questions run, "
            f"sha256 {manifest['gold']['sha256']}",
        ),
        ("top-k", manifest.get("top_k")),
        ("generation", json.dumps(manifest.get("generation"), sort_keys=True)),
        *((f"backend: {k}", v) for k, v in sorted(backend.items())),
        ("python", manifest.get("python")),
        (
            "packages",
            ", ".join(f"{k} {v}" for k, v in sorted((manifest.get("packages") or {}).items()) if v is not None),
        ),
    ]
    body = "".join(f"<tr><td>{e(str(k))}</td><td><code>{e(str(v))}</code></td></tr>" for k, v in rows)
    return f'<div class="eg-report"><style>{_CSS}</style><table class="eg-manifest"><tbody>{body}</tbody></table></div>'


_MATCHING_TEXT = {
    "token": "an accepted string occurs in the answer (case-insensitive) on token boundaries, so '3 seats' is not "
    "inside '13 seats'; an answer that also gives another value of the accepted unit is wrong (conflicting values); "
    "a bare number whose accepted string carries a unit counts.",
    "raw": "the answer contains one of the question's accepted strings (case-insensitive, literal substring).",
    "normalised": "an accepted string occurs on token boundaries after normalising number words, units and money "
    "on both sides.",
}
_SCORER_TEXT = {
    "span": "a sentence is supported only when one local span of the context (a sentence or line with its title, "
    "heading and table header) holds every number and identifier of it exactly and at least 75% of its content "
    "words; a short answer fragment is read as the answer to the question and must sit with the question's words. "
    "Refusals, questions, bare labels and echoes of the question claim nothing.",
    "lexical": f"the share of a sentence's content tokens found anywhere in the retrieved context; supported at "
    f"≥ {COVERAGE_FLOOR:.2f}.",
}


def methodology_html(manifest: Mapping[str, Any]) -> str:
    """How every number is computed, and the honest limits of those numbers."""
    gold = manifest["gold"]
    partial = ""
    if gold["questions_run"] < gold["questions_in_file"]:
        partial = (
            f"<li><b>This is a partial run:</b> only {gold['questions_run']} of the {gold['questions_in_file']} "
            "gold questions were run (a quick <code>--limit</code> slice). Its numbers are a smoke test, "
            "not a verdict.</li>"
        )
    n = gold["questions_run"]
    one_answer = f"{100 / n:.1f}" if n else "n/a"
    refusals = "".join(f"<li><code>{e(p)}</code></li>" for p in REFUSAL_PATTERNS)
    backend = manifest.get("backend", {})
    judging = manifest.get("judging", {})
    scorer = str(judging.get("sentence_scorer", "lexical@1"))
    matching_text = _MATCHING_TEXT.get(str(judging.get("answer_matching", "raw")), "")
    scorer_text = _SCORER_TEXT.get(scorer.split("@")[0], "a registered plug-in scorer; see its documentation.")
    return f"""<div class="eg-report"><style>{_CSS}</style>
<h3>How the numbers are computed</h3>
<ul>
<li><b>Same questions, same models, same decoding.</b> Both configs answer the same gold questions with the same
generator ({e(str(backend.get("generator")))}) and embedder ({e(str(backend.get("embedder")))}), the same top-k and
the same decoding options; only chunking and the prompt differ (see the fairness contract).</li>
<li><b>Retrieval recall</b>: share of answerable questions where a chunk of the gold article is among the
top-k retrieved chunks (document-level hit).</li>
<li><b>Accuracy on answerable</b>: {matching_text} <b>Refusal accuracy</b>: on questions the knowledge base cannot
answer, the answer is a refusal (its first sentence matches one of the refusal patterns below).</li>
<li><b>Sentence support</b> (scorer <code>{e(scorer)}</code>): {scorer_text} <b>Groundedness</b>: mean support
score over the sentences that claim something.</li>
<li><b>Flags.</b> <i>Wrong</i>: not correct. <i>Hallucination</i>: wrong and at least one unsupported sentence.
<i>Grounded-but-wrong</i>: wrong although every claim is supported by the context (the context misled, or the
wrong passage was retrieved). <i>Review queue</i>: a signal computable in production without gold answers:
an unsupported sentence, or confidence = min(top retrieval similarity, groundedness) below
{REVIEW_CONFIDENCE:.2f}.</li>
<li>Refusal patterns (lower-cased, any match): <ul>{refusals}</ul></li>
</ul>
<h3>Honest limits</h3>
<ul>
{partial}
<li><b>Small sample.</b> {n} questions per config: one answer moves a rate on all questions by
{one_answer} points. Deltas of a few points can be noise; treat them as a direction to check, not a proof.</li>
<li><b>Matching is by strings.</b> "three seats" does not contain "3 seats" unless normalised matching is on: a
correct paraphrase can count as wrong.</li>
<li><b>Support is measured, not proven.</b> The sentence scorer is a function of strings; its agreement with
reviewers' labels is measured with <code>evalgate agreement</code> (see the README): it says "this was in front of
the model", not "this is true".</li>
<li><b>The models.</b> The numbers describe this generator and embedder with these decoding options; another model
can rank the two configs differently. The embedded local backend uses very small models, so absolute accuracy is low;
compare the configs, not the absolute levels.</li>
<li><b>The gold set</b> was written by people and can itself be wrong or incomplete; every question, answer and
accepted string is in the table below so a reader can check.</li>
</ul></div>"""


def report_intro_html(manifest: Mapping[str, Any], summary: Mapping[str, Any]) -> str:
    """A one-paragraph verdict line: which config leads on overall accuracy and by how much."""
    base, cand = summary["baseline"], summary["candidate"]
    delta = summary["delta"].get("accuracy_overall")
    if delta is None:
        verdict = "Overall accuracy is not defined for this run."
    elif delta == 0:
        verdict = f"<b>{e(cand)}</b> and <b>{e(base)}</b> have the same overall accuracy."
    else:
        word = "higher" if delta > 0 else "lower"
        verdict = (
            f"<b>{e(cand)}</b> scores <b>{abs(delta) * 100:.1f} points {word}</b> than <b>{e(base)}</b> on accuracy."
        )
    gold = manifest["gold"]
    backend = manifest.get("backend", {})
    return (
        f'<div class="eg-report"><style>{_CSS}</style><p>{verdict} '
        f"Run on {gold['questions_run']} of {gold['questions_in_file']} gold questions over "
        f"{manifest['corpus']['articles']} knowledge-base articles, backend "
        f"<code>{e(str(backend.get('backend')))}</code>.</p></div>"
    )


def _interval_cell(stat: Mapping[str, Any]) -> str:
    if stat.get("value") is None:
        return "—"
    if stat.get("ci_low") is None:
        return f"{stat['value']:.3f}"
    return f"{stat['value']:.3f} <small>[{stat['ci_low']:.3f}, {stat['ci_high']:.3f}]</small>"


def _agreement_rows(items: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for item in items:
        c = item["confusion"]
        rows.append(
            f'<tr data-judgement="{e(item["name"])}" data-scorer="{e(item.get("scorer") or "")}">'
            f"<td>{e(item['name'])}</td><td>{e(item.get('scorer') or '')}</td>"
            f"<td class='num'>{c['tp'] + c['fp'] + c['fn'] + c['tn']}</td>"
            f"<td class='num'>{c['tp']} / {c['fp']} / {c['fn']} / {c['tn']}</td>"
            + "".join(
                f"<td class='num'>{_interval_cell(item[key])}</td>"
                for key in ("agreement", "precision", "recall", "kappa")
            )
            + "</tr>"
        )
    return "".join(rows)


def agreement_html(report: Mapping[str, Any]) -> str:
    """How far each automatic judgement agrees with reviewers' labels (the ``evalgate agreement`` figures).

    ``report`` is :func:`evalgate_lib.statistics.label_agreement.report_json`. Every flag of the
    run is listed with its confusion matrix, agreement, precision, recall and Cohen's κ, each with
    its bootstrap interval, for every sentence scorer measured; then the headline rates corrected
    by the labelled sample.
    """
    head = (
        "<tr><th>judgement</th><th>scorer / rule</th><th>n</th><th>TP / FP / FN / TN</th><th>agreement</th>"
        "<th>precision</th><th>recall</th><th>Cohen's κ</th></tr>"
    )
    items = list(report["correctness"]) + [a for scorer in report["by_scorer"].values() for a in scorer]
    ppi_rows = "".join(
        f"<tr><td>{e(group)}</td><td>{e(name)}</td><td class='num'>{est['naive_auto_rate'] * 100:.1f}%</td>"
        f"<td class='num'>{est['human_only_rate'] * 100:.1f}% (n={est['n_labelled']})</td>"
        f"<td class='num'>{est['estimate'] * 100:.1f}%"
        + ("" if est["ci_low"] is None else f" [{est['ci_low'] * 100:.1f}, {est['ci_high'] * 100:.1f}]")
        + "</td></tr>"
        for group, estimates in report["ppi"].items()
        for name, est in estimates.items()
    )
    return (
        f'<div class="eg-report eg-agreement"><style>{_CSS}</style>'
        f"<p>Measured against {report['labelled']} reviewer-labelled answers "
        f"({report['stale']} stale labels of changed answers not used). Reviewers followed the labelling guide "
        "and never saw EvalGate's verdicts. Intervals: 95% bootstrap over answers.</p>"
        f"<table class='eg-headline'><thead>{head}</thead><tbody>{_agreement_rows(items)}</tbody></table>"
        "<p>Headline rates over every answer of the run, corrected by the labelled sample "
        "(prediction-powered inference):</p>"
        "<table class='eg-headline'><thead><tr><th></th><th>rate</th><th>automatic</th><th>labelled sample</th>"
        f"<th>corrected [95% CI]</th></tr></thead><tbody>{ppi_rows}</tbody></table></div>"
    )
