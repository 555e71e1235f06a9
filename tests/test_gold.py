"""Tests for evalgate_lib.inputs.gold: schema validation with file:line messages, and the shipped gold set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import load_corpus
from evalgate_lib.inputs.gold import GoldQuestion, check_articles, load_gold, parse_question

ROOT = Path(__file__).resolve().parents[1]

GOOD = {
    "id": "q001",
    "question": "How many seats does the Starter plan include?",
    "type": "answerable",
    "article": "plans-and-pricing-2026",
    "accept": ["3 seats"],
    "evidence": ["Starter includes 3 seats"],
    "note": "paraphrase",
}
NA = {"id": "q061", "question": "Does Nimbus offer a lifetime licence?", "type": "no_answer", "article": None,
      "accept": [], "evidence": None}  # fmt: skip


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n", "utf-8")
    return path


def with_(base: dict, **changes: object) -> dict:
    out = dict(base)
    for key, value in changes.items():
        if value is ...:
            out.pop(key)
        else:
            out[key] = value
    return out


def test_load_valid_file(tmp_path: Path) -> None:
    questions = load_gold(write(tmp_path, GOOD, NA))
    assert questions == [
        GoldQuestion(
            "q001",
            "How many seats does the Starter plan include?",
            "answerable",
            "plans-and-pricing-2026",
            ("3 seats",),
            ("Starter includes 3 seats",),
            "paraphrase",
        ),
        GoldQuestion("q061", "Does Nimbus offer a lifetime licence?", "no_answer", None, (), None, None),
    ]
    assert questions[0].answerable and not questions[1].answerable


def test_optional_fields_may_be_omitted(tmp_path: Path) -> None:
    # evidence and note are optional; a no_answer question may omit article/accept/evidence
    q = load_gold(
        write(tmp_path, with_(GOOD, evidence=..., note=...), {"id": "q2", "question": "?", "type": "no_answer"})
    )
    assert q[0].evidence is None and q[0].note is None
    assert q[1].article is None and q[1].accept == ()


def test_blank_lines_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, "", "   ", "{not json")
    with pytest.raises(InputError, match=rf"{path}:4: not valid JSON"):
        load_gold(path)


def test_malformed_json_names_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, '{"id": "q2", "question": "x",', NA)
    with pytest.raises(InputError) as info:
        load_gold(path)
    assert f"{path}:2:" in str(info.value)
    assert "not valid JSON" in str(info.value)
    assert "column" in str(info.value)


def test_line_must_be_object(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r":1: each line must be a JSON object"):
        load_gold(write(tmp_path, '["q1", "question"]'))


@pytest.mark.parametrize("field", ["id", "question", "type"])
def test_missing_required_field(tmp_path: Path, field: str) -> None:
    path = write(tmp_path, NA, with_(GOOD, **{field: ...}))
    with pytest.raises(InputError, match=rf"{path}:2: '{field}' is required and must be a non-empty string"):
        load_gold(path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"id": 7}, "'id' is required and must be a non-empty string"),
        ({"id": "  "}, "'id' is required and must be a non-empty string"),
        ({"question": ["x"]}, "'question' is required"),
        ({"type": "maybe"}, "'type' must be 'answerable' or 'no_answer', got 'maybe'"),
        ({"accept": "3 seats"}, "'accept' must be a list of non-empty strings"),
        ({"accept": ["3 seats", 3]}, "'accept' must be a list of non-empty strings"),
        ({"accept": ["3 seats", " "]}, "'accept' must be a list of non-empty strings"),
        ({"evidence": "Starter includes 3 seats"}, "'evidence' must be a list of non-empty strings"),
        ({"article": 5}, "an answerable question needs its gold 'article' id"),
        ({"article": None}, "an answerable question needs its gold 'article' id"),
        ({"article": ...}, "an answerable question needs its gold 'article' id"),
        ({"accept": []}, "an answerable question needs a non-empty 'accept' list"),
        ({"accept": ...}, "an answerable question needs a non-empty 'accept' list"),
        ({"answer": "3 seats"}, "unknown field(s) ['answer']"),
    ],
)
def test_bad_answerable_question(tmp_path: Path, changes: dict, message: str) -> None:
    path = write(tmp_path, with_(GOOD, **changes))
    with pytest.raises(InputError) as info:
        load_gold(path)
    assert str(info.value).startswith(f"{path}:1: ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"article": "plans-and-pricing-2026"}, "a no_answer question must have 'article': null and an empty 'accept'"),
        ({"accept": ["no"]}, "a no_answer question must have 'article': null and an empty 'accept'"),
        ({"evidence": ["Starter includes 3 seats"]}, "a no_answer question has no evidence"),
    ],
)
def test_bad_no_answer_question(tmp_path: Path, changes: dict, message: str) -> None:
    path = write(tmp_path, GOOD, with_(NA, **changes))
    with pytest.raises(InputError, match=rf"{path}:2: ") as info:
        load_gold(path)
    assert message in str(info.value)


def test_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, NA, with_(GOOD, question="Again?"))
    with pytest.raises(InputError) as info:
        load_gold(path)
    message = str(info.value)
    assert f"{path}:3:" in message
    assert "duplicate question id 'q001'" in message
    assert "first on line 1" in message


def test_unknown_article_names_question_and_article(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, with_(GOOD, id="q002", article="no-such-article"), NA)
    with pytest.raises(InputError) as info:
        load_gold(path, article_ids=["plans-and-pricing-2026", "refunds"])
    message = str(info.value)
    assert str(path) in message
    assert "q002 → 'no-such-article'" in message
    assert "q001" not in message  # the known article is not listed


def test_unknown_articles_all_listed() -> None:
    questions = [parse_question(with_(GOOD, id=f"q{i}", article=f"a{i}"), "x") for i in (1, 2)]
    with pytest.raises(InputError, match="q1 → 'a1', q2 → 'a2'"):
        check_articles(questions, ["b"], "gold.jsonl")
    check_articles(questions, ["a1", "a2"], "gold.jsonl")  # fine


def test_article_check_skipped_without_ids(tmp_path: Path) -> None:
    assert len(load_gold(write(tmp_path, with_(GOOD, article="anything")))) == 1


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", "utf-8")
    with pytest.raises(InputError, match="holds no questions"):
        load_gold(path)
    path.write_text("\n  \n\n", "utf-8")
    with pytest.raises(InputError, match="holds no questions"):
        load_gold(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_gold(tmp_path / "nope.jsonl")


def test_non_utf8_gold_file_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(with_(NA, question="Caf\u00e9?")).encode("latin-1").replace(b"\\u00e9", b"\xe9"))
    with pytest.raises(InputError, match="latin1.jsonl"):
        load_gold(path)


def test_unicode_line_separator_inside_a_string(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(with_(NA, question="Line\u2028separator?"), ensure_ascii=False) + "\n", "utf-8")
    assert load_gold(path)[0].question == "Line\u2028separator?"


# --------------------------------------------------------------------------- the shipped gold set


@pytest.fixture(scope="module")
def shipped() -> tuple[list[GoldQuestion], dict]:
    articles = {a.id: a for a in load_corpus(ROOT / "corpus")}
    return load_gold(ROOT / "gold" / "questions.jsonl", articles), articles


def test_shipped_gold_loads_and_articles_exist(shipped: tuple[list[GoldQuestion], dict]) -> None:
    questions, articles = shipped
    assert questions
    assert len({q.id for q in questions}) == len(questions)
    assert {q.type for q in questions} == {"answerable", "no_answer"}
    for q in questions:
        if q.answerable:
            assert q.article in articles, q.id
        else:
            assert q.article is None and q.accept == () and q.evidence is None, q.id


def test_shipped_gold_evidence_and_accept_are_in_the_article(shipped: tuple[list[GoldQuestion], dict]) -> None:
    # gold/README.md: evidence spans are exact substrings of the body; accept strings occur case-insensitively
    questions, articles = shipped
    for q in questions:
        if not q.answerable:
            continue
        body = articles[q.article].body
        for span in q.evidence or ():
            assert span in body, (q.id, span)
        for accept in q.accept:
            assert accept.lower() in body.lower(), (q.id, accept)
