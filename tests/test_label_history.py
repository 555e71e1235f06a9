"""Blindness over several visits, relabelling with history, and conflicts caught where a label is made.

* What a reviewer has been shown is recorded beside the label file (``verdicts-seen.jsonl``), so a label
  saved in a later session, under a new plan, is blind only if that reviewer never saw that answer's
  verdicts.
* A saved label changes only on request, and the new label keeps the earlier one in its ``history``.
* Another reviewer's label of the same answer in the same pass is refused at save, with the first free pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_flags, make_row

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import (
    Label,
    LabelConflict,
    LabelStore,
    answer_sha256,
    describe_kinds,
    load_label_files,
    load_labels,
    sign_label_file,
)
from evalgate_lib.inputs.seen import SEEN_FILE, SeenRecord, Sighting
from evalgate_lib.signing import KEY_ENV
from evalgate_lib.workbench.labelling import LabellingSession, labelling_widget

PLAN_A, PLAN_B = "a" * 64, "b" * 64


def rows():
    return [
        make_row(question_id="q001", answer="Starter includes 3 seats.", flags=make_flags(wrong=True)),
        make_row(question_id="q002", answer="Business includes 10 seats."),
    ]


def _label_all(session: LabellingSession, correct: bool = True) -> Label | None:
    saved = session.mark_correct(correct)
    for i in range(len(session.draft().marks)):
        saved = session.mark_sentence(i, True)
    return saved


def test_a_sighting_in_an_earlier_session_makes_a_later_label_not_blind(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    first = LabellingSession(rows(), LabelStore(path), reviewer="ana", plan_sha256=PLAN_A)
    blind = _label_all(first)
    assert blind is not None and blind.verdicts_hidden is True
    assert "Flags and why they fired" in first.render_verdicts()  # shown after the save, as designed
    sighting = json.loads((tmp_path / SEEN_FILE).read_text(encoding="utf-8"))
    assert sighting == {
        "answer_sha256": answer_sha256("Starter includes 3 seats."),
        "config": "baseline",
        "question_id": "q001",
        "reviewer": "ana",
        "view": "blind labelling, after the label was saved",
    }
    # weeks later, a new plan lists the same answer; a new session knows nothing it rendered itself
    later = LabellingSession(rows(), LabelStore(path), reviewer="ana", plan_sha256=PLAN_B)
    assert later.state() == "earlier" and later.seen_before() and later.position == 0
    with pytest.raises(ValueError, match="already has your label: relabel"):
        later.mark_correct(False)  # never silently over the first label
    later.relabel()
    relabelled = _label_all(later, correct=False)
    assert relabelled is not None and relabelled.verdicts_hidden is False and relabelled.plan_sha256 == PLAN_B
    (saved,) = load_labels(path)
    assert saved.verdicts_hidden is False and saved.correct is False
    assert [(h.verdicts_hidden, h.correct, h.plan_sha256) for h in saved.history] == [(True, True, PLAN_A)]
    # another reviewer was shown nothing: their label of the same answer is blind
    assert not SeenRecord(tmp_path).seen("ben", answer_sha256("Starter includes 3 seats."))


def test_an_earlier_label_can_be_taken_for_a_new_plan_as_blind_as_it_was_made(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    _label_all(LabellingSession(rows(), LabelStore(path), reviewer="ana", plan_sha256=PLAN_A))
    later = LabellingSession(rows(), LabelStore(path), reviewer="ana", plan_sha256=PLAN_B)
    adopted = later.adopt()
    assert (adopted.plan_sha256, adopted.verdicts_hidden) == (PLAN_B, True)
    assert [h.plan_sha256 for h in adopted.history] == [PLAN_A]
    assert later.state() == "labelled" and later.progress() == (1, 2)
    with pytest.raises(ValueError, match="adopt takes a label made under another plan"):
        later.adopt()


def test_saving_the_same_label_again_changes_nothing(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.jsonl")
    label = Label("baseline", "q001", answer_sha256("x"), True, False, "ana", verdicts_hidden=True)
    assert store.put(label) == label
    before = store.path.read_bytes()
    assert store.put(label).history == () and store.path.read_bytes() == before


def test_a_second_reviewer_is_refused_at_save_with_the_pass_2_choice(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    _label_all(LabellingSession(rows(), LabelStore(path), reviewer="ana"))
    ben = LabellingSession(rows(), LabelStore(path), reviewer="ben")
    ben.mark_correct(False)
    with pytest.raises(LabelConflict, match="already has a pass-1 label by 'ana'.*Label it as pass 2") as caught:
        ben.mark_sentence(0, False)
    assert caught.value.free_pass == 2 and caught.value.first.reviewer == "ana"
    assert [lb.reviewer for lb in load_labels(path)] == ["ana"]  # nothing of ben's reached the file
    second = ben.switch_pass(caught.value.free_pass)
    assert second is not None and (second.reviewer, second.pass_number, second.correct) == ("ben", 2, False)
    assert {(lb.reviewer, lb.pass_number) for lb in load_labels(path)} == {("ana", 1), ("ben", 2)}
    load_label_files([path])  # the gate reads the file: two passes of one answer are what the guide asks for
    ben.go(1)  # the session labels as pass 2 from now on
    assert _label_all(ben).pass_number == 2


def test_the_widget_offers_pass_2_when_another_reviewer_labelled_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    _label_all(LabellingSession(rows(), LabelStore(path), reviewer="ana"))
    box = labelling_widget(LabellingSession(rows(), LabelStore(path), reviewer="ben"), [])
    box.children[5].value = "wrong"
    box.children[6].children[0].children[1].value = "unsupported"
    notice, choices = box.children[2], box.children[3]
    assert "Not saved." in notice.value and "already has a pass-1 label by &#x27;ana&#x27;" in notice.value
    (button,) = choices.children
    assert button.description == "Label as pass 2"
    button.click()
    assert {(lb.reviewer, lb.pass_number) for lb in load_labels(path)} == {("ana", 1), ("ben", 2)}
    assert "pass 2" in box.children[1].value and "Not saved." not in box.children[2].value


def test_the_widget_asks_before_an_earlier_label_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    first = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    _label_all(first)
    first.render_verdicts()
    box = labelling_widget(LabellingSession(rows(), LabelStore(path), reviewer="ana", plan_sha256=PLAN_B), [])
    notice, choices = box.children[2], box.children[3]
    assert "You labelled this answer before, blind, outside any plan" in notice.value
    assert "so a new label records that it is not blind" in notice.value
    assert [b.description for b in choices.children] == ["Use that label", "Label it again"]
    assert box.children[5].disabled  # the saved label's toggles are locked until the reviewer chooses
    choices.children[1].click()
    assert not box.children[5].disabled
    box.children[5].value = "wrong"  # the first mark of the opened label saves it (every sentence is marked)
    (saved,) = load_labels(path)
    assert (saved.correct, saved.verdicts_hidden, saved.plan_sha256) == (False, False, PLAN_B)
    assert [(h.correct, h.verdicts_hidden) for h in saved.history] == [(True, True)]


def test_the_record_of_what_was_shown_is_signed_like_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "k" * 32)
    record = SeenRecord(tmp_path)
    record.record(Sighting("ana", "baseline", "q001", "c" * 64, "audit labelling"))
    line = json.loads(record.path.read_text(encoding="utf-8"))
    assert line["signature"]["algorithm"] == "HMAC-SHA256" and record.seen("ana", "c" * 64)
    line["reviewer"] = "ben"  # a sighting moved to another reviewer by hand would make ana's label look blind
    record.path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{SEEN_FILE}:1: line of the record of verdicts shown its signature"):
        record.seen("ana", "c" * 64)


def test_a_history_must_be_of_the_same_answer_reviewer_and_pass(tmp_path: Path) -> None:
    digest = answer_sha256("x")
    line = {
        "config": "baseline", "question_id": "q001", "answer_sha256": digest, "correct": False,
        "unsupported_claim": False, "reviewer": "ana", "verdicts_hidden": False,
        "history": [{"config": "baseline", "question_id": "q001", "answer_sha256": digest, "correct": True,
                     "unsupported_claim": False, "reviewer": "ben", "verdicts_hidden": True}],
    }  # fmt: skip
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"l.jsonl:1: 'history'\[0\]: an earlier label of another answer"):
        load_labels(path)
    line["history"][0]["reviewer"] = "ana"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (label,) = load_labels(path)
    assert label.history[0].correct is True and label.to_dict()["history"][0]["verdicts_hidden"] is True


def test_label_counts_say_what_they_count() -> None:
    assert describe_kinds({"unrecorded": 202}) == (
        "202 labels: 202 whose file does not record whether EvalGate's verdicts were hidden"
    )
    assert describe_kinds({"blind": 1}) == (
        "1 label: 1 blind (EvalGate's verdicts of the answer hidden from its reviewer until the label was saved)"
    )
    assert describe_kinds({}) == "no labels"


def test_signing_a_filled_template_keeps_its_rows_and_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    digest = answer_sha256("x")
    filled = {
        "config": "candidate", "question_id": "q009", "answer_sha256": digest, "correct": True,
        "unsupported_claim": False, "reviewer": "ana",
    }  # fmt: skip
    blank = {"config": "baseline", "question_id": "q001", "answer_sha256": digest, "correct": None,
             "unsupported_claim": None, "reviewer": None}  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(filled) + "\n" + json.dumps(blank) + "\n", encoding="utf-8")
    monkeypatch.setenv(KEY_ENV, "k" * 32)
    assert sign_label_file(path) == 1
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert first["question_id"] == "q009" and "signature" in first
    assert second == blank
    selection = load_label_files([path])
    assert len(selection.labels) == 1 and selection.unfilled == 1
    assert "(1 template row not labelled yet, not counted)" in selection.policy_line()
