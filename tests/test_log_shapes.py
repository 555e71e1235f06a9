"""Answer logs as teams keep them (issue 54): references that decline, rows without ids, and one verdict whatever
the log's shape (RAGAS rows, a Hugging Face CSV, ``AnswerLogger`` lines, EvalGate's own lines)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from evalgate_lib import AnswerLogger
from evalgate_lib.cli import main
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.run.external import reference_declines

ARTICLE = (
    "# Refunds\n\nA refund can be asked for within 14 days of the charge. Annual plans are refunded pro rata.\n\n"
    "## How to ask\n\nWrite to billing from the admin console; refunds reach the card in five working days.\n"
)
PASSAGE = "A refund can be asked for within 14 days of the charge. Annual plans are refunded pro rata."
QUESTIONS = [
    ("How long after a charge can a refund be asked for?", "14 days", "A refund can be asked for within 14 days."),
    ("Does Nimbus sell lifetime licences?", "The documentation does not answer this.", "I don't know."),
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _ragas(path: Path) -> Path:
    rows = [{"user_input": q, "retrieved_contexts": [PASSAGE], "response": a, "reference": r} for q, r, a in QUESTIONS]
    return _write(path, rows)


def _corpus(tmp_path: Path) -> Path:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "refunds.md").write_text(ARTICLE, encoding="utf-8")
    return tmp_path / "kb"


def test_a_reference_that_declines_is_read_as_the_judge_reads_a_refusal() -> None:
    assert reference_declines("The documentation does not answer this.", "Does Nimbus sell lifetime licences?")
    assert not reference_declines("14 days", "How long after a charge can a refund be asked for?")


def test_ragas_rows_whose_reference_declines_are_no_answer_questions(tmp_path: Path, capsys) -> None:
    log = _ragas(tmp_path / "a.jsonl")
    assert main(["score", str(log), str(log), "--names", "a,b", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "2 questions: 1 answerable, 1 no-answer, 1 of them because the reference declines (q002; " in out
    # no doc ids and no --corpus: the retrieval rows are n/a, their McNemar p too (no "1.000" beside an n/a delta)
    (recall,) = [line for line in out.splitlines() if line.startswith("recall@1 (doc) ")]
    assert recall.split()[-5:] == ["n/a"] * 5
    rows = [json.loads(line) for line in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    refused = [r for r in rows if r["question_id"] == "q002"]
    assert [r["type"] for r in refused] == ["no_answer", "no_answer"]
    assert all(r["judgement"]["correct"] for r in refused)  # "I don't know." is the right answer now
    assert main(["score", str(log), str(log), "--names", "a,b", "--declined-references", "answerable",
                 "--out", str(tmp_path / "o2")]) == 0  # fmt: skip
    assert "2 answerable, 0 no-answer" in capsys.readouterr().out


def test_gold_import_reads_a_declining_reference_the_same_way(tmp_path: Path, capsys) -> None:
    log = _ragas(tmp_path / "a.jsonl")
    assert main(["gold", "import", str(log), "--out", str(tmp_path / "gold.jsonl"), "--corpus",
                 str(_corpus(tmp_path))]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "imported: 2 of 2 rows (1 answerable, 1 no-answer, 1 of them because the reference declines (q002;" in out
    gold = load_gold(tmp_path / "gold.jsonl")
    assert [(q.id, q.type, q.accept) for q in gold] == [
        ("q001", "answerable", ("14 days",)),
        ("q002", "no_answer", ()),
    ]


def test_one_answer_gets_one_verdict_in_every_log_shape(tmp_path: Path) -> None:
    """The same answers and passage text as RAGAS rows (no ids: matched by question text), a Hugging Face CSV,
    AnswerLogger lines (with a title of their own) and EvalGate's own lines: byte-identical verdicts, and the
    passages without a doc_id placed in the corpus for the retrieval metrics."""
    corpus = _corpus(tmp_path)
    gold = _write(tmp_path / "gold.jsonl", [
        {"id": "r1", "question": QUESTIONS[0][0], "type": "answerable", "article": "refunds", "accept": ["14 days"]},
        {"id": "r2", "question": QUESTIONS[1][0], "type": "no_answer", "article": None, "accept": []},
    ])  # fmt: skip
    shapes = {"ragas": _ragas(tmp_path / "ragas.jsonl")}
    shapes["hf"] = tmp_path / "hf.csv"
    with shapes["hf"].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "contexts", "answer", "ground_truth"])
        for q, r, a in QUESTIONS:
            writer.writerow([q, json.dumps([PASSAGE]), a, r])
    shapes["logger"] = tmp_path / "logger.jsonl"
    with AnswerLogger(shapes["logger"], gold=gold) as logger:
        for qid, (_, _, a) in zip(("r1", "r2"), QUESTIONS, strict=True):
            logger.write(qid, a, [{"text": PASSAGE, "doc_id": "refunds", "title": "Refunds | Nimbus Help"}])
    ids = ("r1", "r2")
    own = [{"question_id": qid, "answer": q[2], "passages": [PASSAGE]} for qid, q in zip(ids, QUESTIONS, strict=True)]
    shapes["own"] = _write(tmp_path / "own.jsonl", own)
    verdicts = {}
    for name, log in shapes.items():
        out = tmp_path / f"out-{name}"
        assert main(["score", str(shapes["own"]), str(log), "--names", f"base,{name}", "--gold", str(gold),
                     "--corpus", str(corpus), "--out", str(out)]) == 0  # fmt: skip
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        mine = [r for r in rows if r["config"] == name]
        verdicts[name] = json.dumps([[r["question_id"], r["judgement"]] for r in mine], sort_keys=True)
        assert all(r["retrieval_metrics"] is not None for r in mine if r["type"] == "answerable"), name
    assert len(set(verdicts.values())) == 1, verdicts


def test_corpus_places_rows_contexts_and_says_what_that_gives(tmp_path: Path, capsys) -> None:
    """With --corpus, a RAGAS row's contexts get their article (its title read as in every shape); without --gold
    the gold from the rows names no gold article, so the command says the retrieval metrics stay empty."""
    log = _ragas(tmp_path / "a.jsonl")
    argv = ["score", str(log), str(log), "--names", "a,b", "--corpus", str(_corpus(tmp_path))]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "a: 2 passage(s) without a doc_id placed in the corpus by their text (their articles; the gold from the " \
        "rows names no gold article, so retrieval metrics stay empty" in out  # fmt: skip
    rows = [json.loads(line) for line in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert {c["article_id"] for r in rows for c in r["retrieved"]} == {"refunds"}
