"""The flag explorer: pick a config and a flag, step through the flagged answers.

The logic (which rows carry a flag, why a flag fired, the HTML of one row) is
plain functions, testable without a kernel; :mod:`evalgate_lib.workbench.explorer_widget` only wires
them to ipywidgets. Every string from the model or the gold file is escaped.
"""

from __future__ import annotations

import html
from typing import Iterable, Mapping, Sequence

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.judging.flags import review_priority
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow, row_passages
from evalgate_lib.judging.trace import explain
from evalgate_lib.reporting.plots import sentences_html
from evalgate_lib.reporting.spans import marked_chunk_html
from evalgate_lib.reporting.trace_view import TRACE_CSS, explanation_html

#: Display label → flag key in a row's ``flags``; ``None`` means every row.
FLAG_CHOICES: dict[str, str | None] = {
    "Wrong": "wrong",
    "Hallucination": "hallucination",
    "Grounded-but-wrong": "grounded_but_wrong",
    "Review queue": "review",
    "Unsupported claim": "unsupported_claim",
    "All answers": None,
}

FLAG_LABELS: dict[str, str] = {key: label for label, key in FLAG_CHOICES.items() if key is not None}


def filter_rows(rows: Iterable[ResultRow], config: str | None = None, flag: str | None = None) -> list[ResultRow]:
    """Rows of ``config`` (all configs if ``None``) that carry ``flag`` (a key or a label; ``None``: all).

    The review queue comes in its reading order (:func:`evalgate_lib.judging.flags.review_priority`: open
    verdicts first, then the thinnest support; ties in row order), so a reviewer who stops early has read
    the answers most likely to be the judge's errors; every other flag keeps the rows' order.
    """
    key = FLAG_CHOICES.get(flag, flag) if flag is not None else None
    if key is not None and key not in FLAG_LABELS:
        raise ValueError(f"unknown flag {flag!r}; choose one of {list(FLAG_CHOICES)} or {list(FLAG_LABELS)}")
    hits = [r for r in rows if (config is None or r.config == config) and (key is None or r.flags.fired(key))]
    if key == "review":
        hits.sort(key=lambda r: tuple(-x for x in review_priority(r.flags, r.sentences, r.confidence)))
    return hits


def flag_counts(rows: Iterable[ResultRow]) -> dict[str, dict[str, int]]:
    """``{config: {flag: count}}`` for every flag (:data:`~evalgate_lib.judging.rows.FLAG_NAMES`)."""
    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        per = counts.setdefault(r.config, {key: 0 for key in FLAG_LABELS})
        for key in FLAG_LABELS:
            per[key] += r.flags.fired(key)
    return counts


def flag_reasons(row: ResultRow) -> dict[str, str]:
    """Why every flag that fired on ``row`` fired, as the flag itself records it (an empty dict when none did)."""
    return {key: "; ".join(row.flags.reasons.get(key, ())) for key in FLAG_NAMES if row.flags.fired(key)}


def chunk_texts(articles: Iterable[Article]) -> dict[str, str]:
    """Article bodies by id, from which a retrieved chunk rebuilds its text (``RetrievedChunk.text_in``)."""
    return {a.id: a.body for a in articles}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def describe_row(row: ResultRow, bodies: Mapping[str, str] | None = None) -> str:
    """HTML for one result row: question, answer, accepted strings, retrieval, sentence coverage, flags and why.

    ``bodies`` (from :func:`chunk_texts`) adds the whole text of each retrieved chunk, every sentence's supporting
    span marked in it (:func:`~evalgate_lib.reporting.spans.marked_chunk_html`): cut at 400 characters, a chunk
    hid the span that supports a sentence from a reviewer in 76 of the 254 such sentences of the shipped pair.
    """
    e = html.escape
    verdict = "correct" if row.correct else "wrong"
    accept = ", ".join(f"<code>{e(a)}</code>" for a in row.accept) or "(none: a no-answer question)"
    parts = [
        '<div class="eg-describe">',
        f"<h4>{e(row.config)} · {e(row.question_id)} ({e(row.type)}) — {verdict}</h4>",
        f"<p><b>Question:</b> {e(row.question)}</p>",
        f"<p><b>Answer:</b></p><pre style='white-space:pre-wrap'>{e(row.answer)}</pre>",
        f"<p><b>Accepted strings:</b> {accept}"
        + (f" · <b>matched:</b> <code>{e(row.matched)}</code>" if row.matched else "")
        + f" · <b>gold article:</b> {e(str(row.gold_article))}</p>",
        f"<p><b>Groundedness:</b> {_fmt(row.groundedness)} · <b>confidence:</b> {_fmt(row.confidence)}"
        f" · <b>top similarity:</b> {_fmt(row.top_similarity)}"
        f" · <b>retrieval hit:</b> {e(str(row.retrieval_hit))}</p>",
    ]
    parts.append(
        "<table class='eg-retrieved'><thead><tr><th>rank</th><th>chunk</th><th>similarity</th>"
        + ("<th>text</th>" if bodies else "")
        + "</tr></thead><tbody>"
    )
    for r in row.retrieved:
        gold = " (gold article)" if r.article_id == row.gold_article else ""
        # text cells left-aligned explicitly: Jupyter's HTML rendering right-aligns table cells
        cells = f"<td>{r.rank}</td><td style='text-align:left'>{e(r.chunk_id)}{gold}</td><td>{r.similarity:.3f}</td>"
        if bodies:
            text = r.text_in(bodies) or ""
            pre = "white-space:pre-wrap;margin:0;text-align:left"
            cells += (
                f"<td style='text-align:left'><pre style='{pre}'>{marked_chunk_html(text, row.sentences)}</pre></td>"
            )
        parts.append(f"<tr>{cells}</tr>")
    parts.append("</tbody></table>")
    parts.append(f"<p><b>Per-sentence support</b> (scorer {e(row.scorer)}):</p>" + sentences_html(row))
    reasons = flag_reasons(row)
    if reasons:
        items = "".join(f"<li><b>{e(FLAG_LABELS[k])}</b>: {e(v)}</li>" for k, v in reasons.items())
        parts.append(f"<p><b>Flags and why they fired:</b></p><ul>{items}</ul>")
    else:
        parts.append("<p><b>Flags:</b> none fired.</p>")
    trace = explain(row.judgement, row.question, row.answer, row.config, row.question_id, row_passages(row))
    parts.append(
        f"<style>{TRACE_CSS}</style><details><summary><b>Why: the trace</b> (every rule tried, in order, with its "
        "evidence; <code>evalgate explain</code>)</summary>" + explanation_html(trace) + "</details>"
    )
    parts.append("</div>")
    return "\n".join(parts)


def flagged_html(
    rows: Sequence[ResultRow],
    config: str,
    flag: str,
    bodies: Mapping[str, str] | None = None,
    shown: int = 2,
) -> str:
    """The static view of notebook 04 for one config: a heading with how many answers carry ``flag``,
    then :func:`describe_row` of the first ``shown`` of them.

    The heading names the config and the flag (user text: a config name, a papermill parameter), so it
    is escaped HTML, not a Markdown string built in a cell, which let raw HTML through.
    """
    hits = filter_rows(rows, config, flag)
    e = html.escape
    heading = f"<h3>{e(config)}: {len(hits)} answer(s) flagged {e(flag)}</h3>"
    return "\n".join([heading, *(describe_row(row, bodies) for row in hits[: max(shown, 0)])])
