"""Labelling answers (notebook 06): a reviewer marks correct / wrong and each sentence supported or not.

Labels are measurements: a mark the reviewer did not choose must never reach the file.
So no toggle has a default, and an answer is saved only once its verdict and every
sentence have been set (see :class:`Draft`).

**Blind by construction.** The labelling view shows what the labelling guide lets a reviewer see
(question, reference, the passages the model was shown, the answer). EvalGate's verdicts, flags,
support figures and highlights of an answer are rendered only through
:meth:`LabellingSession.render_verdicts`, which in the blind flow returns nothing until that answer's
label is saved, and records every answer whose verdicts it did render. Each label's
``verdicts_hidden`` is written from that record, not assumed: a blind label saved, then changed after
its verdicts appeared, is saved again with ``verdicts_hidden: false``. The *audit* flow
(:data:`~evalgate_lib.inputs.labels.AUDIT`) shows the verdicts from the start, for a reviewer who judges
them, and every label it saves says so (``mode``). Notebook 06 holds nothing else that shows a verdict;
the explorer (notebook 04) shows every verdict and has no labelling view.

:class:`LabellingSession` holds the logic (testable without a kernel): a fully marked answer is
saved at once, atomically, through :class:`~evalgate_lib.inputs.labels.LabelStore`, and a new
session starts at the first answer this reviewer has not labelled yet. Given a sampling plan's rows
(in the plan's order) and its SHA-256, a session opens on the plan's next unlabelled answer and
every label records the plan, so the labels can correct the before/after delta
(:mod:`evalgate_lib.statistics.label_correction`). :func:`labelling_widget` only wires it to ipywidgets.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.labels import (
    AUDIT,
    BLIND,
    MODES,
    Label,
    LabelConflict,
    LabelStore,
    SentenceLabel,
    answer_sha256,
)
from evalgate_lib.inputs.seen import SeenRecord, Sighting
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.reporting.explorer import describe_row
from evalgate_lib.text.tokens import sentences_of

#: The three marks a sentence can get (``None``: it claims nothing).
SENTENCE_MARKS: dict[str, bool | None] = {"supported": True, "unsupported": False, "not a claim": None}


class _Unset:
    """The mark of a sentence the reviewer has not clicked yet (distinct from ``None``, "not a claim")."""

    def __repr__(self) -> str:
        return "UNSET"


#: A sentence or verdict nobody has chosen yet: nothing is ever saved in its place.
UNSET: Any = _Unset()


@dataclass
class Draft:
    """The marks made so far on one answer: the answer verdict and one mark per sentence, each possibly unset.

    A label is written only from a complete draft, so no field of a saved label is a default
    the reviewer did not choose.
    """

    sentences: tuple[str, ...]
    correct: bool | Any = UNSET
    marks: list[bool | None | Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.marks:
            self.marks = [UNSET] * len(self.sentences)

    @property
    def missing(self) -> list[str]:
        """What is still to be marked, in words ("the answer's verdict", "sentence 2")."""
        todo = ["the answer's verdict"] if self.correct is UNSET else []
        return todo + [f"sentence {i + 1}" for i, mark in enumerate(self.marks) if mark is UNSET]

    @property
    def complete(self) -> bool:
        return not self.missing


class LabellingSession:
    """One reviewer's pass over a run's answers, saved to a label file once each answer is fully marked.

    Nothing has a default: an answer's verdict and every sentence start unmarked, and the
    label is written (atomically, through :class:`LabelStore`) only when the reviewer has set
    the verdict and every sentence. Partial marks live in the session until the answer is
    complete, so a label on disk is always one the reviewer chose in full.

    **Blindness is a fact about the reviewer and the answer**, read from the record of what each
    reviewer has been shown (:class:`~evalgate_lib.inputs.seen.SeenRecord`, in the label file's
    folder): :meth:`render_verdicts` writes each answer's sighting down before it returns the
    verdicts, and a label is saved with ``verdicts_hidden: true`` only when its reviewer has never
    been shown that answer's verdicts, in this session or any earlier one.

    **A saved label is changed only on request.** Marks on an answer this reviewer has already
    labelled in this pass raise until :meth:`relabel` opens it (the new label keeps the earlier one
    in its ``history``); a label made under another plan (or none) can instead be taken for this
    plan with :meth:`adopt`. **Another reviewer's label of the answer in this pass** makes the save
    raise :class:`~evalgate_lib.inputs.labels.LabelConflict`; :meth:`switch_pass` saves it as the
    pass it names instead.
    """

    def __init__(
        self,
        rows: Sequence[ResultRow],
        store: LabelStore,
        reviewer: str,
        pass_number: int = 1,
        plan_sha256: str | None = None,
        mode: str = BLIND,
        seen: SeenRecord | None = None,
    ) -> None:
        if not reviewer.strip():
            raise ValueError("a reviewer name is needed: labels say who made them")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
        if isinstance(pass_number, bool) or not isinstance(pass_number, int) or pass_number < 1:
            raise ValueError(f"the pass must be a whole number from 1 (1, 2, ...), got {pass_number!r}")
        #: :data:`~evalgate_lib.inputs.labels.BLIND` (verdicts only after the label is saved) or ``AUDIT``.
        self.mode = mode
        #: The answers whose EvalGate verdicts this session has rendered.
        self._rendered: set[tuple[str, str, str, str, int]] = set()
        #: Answers with a saved label the reviewer asked to label again (:meth:`relabel`).
        self._opened: set[tuple[str, str, str, str, int]] = set()
        self.rows = list(rows)
        self.store = store
        #: What each reviewer has been shown, in the label file's folder: what ``verdicts_hidden`` is written from.
        self.seen = seen if seen is not None else SeenRecord.beside(store.path)
        self.reviewer = reviewer
        self.pass_number = pass_number
        #: The sampling plan the rows were drawn by (its file's SHA-256), recorded in every label saved.
        self.plan_sha256 = plan_sha256
        self._drafts: dict[tuple[str, str, str, str, int], Draft] = {}
        self.position = self.first_unlabelled()

    def _key(self, row: ResultRow) -> tuple[str, str, str, str, int]:
        return (row.config, row.question_id, answer_sha256(row.answer), self.reviewer, self.pass_number)

    def _done(self) -> set[tuple[str, str, str, str, int]]:
        """This reviewer's saved labels in this pass (under a plan: only those that record the plan)."""
        done = self.store.labelled_keys(reviewer=self.reviewer, pass_number=self.pass_number)
        if self.plan_sha256 is None:
            return done
        return {lb.key for lb in self.store.labels() if lb.key in done and lb.plan_sha256 == self.plan_sha256}

    def first_unlabelled(self) -> int:
        """Where a resumed session starts: the first answer without this reviewer's label (0 when all are done)."""
        done = self._done()
        return next((i for i, row in enumerate(self.rows) if self._key(row) not in done), 0)

    @property
    def current(self) -> ResultRow:
        return self.rows[self.position]

    def progress(self) -> tuple[int, int]:
        """``(labelled, total)`` for this reviewer and pass: only complete labels count."""
        done = self._done()
        return sum(self._key(row) in done for row in self.rows), len(self.rows)

    def go(self, step: int) -> ResultRow:
        """Move ``step`` answers forward (negative: back), wrapping around."""
        self.position = (self.position + step) % len(self.rows)
        return self.current

    def saved(self) -> Label | None:
        """This reviewer's saved label of the current answer in this pass, whatever plan it was made under."""
        row = self.current
        return self.store.get(row.config, row.question_id, answer_sha256(row.answer), self.reviewer, self.pass_number)

    def label(self) -> Label | None:
        """This reviewer's saved label of the current answer, if it counts here (under a plan: one made under it).

        A label made outside the plan is not this session's: :meth:`adopt` takes it for the plan, or
        :meth:`relabel` labels the answer again (the earlier label stays in the new one's history).
        """
        saved = self.saved()
        if saved is not None and self.plan_sha256 is not None and saved.plan_sha256 != self.plan_sha256:
            return None
        return saved

    def state(self) -> str:
        """The current answer for this reviewer: ``new`` (no label), ``labelled`` (a label that counts here),
        ``earlier`` (a label made under another plan or none), ``relabelling`` (opened by :meth:`relabel`)."""
        if self._key(self.current) in self._opened:
            return "relabelling"
        if self.saved() is None:
            return "new"
        return "labelled" if self.label() is not None else "earlier"

    def seen_before(self) -> bool:
        """Whether this reviewer has been shown EvalGate's verdicts of the current answer, here or ever before."""
        return self.verdicts_rendered() or self.seen.seen(self.reviewer, answer_sha256(self.current.answer))

    def draft(self) -> Draft:
        """The marks on the current answer: the saved label's, or what has been clicked so far (possibly nothing)."""
        row = self.current
        key = self._key(row)
        if key not in self._drafts:
            sentences = sentences_of(row.answer)
            saved = self.saved()
            if saved is None or (self.state() == "earlier"):
                self._drafts[key] = Draft(sentences)
            else:
                self._drafts[key] = _draft_of(saved, sentences)
        return self._drafts[key]

    def relabel(self) -> Draft:
        """Open the current answer's saved label to be changed: the next complete marks save a new label that keeps
        the earlier one in its ``history`` (and says whether its reviewer had seen the verdicts by then)."""
        saved = self.saved()
        if saved is None:
            raise ValueError("this answer has no label of yours to change: mark it")
        key = self._key(self.current)
        self._opened.add(key)
        self._drafts[key] = _draft_of(saved, sentences_of(self.current.answer))
        return self._drafts[key]

    def adopt(self) -> Label:
        """Take this reviewer's earlier label of the current answer (made under another plan, or none) for this plan:
        saved again recording this plan, as blind as it was made, the earlier version kept in its ``history``."""
        saved = self.saved()
        if saved is None or self.state() != "earlier":
            raise ValueError("adopt takes a label made under another plan (or none) for this one: this answer has none")
        label = self.store.put(replace(saved, plan_sha256=self.plan_sha256))
        self._drafts.pop(self._key(self.current), None)
        return label

    def verdicts_due(self) -> bool:
        """Whether the current answer's verdicts may be shown: in an audit always; blind, once its label is saved."""
        return self.mode == AUDIT or self.label() is not None

    def verdicts_rendered(self) -> bool:
        """Whether this session has rendered the current answer's verdicts (through :meth:`render_verdicts`)."""
        return self._key(self.current) in self._rendered

    def render_verdicts(self, bodies: Mapping[str, str] | None = None) -> str:
        """EvalGate's verdicts, flags, reasons and support figures of the current answer as HTML, when due; else "".

        The one way this session shows a verdict: call it only to display what it returns. It writes the
        sighting down first (:class:`~evalgate_lib.inputs.seen.SeenRecord`), so any label of this answer
        this reviewer saves from now on, in any session, records ``verdicts_hidden: false``.
        """
        if not self.verdicts_due():
            return ""
        row = self.current
        view = "audit labelling" if self.mode == AUDIT else "blind labelling, after the label was saved"
        self.seen.record(Sighting(self.reviewer, row.config, row.question_id, answer_sha256(row.answer), view))
        self._rendered.add(self._key(row))
        return describe_row(row, bodies)

    def _save_if_complete(self, draft: Draft) -> Label | None:
        if not draft.complete:
            return None
        row = self.current
        hidden = not self.seen_before()
        if self.mode == AUDIT and hidden:
            raise ValueError("an audit label is made seeing EvalGate's verdicts: render them first (render_verdicts)")
        sentences = tuple(SentenceLabel(t, m) for t, m in zip(draft.sentences, draft.marks, strict=True))
        unsupported = tuple(s.text for s in sentences if s.supported is False)
        label = Label(
            config=row.config,
            question_id=row.question_id,
            answer_sha256=answer_sha256(row.answer),
            correct=bool(draft.correct),
            unsupported_claim=bool(unsupported),
            reviewer=self.reviewer,
            pass_number=self.pass_number,
            unsupported_sentences=unsupported,
            sentences=sentences,
            plan_sha256=self.plan_sha256,
            verdicts_hidden=hidden,  # whether this reviewer had ever been shown them, not what the view intends
            mode=self.mode,
        )
        saved = self.saved()
        if saved is not None:  # keep what the widget does not edit (refusal, comment)
            label = replace(label, refusal=saved.refusal, comment=saved.comment)
        return self.store.put(label)

    def _mark(self) -> Draft:
        if self.state() in ("labelled", "earlier"):
            row = self.current
            raise ValueError(
                f"{row.config} {row.question_id} already has your label: relabel() to change it (the earlier label "
                "stays in the new one's history)"
                + (", or adopt() to take it for this plan" if self.state() == "earlier" else "")
            )
        return self.draft()

    def mark_correct(self, correct: bool) -> Label | None:
        """Record the reviewer's correct / wrong verdict; returns the saved label once the answer is fully marked."""
        draft = self._mark()
        draft.correct = correct
        return self._save_if_complete(draft)

    def mark_sentence(self, index: int, supported: bool | None) -> Label | None:
        """Record one sentence's mark (``None``: not a claim); returns the saved label once the answer is complete.

        ``unsupported_claim`` and ``unsupported_sentences`` follow from the marks.
        """
        draft = self._mark()
        if not 0 <= index < len(draft.marks):
            raise IndexError(f"the answer has {len(draft.marks)} sentence(s); no sentence {index}")
        draft.marks[index] = supported
        return self._save_if_complete(draft)

    def switch_pass(self, pass_number: int) -> Label | None:
        """Label from now on as ``pass_number`` (the choice a :class:`LabelConflict` offers), and save the current
        answer's marks as that pass's label when they are complete."""
        if isinstance(pass_number, bool) or not isinstance(pass_number, int) or pass_number < 1:
            raise ValueError(f"the pass must be a whole number from 1, got {pass_number!r}")
        draft = self.draft()
        self.pass_number = pass_number
        key = self._key(self.current)
        self._drafts.setdefault(key, draft)
        return self._save_if_complete(self._drafts[key]) if self.state() in ("new", "relabelling") else None


def _draft_of(label: Label, sentences: tuple[str, ...]) -> Draft:
    """A draft holding a saved label's marks (a sentence it has no mark for stays unmarked)."""
    marks = {s.text: s.supported for s in label.sentences or ()}
    return Draft(sentences, label.correct, [marks.get(t, UNSET) for t in sentences])


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
    bodies = {article_id: article.body for article_id, article in articles.items()}
    for chunk in row.retrieved:
        article = articles.get(chunk.article_id)
        text = chunk.text_in(bodies) if article else None
        text = "(article not found)" if text is None else text
        title = article.title if article else chunk.article_id
        parts.append(
            f"<details><summary>[{chunk.rank}] {e(title)}</summary>"
            f"<pre style='white-space:pre-wrap'>{e(text)}</pre></details>"
        )
    parts.append(f"<p><b>Answer:</b></p><pre style='white-space:pre-wrap'>{e(row.answer)}</pre>")
    return "".join(parts)


#: What the verdicts panel says in the blind flow while the current answer's label is not saved yet.
VERDICTS_LATER = (
    "<p class='eg-verdicts-later'><i>EvalGate's verdicts of this answer appear here once your label is saved.</i></p>"
)


def _verdicts_panel(session: LabellingSession, bodies: Mapping[str, str]) -> str:
    shown = session.render_verdicts(bodies)
    if not shown:
        return VERDICTS_LATER
    why = (
        "audit: judge them as you label"
        if session.mode == AUDIT
        else "shown because your label of this answer is saved"
    )
    return f"<hr><p><b>EvalGate's verdicts</b> ({why}):</p>{shown}"


def notice_html(session: LabellingSession) -> str:
    """What the labelling view says about the current answer's earlier labels and sightings (escaped HTML)."""
    e = html.escape
    state = session.state()
    saved = session.saved()
    if state == "labelled":
        return (
            "<p class='eg-notice'>Your label of this answer is saved. To change it, choose <b>Change my label</b>: "
            "the new label records that you have seen EvalGate's verdicts of this answer"
            + ("" if session.seen_before() else " (if you have by then)")
            + ", and keeps this one in its history.</p>"
        )
    if state == "earlier" and saved is not None:
        how = "blind" if saved.verdicts_hidden is True else (
            "seeing EvalGate's verdicts" if saved.verdicts_hidden is False else "(the file does not say whether blind)"
        )  # fmt: skip
        where = "outside any plan" if saved.plan_sha256 is None else f"under another plan ({saved.plan_sha256[:12]}…)"
        now = (
            "you have been shown EvalGate's verdicts of this answer since, so a new label records that it is not blind"
            if session.seen_before()
            else "a new label is blind only if you have not seen its verdicts"
        )
        return (
            f"<p class='eg-notice'>You labelled this answer before, {e(how)}, {e(where)}. <b>Use that label</b> for "
            f"this plan (it stays as blind as it was made), or <b>label it again</b>: {e(now)}; either way the "
            "earlier label stays in the file, in the new one's history.</p>"
        )
    if state in ("new", "relabelling") and session.seen_before():
        return (
            "<p class='eg-notice'>You have been shown EvalGate's verdicts of this answer before: your label of it "
            "will record that it is not blind.</p>"
        )
    return ""


def labelling_widget(
    session: LabellingSession, articles: Sequence[Article], progress: Callable[[], Any] | None = None
) -> Any:
    """ipywidgets front of a :class:`LabellingSession`. Every toggle starts unselected; nothing is preselected.

    The status line says what is still unmarked on the current answer; the label is saved
    as soon as the verdict and every sentence are set. A saved label's toggles are locked until the
    reviewer asks to change it (*Change my label*, or for a label made under another plan *Use that
    label* / *Label it again*); another reviewer's label of the answer in this pass stops the save with
    a message and a *Label as pass N* button. Below the marks, EvalGate's verdicts of the answer: in
    the blind flow only once its label is saved (:meth:`LabellingSession.render_verdicts`).
    ``progress`` (a function drawing a chart, e.g. the corrected delta's interval under a plan) is
    redrawn below everything after every save, so it counts each label as soon as it is saved.
    """
    import ipywidgets as widgets

    from evalgate_lib.workbench.charts import show_chart

    by_id = {a.id: a for a in articles}
    bodies = {a.id: a.body for a in articles}
    view = widgets.HTML()
    status = widgets.HTML()
    notice = widgets.HTML()
    change = widgets.Button(description="Change my label")
    use = widgets.Button(description="Use that label")
    again = widgets.Button(description="Label it again")
    other_pass = widgets.Button(description="Label as pass 2")
    choices = widgets.HBox()
    verdict = widgets.ToggleButtons(options=["correct", "wrong"], value=None, description="Answer is")
    sentence_box = widgets.VBox()
    verdicts = widgets.HTML()
    chart = widgets.Output()
    back, forward = widgets.Button(description="◀ previous"), widgets.Button(description="next ▶")
    loading = {"on": False}
    conflict: dict[str, LabelConflict | None] = {"now": None}

    def redraw() -> None:
        if progress is not None:
            with chart:
                chart.clear_output(wait=True)
                show_chart(progress())

    def saved(label: Label | None) -> None:
        show_status()
        verdicts.value = _verdicts_panel(session, bodies)
        if label is not None:
            redraw()
            render()

    def attempt(mark: Callable[[], Label | None]) -> None:
        try:
            label = mark()
        except LabelConflict as exc:
            conflict["now"] = exc
            other_pass.description = f"Label as pass {exc.free_pass}"
            show_notice()
            return
        conflict["now"] = None
        saved(label)

    def on_verdict(change_: Any) -> None:
        if not loading["on"] and change_["new"] in ("correct", "wrong"):
            attempt(lambda: session.mark_correct(change_["new"] == "correct"))

    def sentence_toggle(index: int, text: str, mark: bool | None | Any, locked: bool) -> Any:
        current = None if mark is UNSET else next(name for name, value in SENTENCE_MARKS.items() if value is mark)
        toggle = widgets.ToggleButtons(
            options=list(SENTENCE_MARKS), value=current, style={"button_width": "110px"}, disabled=locked
        )

        def on_change(change_: Any) -> None:
            if not loading["on"] and change_["new"] is not None:
                attempt(lambda: session.mark_sentence(index, SENTENCE_MARKS[change_["new"]]))

        toggle.observe(on_change, names="value")
        return widgets.VBox([widgets.HTML(f"<code>{html.escape(text)}</code>"), toggle])

    def show_notice() -> None:
        found = conflict["now"]
        if found is not None:
            notice.value = f"<p class='eg-notice eg-conflict'><b>Not saved.</b> {html.escape(str(found))}.</p>"
            choices.children = [other_pass]
            return
        notice.value = notice_html(session)
        state = session.state()
        choices.children = [change] if state == "labelled" else [use, again] if state == "earlier" else []

    def show_status() -> None:
        done, total = session.progress()
        where = html.escape(str(session.store.path))
        missing = session.draft().missing
        state = "saved" if not missing else "not saved yet; still to mark: " + html.escape(", ".join(missing))
        flow = "audit (EvalGate's verdicts shown)" if session.mode == AUDIT else "blind"
        status.value = (
            f"<p>answer {session.position + 1} of {total} · labelled {done} · this answer: {state} · {flow} · "
            f"pass {session.pass_number} · file {where}</p>"
        )

    def render() -> None:
        loading["on"] = True
        row = session.current
        draft = session.draft()
        locked = session.state() in ("labelled", "earlier")
        view.value = review_html(row, by_id)
        verdict.value = None if draft.correct is UNSET else ("correct" if draft.correct else "wrong")
        verdict.disabled = locked
        sentence_box.children = [
            sentence_toggle(i, text, mark, locked)
            for i, (text, mark) in enumerate(zip(draft.sentences, draft.marks, strict=True))
        ]
        loading["on"] = False
        show_status()
        show_notice()
        verdicts.value = _verdicts_panel(session, bodies)

    def move(step: int) -> None:
        conflict["now"] = None
        session.go(step)
        render()

    def relabel(_: Any) -> None:
        session.relabel()
        render()

    def adopt(_: Any) -> None:
        session.adopt()
        redraw()
        render()

    def as_other_pass(_: Any) -> None:
        found = conflict["now"]
        if found is not None:
            conflict["now"] = None
            attempt(lambda: session.switch_pass(found.free_pass))
            render()

    verdict.observe(on_verdict, names="value")
    back.on_click(lambda _: move(-1))
    forward.on_click(lambda _: move(1))
    change.on_click(relabel)
    again.on_click(relabel)
    use.on_click(adopt)
    other_pass.on_click(as_other_pass)
    render()
    redraw()
    return widgets.VBox(
        [widgets.HBox([back, forward]), status, notice, choices, view, verdict, sentence_box, verdicts, chart]
    )
