"""Labelling answers in the explorer: a reviewer marks correct / wrong and each sentence supported or not.

The labelling view shows what the labelling guide lets a reviewer see (question, reference,
the passages the model was shown, the answer) and never EvalGate's verdicts, so the labels
stay independent of the judge they measure. :class:`LabellingSession` holds the logic
(testable without a kernel): every mark is saved at once, atomically, through
:class:`~evalgate_lib.inputs.labels.LabelStore`, and a new session starts at the first answer
this reviewer has not labelled yet. :func:`labelling_widget` only wires it to ipywidgets.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any, Mapping, Sequence

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.labels import Label, LabelStore, SentenceLabel, answer_sha256
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.text.tokens import sentences_of

#: The three marks a sentence can get (``None``: it claims nothing).
SENTENCE_MARKS: dict[str, bool | None] = {"supported": True, "unsupported": False, "not a claim": None}


class LabellingSession:
    """One reviewer's pass over a run's answers, saved to a label file one mark at a time."""

    def __init__(self, rows: Sequence[ResultRow], store: LabelStore, reviewer: str, pass_number: int = 1) -> None:
        if not reviewer.strip():
            raise ValueError("a reviewer name is needed: labels say who made them")
        self.rows = list(rows)
        self.store = store
        self.reviewer = reviewer
        self.pass_number = pass_number
        self.position = self.first_unlabelled()

    def _key(self, row: ResultRow) -> tuple[str, str, str, str, int]:
        return (row.config, row.question_id, answer_sha256(row.answer), self.reviewer, self.pass_number)

    def first_unlabelled(self) -> int:
        """Where a resumed session starts: the first answer without this reviewer's label (0 when all are done)."""
        done = self.store.labelled_keys(reviewer=self.reviewer, pass_number=self.pass_number)
        return next((i for i, row in enumerate(self.rows) if self._key(row) not in done), 0)

    @property
    def current(self) -> ResultRow:
        return self.rows[self.position]

    def progress(self) -> tuple[int, int]:
        """``(labelled, total)`` for this reviewer and pass."""
        done = self.store.labelled_keys(reviewer=self.reviewer, pass_number=self.pass_number)
        return sum(self._key(row) in done for row in self.rows), len(self.rows)

    def go(self, step: int) -> ResultRow:
        """Move ``step`` answers forward (negative: back), wrapping around."""
        self.position = (self.position + step) % len(self.rows)
        return self.current

    def label(self) -> Label | None:
        """This reviewer's label of the current answer, if any."""
        row = self.current
        return self.store.get(row.config, row.question_id, answer_sha256(row.answer), self.reviewer, self.pass_number)

    def _base(self) -> Label:
        existing = self.label()
        if existing is not None:
            return existing
        row = self.current
        return Label(
            config=row.config,
            question_id=row.question_id,
            answer_sha256=answer_sha256(row.answer),
            correct=False,
            unsupported_claim=False,
            reviewer=self.reviewer,
            pass_number=self.pass_number,
            sentences=tuple(SentenceLabel(text, None) for text in sentences_of(row.answer)),
        )

    def mark_correct(self, correct: bool) -> Label:
        """Save the reviewer's correct / wrong verdict on the current answer."""
        label = replace(self._base(), correct=correct)
        self.store.put(label)
        return label

    def mark_sentence(self, index: int, supported: bool | None) -> Label:
        """Save one sentence's mark; ``unsupported_claim`` and ``unsupported_sentences`` follow from the marks."""
        base = self._base()
        sentences = list(base.sentences or ())
        if not 0 <= index < len(sentences):
            raise IndexError(f"the answer has {len(sentences)} sentence(s); no sentence {index}")
        sentences[index] = SentenceLabel(sentences[index].text, supported)
        unsupported = tuple(s.text for s in sentences if s.supported is False)
        label = replace(
            base, sentences=tuple(sentences), unsupported_claim=bool(unsupported), unsupported_sentences=unsupported
        )
        self.store.put(label)
        return label


def review_html(row: ResultRow, articles: Mapping[str, Article]) -> str:
    """What the reviewer sees: question, type, reference, the passages shown to the model, the answer. No verdicts."""
    e = html.escape
    parts = [
        f"<h4>{e(row.config)} · {e(row.question_id)} ({e(row.type)})</h4>",
        f"<p><b>Question:</b> {e(row.question)}</p>",
    ]
    if row.answerable:
        accept = ", ".join(f"<code>{e(a)}</code>" for a in row.accept)
        evidence = "".join(f"<li>{e(x)}</li>" for x in row.evidence or ())
        parts.append(f"<p><b>Reference:</b> {accept}</p><ul>{evidence}</ul>")
    else:
        parts.append(
            "<p><b>Reference:</b> none: the knowledge base does not answer this; only a refusal is correct.</p>"
        )
    for chunk in row.retrieved:
        article = articles.get(chunk.article_id)
        text = article.body[chunk.start : chunk.end] if article else "(article not found)"
        title = article.title if article else chunk.article_id
        parts.append(
            f"<details><summary>[{chunk.rank}] {e(title)}</summary>"
            f"<pre style='white-space:pre-wrap'>{e(text)}</pre></details>"
        )
    parts.append(f"<p><b>Answer:</b></p><pre style='white-space:pre-wrap'>{e(row.answer)}</pre>")
    return "".join(parts)


def labelling_widget(session: LabellingSession, articles: Sequence[Article]) -> Any:
    """ipywidgets front of a :class:`LabellingSession`: every click is saved before the next one."""
    import ipywidgets as widgets

    by_id = {a.id: a for a in articles}
    view = widgets.HTML()
    status = widgets.HTML()
    verdict = widgets.ToggleButtons(options=["(not marked)", "correct", "wrong"], description="Answer is")
    sentence_box = widgets.VBox()
    back, forward = widgets.Button(description="◀ previous"), widgets.Button(description="next ▶")
    loading = {"on": False}

    def on_verdict(change: Any) -> None:
        if not loading["on"] and change["new"] in ("correct", "wrong"):
            session.mark_correct(change["new"] == "correct")
            show_status()

    def sentence_toggle(index: int, text: str, mark: bool | None) -> Any:
        current = next(name for name, value in SENTENCE_MARKS.items() if value is mark)
        toggle = widgets.ToggleButtons(options=list(SENTENCE_MARKS), value=current, style={"button_width": "110px"})

        def on_change(change: Any) -> None:
            if not loading["on"]:
                session.mark_sentence(index, SENTENCE_MARKS[change["new"]])
                show_status()

        toggle.observe(on_change, names="value")
        return widgets.VBox([widgets.HTML(f"<code>{html.escape(text)}</code>"), toggle])

    def show_status() -> None:
        done, total = session.progress()
        where = html.escape(str(session.store.path))
        status.value = f"<p>{session.position + 1} of {total} · labelled {done} · saved to {where}</p>"

    def render() -> None:
        loading["on"] = True
        row = session.current
        label = session.label()
        view.value = review_html(row, by_id)
        verdict.value = "(not marked)" if label is None else ("correct" if label.correct else "wrong")
        marks = {s.text: s.supported for s in (label.sentences or ())} if label else {}
        sentence_box.children = [
            sentence_toggle(i, text, marks.get(text)) for i, text in enumerate(sentences_of(row.answer))
        ]
        loading["on"] = False
        show_status()

    verdict.observe(on_verdict, names="value")
    back.on_click(lambda _: (session.go(-1), render()))
    forward.on_click(lambda _: (session.go(1), render()))
    render()
    return widgets.VBox([widgets.HBox([back, forward]), status, view, verdict, sentence_box])
