"""Tests for ``evalgate gold import``: reading JSONL/CSV tables, mapping columns onto the gold schema, the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.gold_tools.gold_import import import_table, locate_contexts, map_columns
from evalgate_lib.inputs.corpus import Article, scan_corpus
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.inputs.tables import Row, Table, parse_list_cell, read_table

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "gold_corpus"
RAGAS = DATA / "ragas_testset.jsonl"
CSV = DATA / "questions.csv"

A = Article("a", "A", "Plans start at 3 seats.\nThe trial lasts 30 days.\n", "a.md")
B = Article("b", "B", "The trial lasts 30 days.\nRefunds take 5 days.\n", "b.md")


def table(*rows: dict[str, object], fmt: str = "JSONL") -> Table:
    columns = tuple(dict.fromkeys(k for row in rows for k in row))
    return Table("in.jsonl", fmt, columns, tuple(Row(f"in.jsonl:{n}", dict(r)) for n, r in enumerate(rows, start=1)))


# --- column mapping -------------------------------------------------------------------------------------------------


def test_ragas_columns_map_and_the_generated_answer_is_reported() -> None:
    used, unmapped = map_columns(["question", "contexts", "ground_truth", "answer", "evolution_type"])
    assert used == {"question": "question", "accept": "ground_truth", "evidence": "contexts"}
    assert unmapped == {
        "answer": "in RAGAS files the generated answer under test, not a reference; 'ground_truth' is used for accept",
        "evolution_type": "no EvalGate gold field",
    }


def test_ragas_02_names_and_a_plain_answer_column() -> None:
    used, unmapped = map_columns(["user_input", "reference", "retrieved_contexts", "reference_contexts", "response"])
    assert used == {"question": "user_input", "accept": "reference", "evidence": "reference_contexts"}
    assert unmapped == {
        "retrieved_contexts": "'reference_contexts' is used for evidence",
        "response": "no EvalGate gold field",
    }
    # question/answer pairs (no reference column): 'answer' is the reference
    assert map_columns(["question", "answer"]) == ({"question": "question", "accept": "answer"}, {})


def test_a_table_without_a_question_column_is_refused() -> None:
    with pytest.raises(InputError, match=r"no question column: expected one of \['question', 'user_input'\]"):
        map_columns(["query", "ground_truth"])


# --- reading tables -------------------------------------------------------------------------------------------------


def test_list_cells_json_then_python_literal() -> None:
    assert parse_list_cell('["a", "b"]', "f:2: column 'contexts'") == ["a", "b"]
    assert parse_list_cell("['it''s', \"pip's\"]", "f:2: column 'contexts'") == ["its", "pip's"]
    with pytest.raises(InputError, match=r"^f:2: column 'contexts': looks like a list but is neither JSON nor"):
        parse_list_cell("['unclosed", "f:2: column 'contexts'")
    with pytest.raises(InputError, match=r"^f:3: column 'c': expected a list, got tuple"):
        parse_list_cell("['a'], ['b']", "f:3: column 'c'")  # two lists: a Python tuple


def test_read_csv_fixture_with_record_lines() -> None:
    t = read_table(CSV)
    assert (t.format, t.columns) == ("CSV", ("question_id", "question", "reference", "reference_contexts",
                                            "answerable", "source"))  # fmt: skip
    assert [r.where for r in t.rows] == [f"{CSV}:2", f"{CSV}:3", f"{CSV}:4"]
    assert t.rows[1].values["reference_contexts"] == '["Pass --no-cache-dir to turn the cache off."]'


def test_csv_line_numbers_survive_multi_line_cells(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('question,reference\n"two\nlines",x\n\nthird,y\n', encoding="utf-8")
    assert [r.where for r in read_table(path).rows] == [f"{path}:2", f"{path}:5"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("q.csv", "question,question\na,b\n", r"q.csv:1: column 'question' appears twice in the header"),
        ("q.csv", "question,\na,b\n", r"q.csv:1: column 2 of the header has no name"),
        ("q.csv", "question,reference\na,b,c\n", r"q.csv:2: 3 fields, but the header has 2 columns"),
        ("q.csv", "question,reference\n", r"holds a header but no rows"),
        ("q.jsonl", '{"question": "a"}\n["b"]\n', r"q.jsonl:2: each line must be a JSON object"),
        ("q.json", "[]", r"cannot tell the format from the suffix '.json'; use one of .jsonl, .ndjson, .csv"),
    ],
)
def test_malformed_tables_name_file_and_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_table(path)


# --- mapping rows ---------------------------------------------------------------------------------------------------


def test_ids_are_generated_from_row_positions_and_kept_when_given() -> None:
    t = table(
        {"question": "Q1?", "ground_truth": "3 seats", "article": "a"},
        {"question": "Q2?", "ground_truth": "30 days", "article": "a", "id": 7},
    )
    result = import_table(t, None)
    assert [q.id for q in result.questions] == ["q001", "7"]
    assert result.corpus_checked is False


def test_duplicate_ids_name_both_rows() -> None:
    t = table({"question": "Q1?", "id": "x"}, {"question": "Q2?", "id": "x"})
    with pytest.raises(InputError, match=r"^in.jsonl:2: question id 'x' is already used at in.jsonl:1$"):
        import_table(t, None)


def test_without_a_corpus_the_article_column_is_needed_and_evidence_kept_verbatim() -> None:
    t = table(
        {"question": "Q1?", "ground_truths": ["3 seats", "three seats"], "contexts": ["Plans  start"], "article": "a"},
        {"question": "Q2?", "ground_truths": ["30 days"], "contexts": ["The trial lasts 30 days."]},
    )
    result = import_table(t, None)
    assert result.questions == (GoldQuestion("q001", "Q1?", "answerable", "a", ("3 seats", "three seats"),
                                             ("Plans  start",)),)  # fmt: skip
    assert [(n.where, n.id) for n in result.skipped] == [("in.jsonl:2", "q002")]
    assert "no gold article: give --corpus" in result.skipped[0].message


def test_no_answer_only_when_a_column_says_so() -> None:
    t = table(
        {"question": "Q1?", "reference": "", "type": "no_answer", "contexts": ["x"]},
        {"question": "Q2?", "reference": "", "type": ""},
        {"question": "Q3?", "reference": " ", "type": "answerable", "article": "a"},
    )
    result = import_table(t, [A])
    assert result.questions == (GoldQuestion("q001", "Q1?", "no_answer", None, (), None),)
    assert [n.message for n in result.notes] == ["1 context(s) left out: a no-answer question has no evidence"]
    assert [n.id for n in result.skipped] == ["q002", "q003"]
    assert result.skipped[0].message.startswith("no reference answer (column 'reference' is empty); if the corpus")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {"question": "Q?", "reference": "3 seats", "answerable": False},
            r"column 'answerable' says the question has "
            r"no answer, but column 'reference' gives '3 seats'",
        ),
        (
            {"question": "Q?", "reference": "x", "answerable": "maybe"},
            r"column 'answerable' must be one of "
            r"\['true', 'false'\], got 'maybe'",
        ),
        ({"question": ["Q?"], "reference": "x"}, r"column 'question' must be a string, got list"),
        ({"question": "Q?", "ground_truths": [1, 2]}, r"column 'ground_truths': must be a string or a list of strings"),
    ],
)
def test_malformed_cells_raise_with_the_row(row: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=r"^in.jsonl:1: " + message):
        import_table(table(row), [A])


def test_locate_contexts_picks_the_article_holding_most() -> None:
    # "The trial lasts 30 days." is in a and b; "Refunds take 5 days." only in b -> b holds 2, a holds 1
    article, evidence, notes = locate_contexts(["The trial lasts 30 days.", "Refunds  take\n5 days."], [A, B], None)
    assert (article, evidence) == ("b", ["The trial lasts 30 days.", "Refunds take 5 days."])
    assert notes == ["context 2 matches only if whitespace is ignored: the article's text is used"]


def test_locate_contexts_tie_and_left_out_contexts() -> None:
    article, evidence, notes = locate_contexts(["The trial lasts 30 days.", "Plans start", "Refunds take 5 days.",
                                                "Not there"], [A, B], None)  # fmt: skip
    assert (article, evidence) == ("a", ["The trial lasts 30 days.", "Plans start"])
    assert notes == [
        "contexts are equally in a, b; chose a, which holds the highest-ranked of them (set an 'article' column)",
        "context 3 is in b, not the gold article a: left out",
        "context 4 not found in the corpus (even ignoring whitespace): left out",
    ]
    assert locate_contexts(["Not there"], [A, B], None) == (None, [], [])
    assert locate_contexts(["Refunds take 5 days."], [A, B], "a")[0:2] == ("a", [])


def test_an_article_column_not_in_the_corpus_is_reported() -> None:
    result = import_table(table({"question": "Q?", "reference": "3 seats", "article": "zzz"}), [A])
    assert [n.message for n in result.skipped] == ["article 'zzz' is not in the corpus"]


def test_long_accept_strings_are_flagged() -> None:
    # 9 tokens: the, trial, of, the, team, plan, lasts, 30, days -> more than 8
    t = table(
        {"question": "Q1?", "reference": "The trial of the team plan lasts 30 days", "article": "a"},
        {"question": "Q2?", "reference": "30 days", "article": "a"},
    )
    assert import_table(t, None).long_accepts == ("q001",)


# --- command line ---------------------------------------------------------------------------------------------------


def test_cli_import_ragas_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gold.jsonl"
    assert main(["gold", "import", str(RAGAS), "--out", str(out), "--corpus", str(CORPUS)]) == 1  # one row skipped
    report = capsys.readouterr().out
    articles = scan_corpus(CORPUS).articles
    assert load_gold(out, [a.id for a in articles]) == [
        GoldQuestion("q001", "How do I clear all wheel files from pip's cache?", "answerable", "caching",
                     ("pip cache purge",), ("Run pip cache purge to clear all wheel files.",)),
        # the context's line break and indent differ from the article: the article's own text is the evidence
        GoldQuestion("q002", "Which package provides pip's bundled CA store?", "answerable", "certificates",
                     ("certifi",), ("By default, pip verifies each certificate against a bundled CA store from "
                                    "certifi.",)),
        # contexts 1 and 2 are in caching, 3 in config, 4 nowhere: caching holds most
        GoldQuestion("q003", "How long does pip keep wheels in the cache?", "answerable", "caching", ("30 days",),
                     ("The cache keeps wheels for 30 days.", "Pass --no-cache-dir to turn the cache off.")),
    ]  # fmt: skip
    assert report.splitlines() == [
        f"gold import: {RAGAS} (JSONL, 4 rows) → {out}",
        "columns used: question ← 'question', accept ← 'ground_truth', evidence ← 'contexts', "
        "id ← generated from the row position (q001, q002, …)",
        "not mapped: 'answer' (in RAGAS files the generated answer under test, not a reference; 'ground_truth' is "
        "used for accept), 'evolution_type' (no EvalGate gold field), 'metadata' (no EvalGate gold field), "
        "'episode_done' (no EvalGate gold field)",
        "imported: 3 of 4 rows (3 answerable, 0 no-answer)",
        f"  note q003 ({RAGAS}:3): context 3 is in config, not the gold article caching: left out",
        f"  note q003 ({RAGAS}:3): context 4 not found in the corpus (even ignoring whitespace): left out",
        "  1 context(s) in 1 row(s) match only if whitespace is ignored: the article's text is their evidence (q002)",
        "NOT imported: 1 row(s)",
        f"  {RAGAS}:4 (q004): no reference answer (column 'ground_truth' is empty); if the corpus holds no answer, "
        "say so in a 'type' column (no_answer) or an 'answerable' column (false)",
        f"next: evalgate gold check --corpus {CORPUS} --gold {out}",
    ]


def test_cli_import_csv_round_trips_through_load_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gold.jsonl"
    assert main(["gold", "import", str(CSV), "--out", str(out), "--corpus", str(CORPUS)]) == 0
    report = capsys.readouterr().out
    assert load_gold(out) == [
        GoldQuestion("c1", "Which option points pip at my own CA bundle?", "answerable", "certificates", ("--cert",),
                     ("Use the --cert option to point pip at your own CA bundle.",)),
        GoldQuestion("c2", "How do I turn pip's cache off?", "answerable", "caching", ("--no-cache-dir",),
                     ("Pass --no-cache-dir to turn the cache off.",)),
        GoldQuestion("c3", "Can pip limit the size of its cache?", "no_answer", None, ()),
    ]  # fmt: skip
    assert "columns used: question ← 'question', accept ← 'reference', evidence ← 'reference_contexts', " in report
    assert "not mapped: 'source' (no EvalGate gold field)\nimported: 3 of 3 rows (2 answerable, 1 no-answer)" in report
    assert "NOT imported" not in report
    # the imported file passes the check with no errors
    assert main(["gold", "check", "--corpus", str(CORPUS), "--gold", str(out)]) == 0
    assert "; 0 errors" in capsys.readouterr().out


def test_cli_import_refuses_to_overwrite_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gold.jsonl"
    out.write_text("hand-made\n", encoding="utf-8")
    assert main(["gold", "import", str(CSV), "--out", str(out), "--corpus", str(CORPUS)]) == 2
    assert f"{out} already exists; pass --force to overwrite it" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "hand-made\n"
    assert main(["gold", "import", str(CSV), "--out", str(out), "--corpus", str(CORPUS), "--force"]) == 0
    assert len(load_gold(out)) == 3


def test_cli_bad_list_cell_names_file_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.csv"
    path.write_text('question,reference,contexts\nQ?,--cert,"[\'Use the --cert option"\n', encoding="utf-8")
    assert main(["gold", "import", str(path), "--out", str(tmp_path / "o.jsonl"), "--corpus", str(CORPUS)]) == 2
    assert f"{path}:2: column 'contexts': looks like a list but is neither JSON nor" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_cli_nothing_importable_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "Q?", "ground_truth": "x", "contexts": ["nowhere"]}) + "\n")
    assert main(["gold", "import", str(path), "--out", str(tmp_path / "o.jsonl"), "--corpus", str(CORPUS)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: no row could be imported ({path}:1: no gold article: none of its 1 context(s)" in err
    assert not (tmp_path / "o.jsonl").exists()
