"""The details of one answer, as a reviewer needs them: what the model read and why each verdict is what it is.

A reviewer checking a flag wants the retrieved chunks' *text* (not only their ids) with the
passage that supports each sentence marked in it, each sentence's verdict with the scorer's
reason, the reasons every flag carries and, when reviewers labelled the run, their verdicts
beside the automatic ones. :func:`details_html` renders that for the answer table's full-width
details row; which characters of a chunk support which sentence is :mod:`evalgate_lib.reporting.spans`'
(shared with the explorer), a plain function of strings so a test can check the marking by hand.

Every string from the model, the gold file or the corpus is HTML-escaped.
"""

from __future__ import annotations

import html
from typing import Mapping, Sequence

from evalgate_lib.inputs.labels import Label
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow, RetrievedChunk, row_passages
from evalgate_lib.judging.trace import explain
from evalgate_lib.reporting.explorer import FLAG_LABELS
from evalgate_lib.reporting.plots import token_marks_html, verdict_word
from evalgate_lib.reporting.spans import marked_chunk_html, span_segments, span_unit
from evalgate_lib.reporting.trace_view import TRACE_CSS, explanation_html

e = html.escape

#: Details-row rules: the sentence table full width, the chunks in as many columns as fit.
DETAILS_CSS = """
.eg-details { padding: 6px 4px; }
.eg-details h5 { margin: 0.6em 0 0.3em; font-size: 13px; }
.eg-report table.eg-sentences, .eg-report table.eg-labels { width: 100% !important; table-layout: auto !important; }
.eg-chunks { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 30em), 1fr)); gap: 8px; }
.eg-chunk { border: 1px solid #ddd; background: #fafafa; padding: 4px 6px; min-width: 0; }
.eg-chunk-head { font-size: 12px; color: #444; margin-bottom: 3px; }
.eg-report .eg-chunk-text { white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal !important;
  font-family: ui-monospace, monospace; font-size: 12px; margin: 0; }
.eg-report mark.eg-span { padding: 0 1px; border-radius: 2px; }
.eg-report mark.eg-span-supported { background: #a5d6a7; }
.eg-report mark.eg-span-unsupported { background: #ffe082; }
.eg-snum { display: inline-block; min-width: 1.4em; text-align: center; border-radius: 3px; font-size: 11px;
  font-weight: 700; background: #e0e0e0; }
.eg-reviewer { color: #4a148c; }
""" + TRACE_CSS


def _reviewer_sentence(label: Label, text: str) -> str:
    if label.sentences is not None:
        for s in label.sentences:
            if s.text == text:
                return "no claim" if s.supported is None else ("supported" if s.supported else "unsupported")
    if any(u in text or text in u for u in label.unsupported_sentences):
        return "unsupported"
    return "—"


def _who(label: Label) -> str:
    return f"{label.reviewer} (pass {label.pass_number})"


def sentences_table_html(
    row: ResultRow, labels: Sequence[Label] = (), chunk_ranks: Mapping[int, list[int]] | None = None
) -> str:
    """Each answer sentence: tokens marked found / missing, the scorer's verdict and reason, where its span is.

    With ``labels`` (reviewers' labels of this exact answer), one more column per label gives
    the reviewer's verdict on the sentence. ``chunk_ranks`` maps a sentence number to the ranks
    of the retrieved chunks its span was found in.
    """
    head = "".join(f'<th class="eg-reviewer">{e(_who(lb))}</th>' for lb in labels)
    lines = [
        '<table class="eg-sentences"><thead><tr><th>#</th>'
        "<th>sentence (green: held by the span its verdict names, red: not)</th>"
        f"<th>EvalGate ({e(row.scorer)})</th><th>why</th><th>supporting span</th>{head}</tr></thead><tbody>"
    ]
    for number, s in enumerate(row.sentences, start=1):
        ranks = (chunk_ranks or {}).get(number, [])
        where = f" <small>(marked in chunk {', '.join(f'#{r}' for r in ranks)})</small>" if ranks else ""
        span = f"{e(span_unit(s.span))}{where}" if s.span else "—"
        reviewers = "".join(f'<td class="eg-reviewer">{e(_reviewer_sentence(lb, s.text))}</td>' for lb in labels)
        lines.append(
            f'<tr><td><span class="eg-snum">{number}</span></td><td>{token_marks_html(s)}</td>'
            f"<td>{e(verdict_word(s))}</td><td>{e(s.reason)}</td><td>{span}</td>{reviewers}</tr>"
        )
    if not row.sentences:
        lines.append(f'<tr><td colspan="{5 + len(labels)}">(empty answer)</td></tr>')
    lines.append("</tbody></table>")
    return "".join(lines)


def _yes_no(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "no")


def labels_table_html(row: ResultRow, labels: Sequence[Label]) -> str:
    """The answer-level verdicts of EvalGate and of each reviewer side by side (empty without labels)."""
    if not labels:
        return ""
    head = "".join(f'<th class="eg-reviewer">{e(_who(lb))}</th>' for lb in labels)
    auto_unsupported = row.flags.unsupported_claim
    lines = [
        ("answer correct", _yes_no(row.correct), [_yes_no(lb.correct) for lb in labels]),
        ("an unsupported claim", _yes_no(auto_unsupported), [_yes_no(lb.unsupported_claim) for lb in labels]),
        ("a refusal", _yes_no(row.refused), [_yes_no(lb.refusal) for lb in labels]),
    ]
    body = "".join(
        f"<tr><td>{e(name)}</td><td>{e(auto)}</td>"
        + "".join(f'<td class="eg-reviewer">{e(v)}</td>' for v in theirs)
        + "</tr>"
        for name, auto, theirs in lines
    )
    comments = "".join(
        f'<li class="eg-reviewer"><b>{e(_who(lb))}</b>: {e(lb.comment)}</li>' for lb in labels if lb.comment
    )
    return (
        "<h5>EvalGate and the reviewers</h5>"
        f'<table class="eg-labels"><thead><tr><th>judgement</th><th>EvalGate</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>" + (f"<ul>{comments}</ul>" if comments else "")
    )


#: The chunk text's own rule, inline: a chunk reads as written (a table's rows, code's lines and indentation) even
#: where the page's ``<style>`` is gone (JupyterLab drops it from an untrusted notebook's output and keeps an
#: element's ``style``); a ``<pre>`` keeps the lines even without it.
_KEEP_LINES = "white-space:pre-wrap;overflow-wrap:anywhere;margin:0"


def assembly_note(chunk: RetrievedChunk) -> str:
    """For a logged passage made of several spans: which spans of which articles, and what joined them."""
    if chunk.assembly is None:
        return ""
    pieces = ", ".join(f"<code>{e(p.article_id)}</code> [{p.start}, {p.end})" for p in chunk.assembly.pieces)
    joins = [j for j in chunk.assembly.joins if j]
    joined = "; joined by " + ", ".join(f"<code>{e(repr(j))}</code>" for j in joins) if joins else ""
    many = "spans" if len(chunk.assembly.pieces) > 1 else "span"
    count = len(chunk.assembly.pieces)
    return f'<div class="eg-chunk-assembly">a passage made of {count} {many}: {pieces}{joined}</div>'


def chunks_html(row: ResultRow, bodies: Mapping[str, str] | None) -> tuple[str, dict[int, list[int]]]:
    """The retrieved chunks with their text and marked spans, and which chunks each sentence's span was found in."""
    found: dict[int, list[int]] = {}
    cards = []
    for chunk in row.retrieved:
        gold = " · <b>gold article</b>" if chunk.article_id == row.gold_article else ""
        head = (
            f'<div class="eg-chunk-head">#{chunk.rank} <code>{e(chunk.chunk_id)}</code> · '
            f"similarity {chunk.similarity:.3f}{gold}</div>"
        )
        text = None if bodies is None else chunk.text_in(bodies)
        if bodies is None or (chunk.article_id not in bodies and chunk.assembly is None):
            body = "<i>chunk text not available (the run's corpus was not found)</i>"
        elif text is None:
            # a passage from an answer log (evalgate score) whose text is not a verbatim part of its article
            body = "<i>passage text not found verbatim in its article; it is in the answer log the manifest names</i>"
        else:
            for _, numbers in span_segments(text, [s.span for s in row.sentences]):
                for n in numbers:
                    if chunk.rank not in found.setdefault(n, []):
                        found[n].append(chunk.rank)
            marked = marked_chunk_html(text, row.sentences)
            body = assembly_note(chunk) + f'<pre class="eg-chunk-text" style="{_KEEP_LINES}">{marked}</pre>'
        cards.append(f'<div class="eg-chunk">{head}{body}</div>')
    return f'<div class="eg-chunks">{"".join(cards)}</div>', found


def details_html(row: ResultRow, bodies: Mapping[str, str] | None = None, labels: Sequence[Label] = ()) -> str:
    """Everything behind one answer's verdicts, for the answer table's full-width details row.

    The page that shows it includes :data:`DETAILS_CSS` once (not once per answer).

    ``bodies`` maps article ids to their text (:func:`~evalgate_lib.reporting.explorer.chunk_texts`),
    so the retrieved chunks show their text; ``labels`` are reviewers' labels of this exact answer.
    """
    chunks, found = chunks_html(row, bodies)
    matching = row.matching
    gold_rank = None if row.retrieval_metrics is None else row.retrieval_metrics.gold_rank
    reasons = "".join(
        f"<li><b>{e(FLAG_LABELS[key])}</b>: {e('; '.join(row.flags.reasons.get(key, ())) or 'fired')}</li>"
        for key in FLAG_NAMES
        if row.flags.fired(key)
    )
    return (
        '<div class="eg-details">'
        f"<p><b>Verdict</b> ({e(matching.mode)} matching): {e(matching.reason)}"
        + (f" · gold article <code>{e(row.gold_article)}</code>" if row.gold_article else "")
        + (f", first retrieved at rank {gold_rank}" if gold_rank else "")
        + f' · <a href="#{trace_anchor(row)}">why: the trace</a>'
        + "</p>"
        + (f"<h5>Flags and why they fired</h5><ul>{reasons}</ul>" if reasons else "<p>No flag fired.</p>")
        + labels_table_html(row, labels)
        + "<h5>Sentence by sentence</h5>"
        + sentences_table_html(row, labels, found)
        + f"<h5>Retrieved chunks (top {len(row.retrieved)}), supporting spans marked</h5>{chunks}"
        + "<details><summary><b>The trace: every rule tried, in order, with its evidence</b> "
        "(<code>evalgate explain</code>)</summary>"
        + explanation_html(
            explain(row.judgement, row.question, row.answer, row.config, row.question_id, row_passages(row)),
            trace_anchor(row),
        )
        + "</details></div>"
    )


def trace_anchor(row: ResultRow) -> str:
    """The element id of one answer's trace in the report (what its "why" links to)."""
    return "trace-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in f"{row.config}-{row.question_id}")
