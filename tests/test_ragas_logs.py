"""``evalgate score`` on RAGAS / Hugging Face evaluation rows as teams have them: JSONL, CSV, a ``datasets`` folder.

The data (``tests/data/ragas-eval``, its README says how it was written) is two versions of a
pipeline over six Nimbus questions, with no gold file: the gold is the baseline rows' question and
reference. By hand (README): v1 is correct on q001 and q004 of the five answerable questions and
declines the no-answer q006 (refusal accuracy 1/1); v2 is correct on q001–q004 and answers q006
(0/1). v1's q002 ("14 days") and v2's q006 (an invented licence) are wrong with an unsupported
sentence: one hallucination each. q005's 19-token reference is stated by neither answer: wrong for
both, though grounded (one grounded-but-wrong each), and the command says why.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from conftest import ROOT, evalgate_cli

from evalgate_lib.api import load_results
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.answer_logs import read_answer_log
from evalgate_lib.inputs.foreign_logs import gold_questions, is_own_line, read_rows
from evalgate_lib.inputs.foreign_rows import FOREIGN_KEYS, SHAPE_KEYS
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.tables import Row, Table, read_table
from evalgate_lib.run.external import score_answer_logs

DATA = ROOT / "tests" / "data" / "ragas-eval"
IDS = [f"q00{n}" for n in range(1, 7)]
CORRECT = {"v1": [True, False, False, True, False, True], "v2": [True, True, True, True, False, False]}
HALLUCINATION = {"v1": [False, True, False, False, False, False], "v2": [False, False, False, False, False, True]}


def _verdicts(folder: Path) -> dict[str, tuple[list[bool], list[bool]]]:
    rows = load_results(folder).rows
    mine = {config: [r for r in rows if r.config == config] for config in ("v1", "v2")}
    return {config: ([r.correct for r in own], [r.flags.hallucination for r in own]) for config, own in mine.items()}


def _point_thresholds(tmp_path: Path) -> Path:
    """The shipped rules in ``point`` mode: any breach fails, so v2's lost refusal (1 of 1) fails the gate."""
    text = (ROOT / "configs" / "gate.toml").read_text(encoding="utf-8")
    text = text.replace('mode = "significant"', 'mode = "point"')
    path = tmp_path / "point.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- one command, end to end, through the real command line ----------------------------------------------------------


@pytest.mark.slow  # the report executes its notebook (18-34 s on this 2-core machine)
def test_a_ragas_jsonl_pair_to_verdicts_gate_and_report(tmp_path: Path) -> None:
    out, report = tmp_path / "results", tmp_path / "report"
    scored = evalgate_cli("score", DATA / "v1.jsonl", DATA / "v2.jsonl", "--out", out)
    assert scored.returncode == 0, scored.stderr
    printed = scored.stdout
    assert (
        f"v1: {DATA / 'v1.jsonl'} read as RAGAS / Hugging Face rows (JSONL, 6 rows): question ← 'user_input', "
        "answer ← 'response', passages ← 'retrieved_contexts', id ← the row order (q001, q002, …), "
        "gold accept ← 'reference', gold type ← 'type'; kept under meta: 'reference_contexts', 'synthesizer_name'"
    ) in printed
    assert "'reference' checked against the gold; kept under meta" in printed
    assert "id ← the gold question of the same text, 'reference' checked against the gold" in printed  # v2's rows
    assert f"gold: from {DATA / 'v1.jsonl'} (6 questions: 5 answerable, 1 no-answer;" in printed
    assert "gold: 1 reference(s) longer than 8 tokens (q005)" in printed
    # the columns fit their widest cell ("not measurable" beside recall@5), so the spacing is not pinned
    assert re.search(r"\naccuracy on answerable +40\.0% +80\.0% +\+40\.0 pts ", printed), printed

    assert _verdicts(out) == {c: (CORRECT[c], HALLUCINATION[c]) for c in ("v1", "v2")}
    results = load_results(out)
    assert [r.question_id for r in results.rows] == IDS * 2
    assert results.summary.configs["v1"]["refusal_accuracy"] == 1.0
    assert results.summary.configs["v2"]["refusal_accuracy"] == 0.0
    assert all(r.retrieval_metrics is None for r in results.rows)  # plain-string contexts name no document
    gold = results.manifest.gold
    assert (gold["from_answer_log"], gold["path"], gold["questions_in_file"]) == (True, str(DATA / "v1.jsonl"), 6)
    assert results.manifest.configs["v2"]["answer_log"]["shape"] == {
        "rows": "RAGAS / Hugging Face rows",
        "format": "JSONL",
        "columns": {"question": "user_input", "answer": "response", "passages": "retrieved_contexts",
                    "accept": "reference", "type": "type"},
        "ids": "row order",
        "meta": ["reference_contexts", "synthesizer_name"],
    }  # fmt: skip

    gate = evalgate_cli("gate", "--results", out)
    # six questions show no rule within its limit: INCONCLUSIVE, exit 4 (issue 53); 0 when a team allows it
    assert gate.returncode == 4, gate.stdout + gate.stderr
    assert "judged 6 questions per config" in gate.stdout and "INCONCLUSIVE" in gate.stdout
    assert evalgate_cli("gate", "--results", out, "--allow-inconclusive").returncode == 0
    failing = evalgate_cli("gate", "--results", out, "--thresholds", _point_thresholds(tmp_path))
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "refusal accuracy on no-answer: delta -100.0 pts" in failing.stdout and "FAIL" in failing.stdout

    built = evalgate_cli("report", "--results", out, "--out", report, "--no-appendices", "--no-progress")
    assert built.returncode == 0, built.stderr
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "EvalGate report: v2 vs v1" in page and "External pipeline." in page
    assert "The free trial lasts 14 days." in page and "Yes, Nimbus offers a lifetime licence for $99." in page


def test_a_ragas_csv_pair_scores_to_the_same_rows_and_gates(tmp_path: Path) -> None:
    """v1.csv (pandas' Python-literal list cells) and v2.csv (JSON cells), RAGAS 0.1 names: the JSONL pair's rows."""
    out = tmp_path / "results"
    scored = evalgate_cli("score", DATA / "v1.csv", DATA / "v2.csv", "--out", out)
    assert scored.returncode == 0, scored.stderr
    assert (
        f"v1: {DATA / 'v1.csv'} read as RAGAS / Hugging Face rows (CSV, 6 rows): question ← 'question', "
        "answer ← 'answer', passages ← 'contexts', id ← the row order (q001, q002, …), gold accept ← 'ground_truth', "
        "gold type ← 'type'; kept under meta: 'evolution_type'"
    ) in scored.stdout
    assert _verdicts(out) == {c: (CORRECT[c], HALLUCINATION[c]) for c in ("v1", "v2")}
    assert main(["score", str(DATA / "v1.jsonl"), str(DATA / "v2.jsonl"), "--out", str(tmp_path / "jsonl")]) == 0
    for name in ("results.jsonl", "summary.json"):  # the same rows in either file format: the same files
        assert (out / name).read_bytes() == (tmp_path / "jsonl" / name).read_bytes(), name
    gate = evalgate_cli("gate", "--results", out, "--thresholds", _point_thresholds(tmp_path))
    assert gate.returncode == 1 and "FAIL" in gate.stdout, gate.stdout + gate.stderr


def test_a_datasets_folder_scores_like_its_jsonl(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")  # in the [dev] extra; a team's own install elsewhere
    folder = tmp_path / "v1_dataset"
    rows = [json.loads(line) for line in (DATA / "v1.jsonl").read_text(encoding="utf-8").splitlines()]
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    table = read_table(folder)
    assert (table.format, table.rows[1].where) == ("Hugging Face datasets folder", f"{folder} row 2")
    assert table.rows[0].values == rows[0]
    out = tmp_path / "out"
    assert main(["score", str(folder), str(DATA / "v2.jsonl"), "--names", "v1,v2", "--out", str(out)]) == 0
    assert _verdicts(out) == {c: (CORRECT[c], HALLUCINATION[c]) for c in ("v1", "v2")}
    assert load_results(out).manifest.configs["v1"]["answer_log"]["shape"]["format"] == "Hugging Face datasets folder"
    # gold import reads the same folder (the same table reader and key mapping): the contexts found in the corpus
    gold = tmp_path / "gold.jsonl"
    assert main(["gold", "import", str(folder), "--out", str(gold), "--corpus", str(ROOT / "corpus")]) == 0
    imported = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines()]
    assert [(q["id"], q["type"], q["article"]) for q in imported] == [
        *((f"q00{n}", "answerable", "plans-and-pricing-2026") for n in range(1, 6)),
        ("q006", "no_answer", None),
    ]
    # a DatasetDict of several splits: each split's folder is named
    splits = {"train": datasets.Dataset.from_list(rows), "test": datasets.Dataset.from_list(rows)}
    datasets.DatasetDict(splits).save_to_disk(str(tmp_path / "splits"))
    with pytest.raises(InputError, match=r"splits holds 2 splits \(train, test\): name one \(.*splits/train, "):
        read_table(tmp_path / "splits")
    assert len(read_table(tmp_path / "splits" / "test").rows) == 6


def test_a_datasets_folder_without_the_package_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    import sys

    (tmp_path / "rows").mkdir()
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets now raises ImportError
    assert main(["score", str(tmp_path / "rows"), str(DATA / "v2.jsonl"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"evalgate: error: {tmp_path / 'rows'} is a folder: reading a Hugging Face datasets folder needs the "
        "'datasets' package (pip install datasets), or export it first with Dataset.to_json('rows.jsonl') or "
        ".to_csv('rows.csv')\n"
    )


def test_a_folder_save_to_disk_did_not_write_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    with pytest.raises(InputError, match=r"notes is a folder but not one Dataset.save_to_disk wrote"):
        read_answer_log(tmp_path / "notes")


# --- reading rows -----------------------------------------------------------------------------------------------------


def table(*rows: dict[str, object], fmt: str = "JSONL") -> Table:
    columns = tuple(dict.fromkeys(k for row in rows for k in row))
    return Table("in.jsonl", fmt, columns, tuple(Row(f"in.jsonl:{n}", dict(r)) for n, r in enumerate(rows, start=1)))


RAGAS = {"user_input": "Q?", "retrieved_contexts": ["c1", "c2"], "response": "A.", "reference": "3 seats"}


def test_one_mapping_of_foreign_keys_serves_score_and_gold_import() -> None:
    from evalgate_lib.gold_tools.gold_import import ROLES
    from evalgate_lib.inputs.foreign_logs import GOLD_ROLES, LOG_ROLES

    # gold import's roles are made of the same names, in the same order
    assert ROLES["question"] == LOG_ROLES["question"] == FOREIGN_KEYS["question"] == ("question", "user_input")
    assert ROLES["accept"] == (*GOLD_ROLES["accept"], "answer")  # 'answer' is a reference only in Q/A pairs there
    assert LOG_ROLES["answer"] == ("response", "answer") and LOG_ROLES["passages"] == ("contexts", "retrieved_contexts")
    assert set(SHAPE_KEYS) == {"user_input", "ground_truth", "reference", "ground_truths", "response", "contexts",
                               "retrieved_contexts", "reference_contexts"}  # fmt: skip
    assert is_own_line({"question_id": "q1", "answer": "a", "passages": []})
    assert is_own_line({"question_id": "q1", "answer": "a", "type": "x"})  # EvalGate's keys and a stray one
    assert not is_own_line(RAGAS)


def test_rows_become_lines_with_everything_else_under_meta() -> None:
    log = read_rows(table({**RAGAS, "id": 7, "synthesizer_name": "s", "rubrics": {"1": "x"}}, {**RAGAS, "id": "b"}))
    assert log.columns == {"id": "id", "question": "user_input", "answer": "response",
                           "passages": "retrieved_contexts", "accept": "reference"}  # fmt: skip
    assert log.meta == ("synthesizer_name", "rubrics") and not log.ids_from_row_order
    assert log.lines[0] == ("in.jsonl:1", {"question_id": "7", "question": "Q?", "answer": "A.",
                                           "passages": ["c1", "c2"],
                                           "meta": {"synthesizer_name": "s", "rubrics": {"1": "x"}}})  # fmt: skip
    assert "meta" not in log.lines[1][1]  # the second row has no other column
    assert log.mapping("unused") == (
        "RAGAS / Hugging Face rows (JSONL, 2 rows): id ← 'id', question ← 'user_input', answer ← 'response', "
        "passages ← 'retrieved_contexts'; kept under meta: 'synthesizer_name', 'rubrics'; "
        "not used (a gold file is given): 'reference'"
    )


def test_ragas_01_names_and_a_csv_list_cell_as_json_or_python() -> None:
    rows = [
        {"question": "Q1?", "contexts": '["a \\"b\\"", "c"]', "answer": "A1.", "ground_truths": '["x", "y"]'},
        {"question": "Q2?", "contexts": "['it''s', \"pip's\"]", "answer": "A2.", "ground_truths": "['z']"},
        {"question": "Q3?", "contexts": "", "answer": "A3.", "ground_truths": "w"},
    ]
    log = read_rows(table(*rows, fmt="CSV"))
    assert [line["passages"] for _, line in log.lines] == [['a "b"', "c"], ["its", "pip's"], []]
    assert [line["question_id"] for _, line in log.lines] == ["q001", "q002", "q003"] and log.ids_from_row_order
    assert [q.accept for q in gold_questions(log)] == [("x", "y"), ("z",), ("w",)]


def test_the_gold_from_rows_and_a_row_marked_no_answer() -> None:
    log = read_rows(
        table(
            {**RAGAS, "note": "n"},
            {**RAGAS, "reference": "", "answerable": "false"},
            {**RAGAS, "reference": "", "answerable": ""},  # empty type cell: the reference decides
        )
    )
    with pytest.raises(InputError, match=r"^in.jsonl:3: no reference answer for question 'q003' \(column 'reference' "
                                         r"is empty\); with no --gold the gold comes from these rows"):  # fmt: skip
        gold_questions(log)
    first_two = read_rows(table({**RAGAS, "note": "n"}, {**RAGAS, "reference": "", "answerable": "false"}))
    assert gold_questions(first_two) == [
        GoldQuestion("q001", "Q?", "answerable", None, ("3 seats",), None, "n"),
        GoldQuestion("q002", "Q?", "no_answer", None, (), None, None),
    ]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"user_input": "Q", "response": "A", "reference": "r"}], r"^in.jsonl: no passages column in RAGAS / Hugging "
         r"Face rows: expected one of 'contexts', 'retrieved_contexts' \(the contexts the pipeline retrieved"),
        ([{"user_input": "Q", "retreived_contexts": [], "response": "A"}], r"did you mean 'retrieved_contexts' for "
         r"'retreived_contexts'\?$"),
        ([{"user_input": "Q", "contexts": [], "reference": "r"}], r"^in.jsonl: no answer column"),
        ([{"contexts": [], "response": "A"}], r"^in.jsonl: no question column"),
        ([RAGAS, {**RAGAS, "user_input": " "}], r"^in.jsonl:2: column 'user_input': no question text$"),
        ([RAGAS, {**RAGAS, "response": ""}], r"^in.jsonl:2: column 'response' is empty \(the answer to question "
         r"'q002'\)"),
        ([{**RAGAS, "response": 3}], r"^in.jsonl:1: column 'response' must be a string, got 3"),
        ([{**RAGAS, "retrieved_contexts": ["a", 3]}], r"^in.jsonl:1: column 'retrieved_contexts': must be a string "
         r"or a list of strings"),
        ([{**RAGAS, "retrieved_contexts": ["a", " "]}], r"^in.jsonl:1: column 'retrieved_contexts': context 2 is "
         r"empty$"),
        ([{**RAGAS, "id": "x"}, {**RAGAS, "id": "x"}], r"^in.jsonl:2: question id 'x' is already used at in.jsonl:1$"),
    ],
)  # fmt: skip
def test_bad_rows_name_their_place_and_column(rows: list[dict], message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_rows(table(*rows))


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"retrieved_contexts": "['unclosed"}, "v1.csv:4: column 'contexts': looks like a list but is neither JSON"),
        ({"type": "maybe"}, "v1.csv:4: column 'type' must be one of ['answerable', 'no_answer'], got 'maybe'"),
        ({"reference": ""}, "v1.csv:4: no reference answer for question 'q003' (column 'ground_truth' is empty)"),
    ],
)
def test_a_bad_csv_row_is_one_line_with_file_line_and_column_and_exit_2(tmp_path: Path, change, message) -> None:
    """Through the real command line: one line on standard error, exit 2, nothing written."""
    rows = (DATA / "v1.csv").read_text(encoding="utf-8").splitlines()
    import csv
    import io

    records = list(csv.DictReader(io.StringIO("\n".join(rows) + "\n")))
    names = {"retrieved_contexts": "contexts", "reference": "ground_truth", "type": "type"}
    for key, value in change.items():
        records[2][names[key]] = value
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    bad = tmp_path / "v1.csv"
    bad.write_text(out.getvalue(), encoding="utf-8")
    proc = evalgate_cli("score", bad, DATA / "v2.csv", "--out", tmp_path / "o")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"evalgate: error: {tmp_path}/{message}") and proc.stderr.count("\n") == 1
    assert proc.stdout == "" and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("candidate", "message"),
    [
        # a reference that differs from the baseline's: the two logs are of different test sets
        (lambda rows: rows[1].update(reference="14 days"), "b.jsonl:2: column 'reference': question 'q002' has the "
         "reference '14 days' here, but the reference"),
        # no id column: a row is matched to the gold question of its text, and a text no gold question has is named
        (lambda rows: rows[0].update(user_input="Does Nimbus sell a lifetime licence?"), "b.jsonl:1: question 'Does "
         "Nimbus sell a lifetime licence?' is the text of no gold question (the rows have no id column, so each is "
         "matched to the gold question of the same text, Unicode NFC and whitespace aside)"),
        # a line in EvalGate's own format in a RAGAS file
        (lambda rows: rows.__setitem__(2, {"question_id": "q003", "answer": "x", "passages": []}), "b.jsonl:3: a line "
         "in EvalGate's own answer-log format, but the log's first line (b.jsonl:1) is in the shape of RAGAS"),
    ],
)  # fmt: skip
def test_the_candidate_rows_must_be_of_the_baseline_test_set(tmp_path: Path, capsys, candidate, message) -> None:
    rows = [json.loads(line) for line in (DATA / "v2.jsonl").read_text(encoding="utf-8").splitlines()]
    candidate(rows)
    b = _write(tmp_path / "b.jsonl", rows)
    assert main(["score", str(DATA / "v1.jsonl"), str(b), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert message in err and err.count("\n") == 1, err


def test_own_format_lines_stay_strict_and_need_a_gold_file(tmp_path: Path, capsys) -> None:
    own = _write(tmp_path / "own.jsonl", [{"question_id": "q001", "answer": "x", "passages": [], "type": "t"}])
    assert main(["score", str(own), str(DATA / "v2.jsonl"), "--out", str(tmp_path / "o")]) == 2
    assert "own.jsonl:1: unknown key 'type' in an answer-log line; valid keys: question_id, question, answer, " in (
        capsys.readouterr().err
    )
    fine = _write(tmp_path / "fine.jsonl", [{"question_id": "q001", "answer": "x", "passages": []}])
    assert main(["score", str(fine), str(DATA / "v2.jsonl"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        f"evalgate: error: {fine} is in EvalGate's own answer-log format, which holds no reference answers: pass "
        "--gold FILE (only a log of RAGAS / Hugging Face rows carries its gold)\n"
    )


def test_with_a_gold_file_the_rows_answer_it_and_their_references_are_not_used(tmp_path: Path, capsys) -> None:
    """A gold file made from the same rows (as `gold import` makes one): the ids agree, its accept list is the gold."""
    log = read_answer_log(DATA / "v1.jsonl")
    gold = [
        {
            "id": q.id,
            "question": q.question,
            "type": q.type,
            "article": "plans-and-pricing-2026" if q.answerable else None,
            "accept": ["18%"] if q.id == "q004" else list(q.accept),
        }
        for q in gold_questions(log.foreign)
    ]
    gold[4]["accept"] = ["Free plan"]  # q005 shortened to its key fact: now both versions state it
    path = _write(tmp_path / "gold.jsonl", gold)  # fmt: skip
    assert main(["score", str(DATA / "v1.jsonl"), str(DATA / "v2.csv"), "--gold", str(path), "--out",
                 str(tmp_path / "o")]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "not used (a gold file is given): 'reference', 'type'" in printed
    assert "gold: from" not in printed
    results = load_results(tmp_path / "o")
    assert [r.correct for r in results.rows if r.question_id == "q005"] == [True, True]
    assert "from_answer_log" not in results.manifest.gold
    ids = evalgate_cli("score", DATA / "v1.jsonl", DATA / "v2.jsonl", "--gold", ROOT / "gold" / "questions.jsonl",
                       "--out", tmp_path / "o2")  # fmt: skip
    assert ids.returncode == 2
    assert "is the text of no gold question (the rows have no id column, so each is matched" in ids.stderr


def test_rows_without_ids_match_the_gold_by_question_text_in_any_order(tmp_path: Path) -> None:
    """RAGAS rows carry no ids: with --gold each row answers the gold question of its text (NFC, whitespace aside)."""
    rows = [json.loads(line) for line in (DATA / "v2.jsonl").read_text(encoding="utf-8").splitlines()]
    gold = [
        {"id": f"g{n}", "question": row["user_input"], "type": "answerable", "article": "plans", "accept": ["x"]}
        for n, row in enumerate(rows, 1)
    ]
    path = _write(tmp_path / "gold.jsonl", gold)
    shuffled = [*reversed(rows)]
    shuffled[0]["user_input"] = unicodedata.normalize("NFD", "  " + shuffled[0]["user_input"].replace(" ", "\n "))
    log = _write(tmp_path / "b.jsonl", shuffled)
    assert main(["score", str(DATA / "v2.jsonl"), str(log), "--gold", str(path), "--out", str(tmp_path / "o")]) == 0
    results = load_results(tmp_path / "o")
    by_config = {c: {r.question_id: r.answer for r in results.rows if r.config == c} for c in ("v2", "b")}
    assert by_config["v2"] == by_config["b"] and sorted(by_config["b"]) == sorted(g["id"] for g in gold)


def test_a_question_asked_twice_is_matched_in_row_order(tmp_path: Path) -> None:
    """A test set that asks one question twice: its rows are matched to the gold questions of that text in order (the
    log the gold came from keeps its row-order ids); a row more than the gold has of that text is named."""
    rows = [json.loads(line) for line in (DATA / "v2.jsonl").read_text(encoding="utf-8").splitlines()]
    twice = [*rows, {**rows[0], "response": "Another answer."}]
    log = _write(tmp_path / "twice.jsonl", twice)
    assert main(["score", str(log), str(log), "--names", "a,b", "--out", str(tmp_path / "o")]) == 0
    results = load_results(tmp_path / "o")
    answers = {r.question_id: r.answer for r in results.rows if r.config == "b"}
    assert answers[f"q{len(twice):03d}"] == "Another answer." and answers["q001"] == rows[0]["response"]
    thrice = _write(tmp_path / "thrice.jsonl", [*twice[1:], twice[0], twice[0]])
    with pytest.raises(InputError, match=r"thrice\.jsonl:\d+: question .* is the text of 2 gold question\(s\), and an "
                       r"earlier row already answers each"):  # fmt: skip
        score_answer_logs(log, thrice, None, names=("a", "b"))
