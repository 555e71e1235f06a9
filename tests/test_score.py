"""``evalgate score``: answer logs from a pipeline EvalGate did not run, judged end to end.

The gold slice is three answerable questions of the shipped set (q001–q003) and one
no-answer question (q082), against the shipped corpus. The baseline log refuses
everything; the candidate log answers with the accepted string, quoting the evidence
as its passage. So, by hand: baseline accuracy on answerable 0/3, refusal accuracy 1/1;
candidate 3/3 and 0/1 (it answers the no-answer question too).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.api import load_results
from evalgate_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
SLICE = ("q001", "q002", "q003", "q082")


def _gold(tmp_path: Path) -> tuple[Path, list[dict]]:
    rows = [json.loads(line) for line in (ROOT / "gold" / "questions.jsonl").read_text().splitlines() if line.strip()]
    picked = [r for r in rows if r["id"] in SLICE]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in picked))
    return path, picked


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def _logs(tmp_path: Path, gold: list[dict]) -> tuple[Path, Path]:
    refuse, answer = [], []
    for q in gold:
        evidence = (q.get("evidence") or ["Nimbus offers four plans."])[0]
        passages = [{"text": evidence, "doc_id": q["article"] or "plans-and-pricing-2026", "score": 0.8}]
        refuse.append({"question_id": q["id"], "answer": "I don't know.", "passages": passages})
        said = q["accept"][0] if q["accept"] else "a lifetime licence for $99"
        answer.append({"question_id": q["id"], "answer": f"It is {said}.", "passages": passages, "meta": {"ms": 12}})
    return _write(tmp_path / "v1.jsonl", refuse), _write(tmp_path / "v2.jsonl", list(reversed(answer)))


def _score(tmp_path: Path, *args: str) -> int:
    return main(["score", *args, "--out", str(tmp_path / "out")])


def test_scores_two_logs_end_to_end(tmp_path, capsys):
    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold), "--corpus", str(CORPUS)) == 0
    printed = capsys.readouterr().out
    assert "fairness: declared by you, not enforced" in printed
    results = load_results(tmp_path / "out")
    rows, summary, manifest = results.rows, results.summary, results.manifest
    assert [r.config for r in rows] == ["v1"] * 4 + ["v2"] * 4
    assert [r.question_id for r in rows] == list(SLICE) * 2  # gold order, whatever order the log used
    v1_stats, v2_stats = summary.configs["v1"], summary.configs["v2"]
    assert v1_stats["accuracy_answerable"] == 0.0 and v1_stats["refusal_accuracy"] == 1.0
    assert v2_stats["accuracy_answerable"] == 1.0 and v2_stats["refusal_accuracy"] == 0.0
    # the passage is the evidence itself: recall@1 and evidence-in-context for every answerable question
    answerable = [r for r in rows if r.type == "answerable"]
    assert all(r.retrieval_metrics.gold_rank == 1 and r.retrieval_metrics.evidence_hit for r in answerable)
    assert manifest.is_external and manifest.pipeline["kind"] == "external"
    assert "not enforced" in manifest.pipeline["fairness"]
    assert manifest.limit is None and manifest.questions_per_config == {"v1": 4, "v2": 4}
    assert manifest.files["results.jsonl"]["rows"] == 8
    assert manifest.configs["v2"]["answer_log"] == {
        "path": str(v2),
        "sha256": manifest.configs["v2"]["sha256"],
        "answers": 4,
        "passages": 4,
        "doc_ids": True,
        "scores": True,
    }
    # the gate reads the folder like any other
    assert main(["gate", "--results", str(tmp_path / "out")]) in (0, 1, 4)  # 4: INCONCLUSIVE (issue 53)


def test_same_verdicts_as_judge_answer(tmp_path):
    """A logged answer gets exactly the verdict the public judge gives it."""
    import evalgate_lib as eg

    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold)) == 0
    rows = load_results(tmp_path / "out").rows
    q = picked[0]
    row = next(r for r in rows if r.config == "v2" and r.question_id == q["id"])
    judged = eg.judge_answer(
        question=q["question"],
        answer=row.answer,
        passages=[(q["article"], q["evidence"][0])],
        accept=q["accept"],
        top_similarity=0.8,
    )
    assert (row.correct, row.flags) == (judged.correct, judged.flags)
    # rows round coverages to 6 places (byte-stable files); everything else is the judge's own verdict
    assert [(s.text, s.supported, s.span, s.reason) for s in row.sentences] == [
        (s.text, s.supported, s.span, s.reason) for s in judged.sentences
    ]
    assert [s.coverage for s in row.sentences] == [round(s.coverage, 6) for s in judged.sentences]


def test_without_doc_ids_retrieval_metrics_are_unknown_not_zero(tmp_path):
    gold, picked = _gold(tmp_path)
    lines = [{"question_id": q["id"], "answer": "I don't know.", "passages": ["some text"]} for q in picked]
    v1 = _write(tmp_path / "a.jsonl", lines)
    v2 = _write(tmp_path / "b.jsonl", lines)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold)) == 0
    results = load_results(tmp_path / "out")
    rows, manifest = results.rows, results.manifest
    assert all(r.retrieval_metrics is None and r.retrieval_hit is None for r in rows)
    assert all(r.top_similarity == 1.0 for r in rows)  # no score logged: confidence is groundedness alone
    assert manifest.configs["a"]["answer_log"]["doc_ids"] is False


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", "a.jsonl:2: not valid JSON"),
        ('{"question_id": "q001", "answer": "  ", "passages": []}', "a.jsonl:2: empty answer for question 'q001'"),
        ('{"question_id": "q999", "answer": "x", "passages": []}', "a.jsonl:2: question id 'q999' is not in the gold"),
        ('{"question_id": "q001", "answer": "x", "passages": []}', "a.jsonl:2: question 'q001' answered twice"),
        (
            '{"question_id": "q002", "answr": "x", "passages": []}',
            "a.jsonl:2: unknown key 'answr' in an answer-log line; did you mean 'answer'?",
        ),
        ('{"question_id": "q002", "answer": "x"}', "a.jsonl:2: missing key 'passages'"),
        ('{"question_id": "q002", "answer": "x", "passages": "text"}', "a.jsonl:2: 'passages' must be a list"),
        (
            '{"question_id": "q002", "answer": "x", "passages": [{"txt": "a"}]}',
            "a.jsonl:2: passage 1: unknown key 'txt' in a passage; did you mean 'text'?",
        ),
        (
            '{"question_id": "q002", "answer": "x", "passages": [{"text": "a", "score": 7.5}]}',
            "a.jsonl:2: passage 1: a passage's 'score' must be a cosine similarity",
        ),
        (
            '{"question_id": "q002", "answer": "x", "passages": [{"text": "a", "doc_id": "plans-and-pricing"}]}',
            "a.jsonl:2: passage 1: doc_id 'plans-and-pricing' is not an article of the corpus; did you mean",
        ),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, capsys, line, expected):
    gold, picked = _gold(tmp_path)
    good = {"question_id": "q001", "answer": "I don't know.", "passages": []}
    rest = [{**good, "question_id": q} for q in ("q003", "q082")]
    bad = _write(tmp_path / "a.jsonl", [good, line, *rest])
    other = _write(tmp_path / "b.jsonl", [{**good, "question_id": q["id"]} for q in picked])
    assert _score(tmp_path, str(bad), str(other), "--gold", str(gold), "--corpus", str(CORPUS)) == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_missing_questions_are_listed(tmp_path, capsys):
    gold, picked = _gold(tmp_path)
    partial = _write(tmp_path / "a.jsonl", [{"question_id": "q001", "answer": "x", "passages": []}])
    full = _write(tmp_path / "b.jsonl", [{"question_id": q["id"], "answer": "x", "passages": []} for q in picked])
    assert _score(tmp_path, str(partial), str(full), "--gold", str(gold)) == 2
    assert "a.jsonl: no answer for 3 gold question(s): q002, q003, q082" in capsys.readouterr().err


def test_same_names_need_names_option(tmp_path, capsys):
    gold, picked = _gold(tmp_path)
    lines = [{"question_id": q["id"], "answer": "x", "passages": []} for q in picked]
    (tmp_path / "x").mkdir()
    a = _write(tmp_path / "x" / "log.jsonl", lines)
    b = _write(tmp_path / "log.jsonl", lines)
    assert _score(tmp_path, str(a), str(b), "--gold", str(gold)) == 2
    assert "--names" in capsys.readouterr().err
    assert _score(tmp_path, str(a), str(b), "--gold", str(gold), "--names", "old,new") == 0
    summary = load_results(tmp_path / "out").summary
    assert (summary.baseline, summary.candidate) == ("old", "new")


@pytest.mark.slow
def test_the_report_and_gate_read_a_scored_folder(tmp_path):
    """The stakeholder report renders answers scored from logs (no corpus given) and says they are external."""
    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold)) == 0
    report = tmp_path / "report"
    assert main(["report", "--results", str(tmp_path / "out"), "--out", str(report), "--no-progress"]) == 0
    text = (report / "index.html").read_text(encoding="utf-8")
    assert "External pipeline." in text and "The fairness contract is not checked for them" in text
    # EvalGate's chunking played no part: notebook 01 is not run, and the report says why
    assert 'href="notebooks/01_corpus_inspection.html"' not in text
    assert "<b>01_corpus_inspection</b>: the answers were scored from logs (evalgate score)" in text
    assert "v1" in text and "v2" in text


def _label_all(tmp_path: Path) -> Path:
    """A reviewer's label of every answer of the scored folder: correct as the judge says, no unsupported claim."""
    from evalgate_lib.inputs.labels import Label, LabelStore, answer_sha256

    store = LabelStore(tmp_path / "labels.jsonl")
    for r in load_results(tmp_path / "out").rows:
        label = Label(r.config, r.question_id, answer_sha256(r.answer), r.correct, False, "ana", verdicts_hidden=True)
        store.put(label)
    return tmp_path / "labels.jsonl"


def test_agreement_reads_a_folder_scored_without_corpus(tmp_path, capsys):
    """Issue 53: without ``--corpus`` the rejudged passages were looked up in an empty corpus (``KeyError`` on the
    logged doc id, internal error, exit 3); the rows carry the passages' text, which is what they are judged on."""
    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold)) == 0
    labels = _label_all(tmp_path)
    capsys.readouterr()
    assert main(["agreement", "--results", str(tmp_path / "out"), "--labels", str(labels)]) == 0
    printed = capsys.readouterr().out
    # 8 answers labelled, correctness as the judge's: accuracy 4 of 8 (v1 refuses the no-answer question,
    # v2 answers the three answerable ones) on both sides
    assert "accuracy               judge  50.0%  labels  50.0%" in printed


@pytest.mark.slow
def test_the_report_reads_labels_of_a_folder_scored_without_corpus(tmp_path):
    """Issue 53: ``evalgate report --labels`` on such a folder failed in notebook 05 (its agreement section)."""
    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold)) == 0
    labels = _label_all(tmp_path)
    report = tmp_path / "report"
    args = ["report", "--results", str(tmp_path / "out"), "--labels", str(labels), "--no-appendices", "--no-progress"]
    assert main([*args, "--thresholds", str(ROOT / "configs" / "gate.toml"), "--out", str(report)]) == 0
    assert "Measured against 8 reviewer-labelled answers" in (report / "index.html").read_text(encoding="utf-8")


def test_a_logged_passage_not_in_its_article_is_said_so_in_the_details():
    from conftest import make_row

    from evalgate_lib.judging.rows import RetrievedChunk
    from evalgate_lib.reporting.answer_details import chunks_html

    placed = RetrievedChunk(1, "a#0", "a", 0, 0, 5, 0.9)
    unplaced = RetrievedChunk(2, "a#1", "a", 1, -1, -1, 0.8)
    html, _ = chunks_html(make_row(retrieved=(placed, unplaced)), {"a": "Hello world"})
    assert "Hello" in html
    assert html.count("passage text not found verbatim in its article") == 1


def test_skipped_corpus_files_are_printed_and_recorded(tmp_path, capsys):
    """A file of --corpus that is not a document is never skipped silently (as in ``evalgate run``)."""
    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)
    corpus = tmp_path / "kb"
    corpus.mkdir()
    for article in CORPUS.iterdir():
        (corpus / article.name).write_bytes(article.read_bytes())
    (corpus / "diagram.png").write_bytes(b"\x89PNG")
    assert _score(tmp_path, str(v1), str(v2), "--gold", str(gold), "--corpus", str(corpus)) == 0
    printed = capsys.readouterr().out
    assert f"skipped corpus file {corpus / 'diagram.png'}: not a document type" in printed
    manifest = load_results(tmp_path / "out").manifest
    assert [s["path"] for s in manifest.corpus["skipped"]] == [str(corpus / "diagram.png")]
    assert manifest.corpus["skipped"][0]["reason"].startswith("not a document type")
