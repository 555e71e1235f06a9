"""Tests for evalgate_lib.inputs.labels: parsing, validation messages, matching and the atomic store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evalgate_lib.errors import InputError, OutputError
from evalgate_lib.inputs.labels import (
    Label,
    LabelStore,
    SentenceLabel,
    answer_sha256,
    describe_kinds,
    dumps_labels,
    label_kind,
    label_kinds,
    load_labels,
    match_labels,
    parse_label,
)

ANSWER = "The limit is 10 GB. Nimbus was founded in 1999."
ANSWER_SHA = answer_sha256(ANSWER)
OTHER_SHA = answer_sha256("The limit is 20 GB.")


def _obj(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "config": "baseline",
        "question_id": "q001",
        "answer_sha256": ANSWER_SHA,
        "correct": True,
        "unsupported_claim": False,
        "reviewer": "ana",
    }
    base.update(overrides)
    return base


def _write(path: Path, *objects: object) -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


def test_answer_sha256_is_utf8_sha256_hex() -> None:
    # SHA-256 test vector for "abc" (FIPS 180-2)
    assert answer_sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    # non-ASCII text is hashed as UTF-8 bytes: "é" is the two bytes C3 A9
    assert answer_sha256("é") == answer_sha256(b"\xc3\xa9".decode("utf-8"))


def test_parse_minimal_label_gets_defaults() -> None:
    label = parse_label(_obj(), "f:1")
    assert label == Label("baseline", "q001", ANSWER_SHA, True, False, "ana")
    assert label.pass_number == 1
    assert label.unsupported_sentences == ()
    assert label.refusal is None and label.comment is None and label.sentences is None
    assert label.key == ("baseline", "q001", ANSWER_SHA, "ana", 1)


def test_parse_full_label() -> None:
    obj = _obj(
        unsupported_claim=True,
        unsupported_sentences=["Nimbus was founded in 1999."],
        refusal=False,
        reviewer="ben",
        comment="founding year not in context",
        sentences=[{"text": "The limit is 10 GB.", "supported": True}, {"text": "Answer:", "supported": None}],
        **{"pass": 2},
    )
    label = parse_label(obj, "f:1")
    assert label.unsupported_sentences == ("Nimbus was founded in 1999.",)
    assert label.pass_number == 2
    assert label.sentences == (SentenceLabel("The limit is 10 GB.", True), SentenceLabel("Answer:", None))
    assert label.to_dict() == obj  # every key round-trips


def test_mode_round_trips_and_each_label_says_how_it_was_made() -> None:
    audit = parse_label(_obj(mode="audit", verdicts_hidden=False), "f:1")
    assert audit.mode == "audit" and audit.to_dict()["mode"] == "audit"
    blind = parse_label(_obj(mode="blind", verdicts_hidden=True), "f:2")
    revised = parse_label(_obj(mode="blind", verdicts_hidden=False), "f:3")  # changed after the verdicts appeared
    hand = parse_label(_obj(), "f:4")  # a hand-written label: neither key
    assert [label_kind(x) for x in (audit, blind, revised, hand)] == ["audit", "blind", "verdicts seen", "unrecorded"]
    assert "mode" not in hand.to_dict()
    kinds = label_kinds([hand, blind, audit, blind, audit, blind])
    assert kinds == {"blind": 3, "audit": 2, "unrecorded": 1} and list(kinds) == ["blind", "audit", "unrecorded"]
    assert describe_kinds(kinds) == (
        "6 labels: 3 blind (EvalGate's verdicts of the answer hidden from its reviewer until the label was saved), "
        "2 audit (made seeing EvalGate's verdicts, judging them), 1 whose file does not record whether EvalGate's "
        "verdicts were hidden"
    )
    assert describe_kinds({}) == "no labels"


def test_load_labels_in_file_order(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.jsonl", _obj(question_id="q002"), "", _obj(question_id="q001"))
    assert [lb.question_id for lb in load_labels(path)] == ["q002", "q001"]
    assert load_labels(_write(tmp_path / "empty.jsonl")) == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"labels\.jsonl:2: not valid JSON"),
        ("[1, 2]", r"labels\.jsonl:2: each line must be a JSON object, got list"),
        (
            json.dumps(_obj(corect=True)),
            r"labels\.jsonl:2: unknown key\(s\) 'corect' \(did you mean 'correct'\?\)",
        ),
        (json.dumps(_obj(revewer="x")), r"'revewer' \(did you mean 'reviewer'\?\)"),
        (json.dumps(_obj(zzz=1)), r"unknown key\(s\) 'zzz'; allowed: config, "),  # nothing close: no suggestion
        (
            json.dumps({k: v for k, v in _obj().items() if k not in ("reviewer", "correct")}),
            r"labels\.jsonl:2: missing required key\(s\) 'correct', 'reviewer'",
        ),
        (json.dumps(_obj(correct="yes")), r"labels\.jsonl:2: 'correct' must be true or false, got 'yes'"),
        (json.dumps(_obj(correct=1)), r"'correct' must be true or false, got 1"),
        (json.dumps(_obj(config="")), r"'config' must be a non-empty string"),
        (json.dumps(_obj(answer_sha256="abc")), r"'answer_sha256' must be 64 lowercase hex characters"),
        (json.dumps(_obj(refusal="no")), r"'refusal' must be true or false"),
        (json.dumps(_obj(**{"pass": 0})), r"'pass' must be a positive integer"),
        (json.dumps(_obj(**{"pass": True})), r"'pass' must be a positive integer"),
        (json.dumps(_obj(comment=3)), r"'comment' must be a string"),
        (json.dumps(_obj(unsupported_sentences="x")), r"'unsupported_sentences' must be a list of non-empty strings"),
        (
            json.dumps(_obj(unsupported_sentences=["The limit is 10 GB."])),
            r"'unsupported_sentences' is not empty but 'unsupported_claim' is false",
        ),
        (
            json.dumps(_obj(sentences=[{"text": "a", "suported": True}])),
            r"labels\.jsonl:2: 'sentences'\[0\]: unknown key\(s\) 'suported' \(did you mean 'supported'\?\)",
        ),
        (json.dumps(_obj(sentences=[{"text": "a", "supported": "yes"}])), r"'supported' is required and must be"),
        (json.dumps(_obj(mode="blinded")), r"labels\.jsonl:2: 'mode' must be one of 'blind', 'audit', got 'blinded'"),
        (
            json.dumps(_obj(mode="audit", verdicts_hidden=True)),
            r"labels\.jsonl:2: 'mode' is 'audit' \(the reviewer saw the verdicts\) but 'verdicts_hidden' is true",
        ),
    ],
)
def test_errors_name_file_line_and_key(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path / "labels.jsonl", _obj(question_id="q000"), line)
    with pytest.raises(InputError, match=message):
        load_labels(path)


def test_duplicate_key_names_both_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "labels.jsonl",
        _obj(),
        _obj(reviewer="ben"),  # other reviewer: fine
        _obj(**{"pass": 2}),  # same reviewer, second pass: fine
        _obj(correct=False),  # same key as line 1
    )
    with pytest.raises(
        InputError, match=r"labels\.jsonl:4: duplicate label .*reviewer='ana' pass=1 \(first on line 1\)"
    ):
        load_labels(path)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_labels(tmp_path / "nope.jsonl")


# --- matching ----------------------------------------------------------------------------------------------


def test_match_labels_splits_matched_stale_unknown() -> None:
    current = parse_label(_obj(), "f:1")
    second_reviewer = parse_label(_obj(reviewer="ben"), "f:2")
    stale = parse_label(_obj(answer_sha256=OTHER_SHA), "f:3")  # labelled an older answer
    unknown_question = parse_label(_obj(question_id="q999"), "f:4")
    unknown_config = parse_label(_obj(config="candidate"), "f:5")
    answers = {("baseline", "q001"): ANSWER, ("baseline", "q002"): "no labels for this one"}
    result = match_labels([second_reviewer, unknown_config, stale, current, unknown_question], answers)
    assert result.matched == {("baseline", "q001"): [current, second_reviewer]}  # sorted by reviewer
    assert result.stale == [stale]
    assert result.unknown == [unknown_question, unknown_config]  # file order: "baseline" < "candidate"


def test_match_labels_refuses_sentences_not_in_the_answer() -> None:
    label = parse_label(_obj(unsupported_claim=True, unsupported_sentences=["Nimbus was founded in 2001."]), "f:1")
    with pytest.raises(InputError, match="'Nimbus was founded in 2001.' is not an exact substring"):
        match_labels([label], {("baseline", "q001"): ANSWER})
    ok = parse_label(_obj(unsupported_claim=True, unsupported_sentences=["Nimbus was founded in 1999."]), "f:1")
    assert match_labels([ok], {("baseline", "q001"): ANSWER}).matched == {("baseline", "q001"): [ok]}


# --- store ----------------------------------------------------------------------------------------------


def test_store_round_trip_sorted_and_byte_exact(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "labels.jsonl"
    store = LabelStore(path)
    assert store.labels() == [] and not path.exists()
    b = parse_label(_obj(question_id="q002", reviewer="ana"), "x")
    a2 = parse_label(_obj(reviewer="ben", **{"pass": 2}), "x")  # a second reviewer labels in pass 2
    a1 = parse_label(_obj(reviewer="ana", comment="é ok"), "x")
    for label in (b, a2, a1):
        store.put(label)
    # sorted by (config, question_id, reviewer, pass); keys sorted inside each line; UTF-8 kept as is
    expected = "".join(json.dumps(lb.to_dict(), sort_keys=True, ensure_ascii=False) + "\n" for lb in (a1, a2, b))
    assert path.read_text(encoding="utf-8") == expected == dumps_labels([b, a1, a2])
    assert '"comment": "é ok"' in expected
    assert load_labels(path) == [a1, a2, b]
    assert LabelStore(path).labels() == [a1, a2, b]
    assert sorted(os.listdir(path.parent)) == ["labels.jsonl"]  # no temporary file left behind


def test_store_put_replaces_same_key_and_get(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.jsonl")
    store.put(parse_label(_obj(correct=True), "x"))
    store.put(parse_label(_obj(correct=False), "x"))  # the reviewer changed their mind
    assert len(store.labels()) == 1
    got = store.get("baseline", "q001", ANSWER_SHA, "ana")
    assert got is not None and got.correct is False
    assert [h.correct for h in got.history] == [True]  # never replaced silently: the first label kept
    assert store.get("baseline", "q001", ANSWER_SHA, "ana", pass_number=2) is None
    assert store.get("baseline", "q001", OTHER_SHA, "ana") is None


def test_store_resume_from_labelled_keys(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    first_session = LabelStore(path)
    first_session.put(parse_label(_obj(question_id="q001"), "x"))
    first_session.put(parse_label(_obj(question_id="q002"), "x"))
    first_session.put(parse_label(_obj(question_id="q001", reviewer="ben", **{"pass": 2}), "x"))
    # a new session (e.g. after a kernel restart) sees what ana already did and continues with q003
    resumed = LabelStore(path)
    done = resumed.labelled_keys(reviewer="ana", pass_number=1)
    assert done == {("baseline", "q001", ANSWER_SHA, "ana", 1), ("baseline", "q002", ANSWER_SHA, "ana", 1)}
    todo = [q for q in ("q001", "q002", "q003") if ("baseline", q, ANSWER_SHA, "ana", 1) not in done]
    assert todo == ["q003"]
    assert len(resumed.labelled_keys()) == 3
    assert resumed.labelled_keys(pass_number=3) == set()


def test_store_put_keeps_labels_saved_by_another_instance(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    one, two = LabelStore(path), LabelStore(path)
    one.put(parse_label(_obj(question_id="q001"), "x"))
    two.put(parse_label(_obj(question_id="q002"), "x"))  # re-reads the file first: q001 survives
    assert [lb.question_id for lb in load_labels(path)] == ["q001", "q002"]


def test_store_failed_write_leaves_old_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "labels.jsonl"
    store = LabelStore(path)
    store.put(parse_label(_obj(), "x"))
    before = path.read_bytes()

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OutputError, match=r"cannot write .*labels\.jsonl \(disk full\)"):  # one line, no traceback
        store.put(parse_label(_obj(question_id="q002"), "x"))
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["labels.jsonl"]


def test_store_refuses_a_corrupt_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.jsonl", _obj(), "{oops")
    with pytest.raises(InputError, match=r"labels\.jsonl:2: not valid JSON"):
        LabelStore(path)


# ------------------------------------------------------------------ labels that cannot disagree silently (issue 45)


def _two(reviewer: str, correct: bool, **extra: object) -> Label:
    return Label("candidate", "q1", "a" * 64, correct, False, reviewer, **extra)


def test_one_label_in_two_files_is_refused_naming_both(tmp_path: Path) -> None:
    from evalgate_lib.inputs.labels import dumps_labels, load_label_files

    first, second = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    first.write_text(dumps_labels([_two("ann", True)]))
    second.write_text(dumps_labels([_two("ann", False)]))  # the same key flipped: the file order decided before
    with pytest.raises(
        InputError, match=rf"^{second}:1: duplicate label .* reviewer='ann' pass=1 \(also at {first}:1\)"
    ):
        load_label_files([first, second])


def test_two_reviewers_of_one_answer_in_one_pass_are_refused_or_one_is_chosen(tmp_path: Path) -> None:
    from evalgate_lib.inputs.labels import dumps_labels, load_label_files
    from evalgate_lib.statistics.run_agreement import split_passes

    path = tmp_path / "two.jsonl"
    path.write_text(dumps_labels([_two("ann", True), _two("bob", False), _two("cy", True, pass_number=2)]))
    selection = load_label_files([path])
    matched = {("candidate", "q1"): list(selection.labels)}  # all three label the one answer
    expected = rf"^two pass-1 labels of one answer \(config 'candidate', question 'q1'\): reviewer 'ann' at {path}:1 "
    with pytest.raises(InputError, match=expected + r"\(correct\) and reviewer 'bob' at .*:2 \(wrong\); "):
        split_passes(matched)
    chosen = load_label_files([path], reviewer="bob")
    assert [lb.reviewer for lb in chosen.labels] == ["bob"]
    assert chosen.policy_line() == (
        f"labels: 3 read from {path}; reviewer 'bob' only (--reviewer): 1 kept, set aside: 1 of 'ann', 1 of 'cy'"
    )
    assert load_label_files([path]).policy_line() == (
        f"labels: 3 read from {path}; every reviewer's labels count (one label per answer and pass)"
    )
    with pytest.raises(InputError, match=r"^--reviewer 'dan': no label of that reviewer in .* \(reviewers: 'ann', "):
        load_label_files([path], reviewer="dan")


def test_with_a_key_only_signed_labels_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalgate_lib.inputs.labels import dumps_labels, load_label_files, sign_label_file

    path = tmp_path / "l.jsonl"
    path.write_text(dumps_labels([_two("ann", True)]))  # made without the key
    monkeypatch.setenv("EVALGATE_SIGNING_KEY", "0123456789abcdef0123456789abcdef")
    with pytest.raises(InputError, match=rf"^{path}:1: label not signed, but a signing key is set .* 'evalgate "
                       rf"--key-file KEY sign {path}'$"):  # fmt: skip
        load_label_files([path])
    assert sign_label_file(path) == 1  # whoever holds the key vouches for it
    assert [lb.reviewer for lb in load_label_files([path]).labels] == ["ann"]
    edited = path.read_text().replace('"correct": true', '"correct": false')
    path.write_text(edited)
    with pytest.raises(InputError, match=r"label its signature does not match it: it was changed after it was signed"):
        load_label_files([path])
    with pytest.raises(InputError, match="label its signature does not match it"):  # nor would the widget sign it
        LabelStore(path)
