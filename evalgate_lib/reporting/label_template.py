"""Labels without Jupyter: a plan's blind label template and a static page that fills it in a browser.

A colleague with only a browser cannot run notebook 06 (it needs a kernel and widgets), and labelling
a plan by hand meant computing each answer's SHA-256. ``evalgate sample`` therefore writes, beside the
plan it draws:

* **the label template** (``<plan>.template.jsonl``): one row per answer of the plan, in the plan's
  order, every field a label needs filled but the verdicts: ``config``, ``question_id``,
  ``answer_sha256``, ``plan_sha256``, ``pass``, the answer's ``sentences`` (their text, unmarked) and
  ``material``, what the labelling guide lets a reviewer see (question, reference, the passages the
  model was shown, the answer), with ``correct``, ``unsupported_claim`` and ``reviewer`` ``null``. It is
  blind: no verdict, flag, score or stratum of the plan is in it. Filled in, it *is* a label file:
  ``evalgate gate --labels`` and ``evalgate agreement --labels`` read it as it is, counting the rows not
  labelled yet (:mod:`evalgate_lib.inputs.labels`);
* **the labelling page** (``<plan>.labelling.html``): one self-contained HTML file, no server, nothing
  loaded from the network, that shows the template's answers one at a time with nothing preselected,
  keeps the marks in the browser (``localStorage``, per plan) and saves the filled template as a JSONL
  download. It shows no EvalGate verdict (it holds none), and writes ``"verdicts_hidden": true`` only
  when the reviewer states they have not been shown EvalGate's verdicts of these answers elsewhere.

Every text reaches the page as JSON inside a ``<script type="application/json">`` element, with ``<``,
``>`` and ``&`` escaped, and the page puts it into the document with ``textContent`` only: an answer
holding markup is shown as text, never run.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.corpus import OUTPUT_MARKER, Article
from evalgate_lib.inputs.labels import Material, Passage, answer_sha256
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.statistics.sampling_plan import LabelPlan, format_plan_for_reviewer
from evalgate_lib.text.tokens import sentences_of

TEMPLATE_SUFFIX = ".template.jsonl"
PAGE_SUFFIX = ".labelling.html"
#: What a passage shows when its text cannot be rebuilt (the run's corpus is gone, or a logged passage was
#: not found verbatim in its article).
NO_TEXT = "(the text of this passage is not available: the run's corpus was not found)"


def material_of(row: ResultRow, articles: Mapping[str, Article]) -> Material:
    """What a reviewer is shown of ``row`` (the labelling guide): question, reference, passages in order, answer."""
    bodies = {article_id: article.body for article_id, article in articles.items()}
    passages = []
    for chunk in row.retrieved:
        article = articles.get(chunk.article_id)
        text = chunk.text_in(bodies)
        passages.append(Passage(chunk.rank, article.title if article else chunk.article_id, text or NO_TEXT))
    return Material(row.question, row.type, tuple(row.accept), row.evidence, tuple(passages), row.answer)


def template_rows(
    rows: Sequence[ResultRow], articles: Sequence[Article], plan: LabelPlan, plan_sha256: str
) -> list[dict[str, Any]]:
    """One template row per answer of ``plan``, in the plan's order (every config of a question together)."""
    by_key = {(r.config, r.question_id): r for r in rows}
    by_id = {a.id: a for a in articles}
    out = []
    for question_id in plan.order():
        for config in plan.configs:
            row = by_key.get((config, question_id))
            if row is None:
                raise InputError(f"the plan names {config} {question_id}, which the results folder does not hold")
            out.append(
                {
                    "config": row.config,
                    "question_id": row.question_id,
                    "answer_sha256": answer_sha256(row.answer),
                    "plan_sha256": plan_sha256,
                    "pass": 1,
                    "reviewer": None,
                    "correct": None,
                    "unsupported_claim": None,
                    "sentences": [{"text": text} for text in sentences_of(row.answer)],
                    "material": material_of(row, by_id).to_dict(),
                }
            )
    return out


def template_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The template file: one sorted-keys JSON object per line, UTF-8 kept as it is (the label files' form)."""
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows)


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` that could close it or open a comment."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


_PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 15px; margin: 0 auto;
  max-width: 52em; padding: 0.8em; line-height: 1.4; color: #111; }
h1 { font-size: 1.3em; margin: 0.2em 0 0.4em; }
.eg-who { display: flex; flex-wrap: wrap; gap: 0.6em 1.2em; align-items: center; padding: 0.6em;
  background: #f7f7f7; border: 1px solid #ddd; }
.eg-who label { font-weight: 600; }
.eg-nav { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; margin: 0.8em 0; }
.eg-nav button, .eg-save button { font-size: 15px; padding: 0.3em 0.8em; }
.eg-answer pre, .eg-passage pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.2em 0;
  font-family: ui-monospace, monospace; font-size: 14px; background: #fafafa; border: 1px solid #e5e5e5;
  padding: 0.4em; }
.eg-marks fieldset { border: 1px solid #ddd; margin: 0.5em 0; padding: 0.4em 0.6em; }
.eg-marks legend { font-weight: 600; }
.eg-marks label { display: inline-block; margin: 0.2em 1em 0.2em 0; }
.eg-status { font-weight: 600; }
.eg-saved { color: #1b5e20; }
.eg-missing { color: #8a4b00; }
"""

_PAGE_JS = r"""
(function () {
  var rows = JSON.parse(document.getElementById('eg-template').textContent);
  var meta = JSON.parse(document.getElementById('eg-meta').textContent);
  var storeKey = 'evalgate-labels-' + meta.plan_sha256;
  var state = {};
  try { state = JSON.parse(window.localStorage.getItem(storeKey) || '{}') || {}; } catch (e) { state = {}; }
  state.marks = state.marks || {};
  var at = 0;
  function $(id) { return document.getElementById(id); }
  function keyOf(row) { return row.config + '\u0000' + row.question_id + '\u0000' + row.answer_sha256; }
  function marksOf(row) {
    var k = keyOf(row);
    if (!state.marks[k]) {
      state.marks[k] = {correct: null, sentences: row.sentences.map(function () { return null; })};
    }
    return state.marks[k];
  }
  function save() {
    state.reviewer = $('eg-reviewer').value;
    state.pass = $('eg-pass').value;
    state.declared = $('eg-declared').checked;
    try {
      window.localStorage.setItem(storeKey, JSON.stringify(state));
    } catch (e) { /* a browser that keeps nothing: the marks stay in the page until it is closed */ }
    count();
  }
  function missing(row) {
    var m = marksOf(row), out = [];
    if (m.correct === null) { out.push("the answer's verdict"); }
    m.sentences.forEach(function (s, i) { if (s === null) { out.push('sentence ' + (i + 1)); } });
    return out;
  }
  function count() {
    var done = rows.filter(function (r) { return missing(r).length === 0; }).length;
    $('eg-count').textContent = String(done);
    return done;
  }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (cls) { node.className = cls; }
    return node;
  }
  function choice(name, value, label, checked, onchange) {
    var wrap = el('label');
    var input = document.createElement('input');
    input.type = 'radio'; input.name = name; input.value = value; input.checked = checked;
    input.addEventListener('change', onchange);
    wrap.appendChild(input);
    wrap.appendChild(document.createTextNode(' ' + label));
    return wrap;
  }
  function render() {
    var row = rows[at], m = marksOf(row), mat = row.material;
    $('eg-at').textContent = String(at + 1);
    var view = $('eg-view');
    view.textContent = '';
    view.appendChild(el('h2', row.config + ' \u00b7 ' + row.question_id + ' (' + mat.type + ')'));
    var q = el('p'); q.appendChild(el('b', 'Question: ')); q.appendChild(document.createTextNode(mat.question));
    view.appendChild(q);
    var ref = el('p'); ref.appendChild(el('b', 'Reference: '));
    if (mat.type === 'no_answer') {
      ref.appendChild(document.createTextNode(
        'none: the knowledge base does not answer this; only a refusal is correct.'));
    } else {
      ref.appendChild(document.createTextNode(mat.accept.join(' \u00b7 ')));
    }
    view.appendChild(ref);
    if (mat.evidence && mat.evidence.length) {
      var ev = el('ul');
      mat.evidence.forEach(function (x) { ev.appendChild(el('li', x)); });
      view.appendChild(ev);
    }
    view.appendChild(el('p', 'The passages the model was shown, in its order:'));
    mat.passages.forEach(function (p) {
      var d = el('details', null, 'eg-passage');
      d.appendChild(el('summary', '[' + p.rank + '] ' + p.title));
      d.appendChild(el('pre', p.text));
      view.appendChild(d);
    });
    var ans = el('div', null, 'eg-answer');
    ans.appendChild(el('p', null)).appendChild(el('b', 'Answer:'));
    ans.appendChild(el('pre', mat.answer));
    view.appendChild(ans);
    var marks = $('eg-marks');
    marks.textContent = '';
    var fs = el('fieldset'); fs.appendChild(el('legend', 'The answer is'));
    [['correct', true], ['wrong', false]].forEach(function (c) {
      fs.appendChild(choice('eg-correct', c[0], c[0], m.correct === c[1], function () {
        m.correct = c[1]; save(); status();
      }));
    });
    marks.appendChild(fs);
    row.sentences.forEach(function (s, i) {
      var f = el('fieldset', null, 'eg-sentence'); f.appendChild(el('legend', 'Sentence ' + (i + 1)));
      f.appendChild(el('pre', s.text));
      [['supported', true], ['unsupported', false], ['not a claim', 'none']].forEach(function (c) {
        var value = c[1] === 'none' ? 'none' : c[1];
        f.appendChild(choice('eg-s' + i, String(c[1]), c[0], m.sentences[i] === value, function () {
          m.sentences[i] = value; save(); status();
        }));
      });
      marks.appendChild(f);
    });
    status();
  }
  function status() {
    var todo = missing(rows[at]);
    var s = $('eg-status');
    s.className = 'eg-status ' + (todo.length ? 'eg-missing' : 'eg-saved');
    s.textContent = todo.length ? 'still to mark: ' + todo.join(', ')
      : 'marked (kept in this browser; download to save a file)';
  }
  function sortedJson(value) {
    if (Array.isArray(value)) { return '[' + value.map(sortedJson).join(', ') + ']'; }
    if (value && typeof value === 'object') {
      return '{' + Object.keys(value).sort().map(function (k) {
        return JSON.stringify(k) + ': ' + sortedJson(value[k]);
      }).join(', ') + '}';
    }
    return JSON.stringify(value);
  }
  function filled() {
    var reviewer = ($('eg-reviewer').value || '').trim();
    var pass = parseInt($('eg-pass').value, 10) || 1;
    var declared = $('eg-declared').checked;
    return rows.map(function (row) {
      var m = marksOf(row);
      if (missing(row).length) { return sortedJson(row); }
      var out = JSON.parse(JSON.stringify(row));
      var unsupported = [];
      out.sentences = row.sentences.map(function (s, i) {
        var v = m.sentences[i] === 'none' ? null : m.sentences[i];
        if (v === false) { unsupported.push(s.text); }
        return {text: s.text, supported: v};
      });
      out.correct = m.correct;
      out.unsupported_claim = unsupported.length > 0;
      out.unsupported_sentences = unsupported;
      out.reviewer = reviewer;
      out['pass'] = pass;
      out.mode = 'blind';
      if (declared) { out.verdicts_hidden = true; }
      return sortedJson(out);
    }).join('\n') + '\n';
  }
  function download() {
    var reviewer = ($('eg-reviewer').value || '').trim();
    if (!reviewer) {
      $('eg-save-status').textContent = 'Give your name first: every label says who made it.';
      $('eg-reviewer').focus();
      return;
    }
    var blob = new Blob([filled()], {type: 'application/x-ndjson'});
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = meta.download_stem + '-' + reviewer.replace(/[^A-Za-z0-9_.-]+/g, '_') + '.jsonl';
    document.body.appendChild(a); a.click(); a.remove();
    $('eg-save-status').textContent =
      'Saved ' + count() + ' of ' + rows.length + ' answers labelled as ' + a.download + '.';
  }
  function resume(file) {
    var reader = new FileReader();
    reader.onload = function () {
      var byKey = {};
      rows.forEach(function (r) { byKey[keyOf(r)] = r; });
      var taken = 0;
      String(reader.result).split('\n').forEach(function (line) {
        if (!line.trim()) { return; }
        var obj; try { obj = JSON.parse(line); } catch (e) { return; }
        var row = byKey[keyOf(obj)];
        if (!row || obj.correct === null || obj.correct === undefined) { return; }
        var m = marksOf(row);
        m.correct = obj.correct;
        m.sentences = row.sentences.map(function (s, i) {
          var got = (obj.sentences || [])[i];
          if (!got || got.text !== s.text || !('supported' in got)) { return null; }
          return got.supported === null ? 'none' : got.supported;
        });
        if (obj.reviewer) { $('eg-reviewer').value = obj.reviewer; }
        taken++;
      });
      save(); render();
      $('eg-save-status').textContent = 'Opened ' + taken + ' labelled answer(s) from ' + file.name + '.';
    };
    reader.readAsText(file);
  }
  $('eg-reviewer').value = state.reviewer || '';
  $('eg-pass').value = state.pass || '1';
  $('eg-declared').checked = !!state.declared;
  ['eg-reviewer', 'eg-pass', 'eg-declared'].forEach(function (id) { $(id).addEventListener('change', save); });
  $('eg-prev').addEventListener('click', function () { at = (at + rows.length - 1) % rows.length; render(); });
  $('eg-next').addEventListener('click', function () { at = (at + 1) % rows.length; render(); });
  $('eg-next-open').addEventListener('click', function () {
    for (var i = 1; i <= rows.length; i++) {
      var j = (at + i) % rows.length;
      if (missing(rows[j]).length) { at = j; break; }
    }
    render();
  });
  $('eg-download').addEventListener('click', download);
  $('eg-open').addEventListener('change', function (event) {
    if (event.target.files[0]) { resume(event.target.files[0]); }
  });
  $('eg-total').textContent = String(rows.length);
  render(); count();
})();
"""


def labelling_page_html(rows: Sequence[Mapping[str, Any]], plan_line: str, plan_sha256: str, stem: str) -> str:
    """The static blind labelling page of a template's ``rows`` (module docstring): one HTML file, no server."""
    e = html.escape
    meta = {"plan_sha256": plan_sha256, "download_stem": stem}
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{OUTPUT_MARKER}'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">'
        f"<title>EvalGate: label answers blind ({e(plan_sha256[:12])}…)</title><style>{_PAGE_CSS}</style></head><body>"
        "<h1>Label answers blind</h1>"
        f"<p>{e(plan_line)}. Follow the labelling guide (<code>docs/labelling-guide.md</code>): mark each answer "
        "correct or wrong against its reference, and each sentence <i>supported</i> (the passages say it), "
        "<i>unsupported</i> or <i>not a claim</i>. Nothing is preselected, and this page holds no verdict of "
        "EvalGate's. Your marks are kept in this browser as you go; <b>Download labels</b> saves them as a file for "
        "<code>evalgate gate --labels</code> (an answer not fully marked stays unlabelled in it).</p>"
        '<div class="eg-who"><span><label for="eg-reviewer">Your name</label> '
        '<input id="eg-reviewer" type="text" autocomplete="name"></span>'
        '<span><label for="eg-pass">Pass</label> <select id="eg-pass"><option value="1">1</option>'
        '<option value="2">2 (a second, independent pass)</option></select></span>'
        '<span><input id="eg-declared" type="checkbox"> <label for="eg-declared">I have not been shown EvalGate\'s '
        "verdicts of these answers (report, explorer, notebook 06)</label></span></div>"
        '<div class="eg-nav"><button type="button" id="eg-prev">◀ previous</button>'
        '<span>answer <b id="eg-at">1</b> of <b id="eg-total"></b> · labelled <b id="eg-count">0</b></span>'
        '<button type="button" id="eg-next">next ▶</button>'
        '<button type="button" id="eg-next-open">next unlabelled</button></div>'
        '<div id="eg-view"></div><div id="eg-marks" class="eg-marks"></div><p id="eg-status"></p>'
        '<div class="eg-save"><button type="button" id="eg-download">Download labels (JSONL)</button> '
        '<label for="eg-open">or continue from a file you downloaded:</label> '
        '<input id="eg-open" type="file" accept=".jsonl,application/x-ndjson"> <span id="eg-save-status"></span></div>'
        f'<script type="application/json" id="eg-template">{_script_json(list(rows))}</script>'
        f'<script type="application/json" id="eg-meta">{_script_json(meta)}</script>'
        f"<script>{_PAGE_JS}</script></body></html>\n"
    )


@dataclass(frozen=True)
class LabelKit:
    """The template and the labelling page written for a plan, and whether an existing template was kept."""

    template: Path
    page: Path
    answers: int
    kept: bool

    def describe(self) -> str:
        """What ``evalgate sample`` prints about them."""
        template = (
            f"label template: {self.template} (kept as it was: it may hold labels; delete it to write it again)"
            if self.kept
            else f"label template: {self.template} ({self.answers} answers in the plan's order, blind, verdicts empty)"
        )
        return (
            f"{template}\nlabelling page: {self.page} (open it in a browser, no server; it saves the filled template "
            "as a download, which 'evalgate gate --labels FILE' reads)"
        )


def kit_paths(plan_path: str | Path) -> tuple[Path, Path]:
    """Where a plan's template and labelling page go: beside it, named after it."""
    plan = Path(plan_path)
    stem = plan.name.removesuffix(".json")
    return plan.with_name(stem + TEMPLATE_SUFFIX), plan.with_name(stem + PAGE_SUFFIX)


def write_label_kit(
    rows: Sequence[ResultRow], articles: Sequence[Article], plan: LabelPlan, plan_path: str | Path, plan_sha256: str
) -> LabelKit:
    """Write ``plan``'s label template and labelling page beside it (module docstring).

    A template already there is never written over (it may hold labels), and is kept; a file at the page's
    path that is not EvalGate's page is refused. The page is written again (it holds no label).
    """
    template, page = kit_paths(plan_path)
    found = template_rows(rows, articles, plan, plan_sha256)
    text = template_text(found)
    kept = template.exists() or template.is_symlink()
    if not kept:
        atomic_write(template, text)
    elif template.is_file() and template.read_text(encoding="utf-8", errors="replace") == text:
        kept = False  # the same template, unchanged: nothing was kept instead of written
    ours = page.is_file() and OUTPUT_MARKER in page.read_text(encoding="utf-8", errors="replace")
    if (page.exists() or page.is_symlink()) and not ours:
        raise InputError(f"{page} exists and is not EvalGate's labelling page: move it, so the page can be written")
    line = format_plan_for_reviewer(plan, Path(plan_path).name, plan_sha256)
    atomic_write(page, labelling_page_html(found, line, plan_sha256, template.name.removesuffix(".jsonl")))
    return LabelKit(template, page, len(found), kept)
