"""``eg.AnswerLogger``: a team's pipeline writes its answer log one checked line per call, and it scores without edits.

The gold slice is the shipped set's q001–q003 (answerable, on ``plans-and-pricing-2026``) and the
no-answer q082. The "pipeline" logs each gold question's evidence as its one passage: a *careful*
version answers with the accepted string and declines q082, a *hasty* one declines everything. By
hand: careful 3/3 answerable and 1/1 refusal, hasty 0/3 and 1/1; every passage is the evidence, so
recall@1 and evidence-in-context hold for every answerable question of both.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, evalgate_cli

import evalgate_lib as eg
from evalgate_lib.api import load_results
from evalgate_lib.errors import OutputError
from evalgate_lib.inputs import answer_logger
from evalgate_lib.inputs.answer_logs import load_answer_log

SLICE = ("q001", "q002", "q003", "q082")


@pytest.fixture
def gold(tmp_path: Path) -> tuple[Path, list[dict]]:
    rows = [json.loads(line) for line in (ROOT / "gold" / "questions.jsonl").read_text().splitlines() if line.strip()]
    picked = [r for r in rows if r["id"] in SLICE]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in picked))
    return path, picked


def _pipeline(log: eg.AnswerLogger, questions: list[dict], careful: bool) -> None:
    for q in questions:
        evidence = (q.get("evidence") or ["Nimbus offers four plans."])[0]
        passage = {"text": evidence, "doc_id": q["article"] or "plans-and-pricing-2026", "title": "Plans and pricing",
                   "score": np.float32(0.75)}  # fmt: skip
        answer = f"It is {q['accept'][0]}." if careful and q["accept"] else "I don't know."
        log.write(q["id"], answer, [passage], question=q["question"], meta={"latency_ms": 120, "model": "m-1"})


def test_a_log_written_by_the_logger_scores_without_edits(tmp_path: Path, gold) -> None:
    path, questions = gold
    for name, careful in (("hasty", False), ("careful", True)):
        with eg.AnswerLogger(tmp_path / f"{name}.jsonl", gold=path) as log:
            assert log.missing == SLICE
            _pipeline(log, questions, careful)
            assert log.logged == SLICE and log.missing == ()
    first = json.loads((tmp_path / "careful.jsonl").read_text().splitlines()[0])
    assert first == {
        "question_id": "q001",
        "question": "How many seats does the Starter plan include?",
        "answer": "It is 3 seats.",
        "passages": [{"text": "Starter includes 3 seats in its flat price", "doc_id": "plans-and-pricing-2026",
                      "title": "Plans and pricing", "score": float(np.float32(0.75))}],
        "meta": {"latency_ms": 120, "model": "m-1"},
    }  # fmt: skip
    assert load_answer_log(tmp_path / "careful.jsonl", SLICE).answers[0].meta == {"latency_ms": 120, "model": "m-1"}
    out = tmp_path / "out"
    proc = evalgate_cli(
        "score", tmp_path / "hasty.jsonl", tmp_path / "careful.jsonl", "--gold", path, "--corpus", ROOT / "corpus",
        "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    results = load_results(out)
    assert results.summary.configs["hasty"]["accuracy_answerable"] == 0.0
    assert results.summary.configs["careful"]["accuracy_answerable"] == 1.0
    assert results.summary.configs["careful"]["refusal_accuracy"] == 1.0
    answerable = [r for r in results.rows if r.type == "answerable"]
    assert len(answerable) == 6
    assert all(r.retrieval_metrics.gold_rank == 1 and r.retrieval_metrics.evidence_hit for r in answerable)
    assert {r.top_similarity for r in results.rows} == {float(np.float32(0.75))}
    gate = evalgate_cli("gate", "--results", out)
    # six answerable questions show no rule within its limit: INCONCLUSIVE, exit 4 (issue 53), the folder judged
    assert gate.returncode == 4 and "INCONCLUSIVE" in gate.stdout, gate.stdout + gate.stderr


LINE = {"question_id": "q001", "answer": "It is 3 seats.", "passages": [{"text": "Starter includes 3 seats"}]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": "  "}, "answer to 'q001': empty answer for question 'q001'"),
        ({"question_id": "q01"}, "answer to 'q01': question id 'q01' is not in the gold set; did you mean 'q001'?"),
        ({"question": "How many seats?"}, "'question' 'How many seats?' is not the text of gold question 'q001'"),
        ({"passages": "Starter includes 3 seats"}, "answer to 'q001': 'passages' must be a list of passages"),
        ({"passages": [{"text": ""}]}, "passage 1: a passage needs a non-empty 'text' string"),
        ({"passages": [{"txt": "a"}]}, "passage 1: unknown key 'txt' in a passage; did you mean 'text'?"),
        ({"passages": [{"text": "a", "score": 1.5}]}, "passage 1: a passage's 'score' must be a cosine similarity"),
        ({"passages": [{"text": "a", "score": float("nan")}]}, "passage 1: a passage's 'score' must be a number"),
        ({"passages": [{"text": "a", "doc_id": ""}]}, "passage 1: a passage's 'doc_id' must be a non-empty string"),
        ({"passages": [object()]}, "passage 1: a passage must be a string or an object with 'text', got object"),
        ({"meta": ["a"]}, "answer to 'q001': 'meta' must be a mapping, got list"),
        ({"meta": {"when": object()}}, "'meta' cannot be written as JSON (Object of type object is not JSON"),
        ({"meta": {"ratio": float("inf")}}, "'meta' cannot be written as JSON (Out of range float values"),
        ({"answer": "3 seats \ud800"}, "answer holds \\ud800 at character 8, half of a UTF-16 pair"),
    ],
)
def test_a_bad_value_raises_at_the_call_and_writes_nothing(tmp_path: Path, gold, change, message) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path, gold=gold[0]) as log:
        log.write("q002", "It is $18.", ["| Business | $18 per user per month |"])
        before = path.read_bytes()
        line = {**LINE, **change}
        with pytest.raises(eg.InputError) as raised:
            log.write(line.pop("question_id"), line.pop("answer"), line.pop("passages"), **line)
        assert message in str(raised.value) and str(raised.value).startswith(f"{path}: answer to ")
        assert path.read_bytes() == before and log.logged == ("q002",)
        log.write(**LINE)  # the same call with good values goes through
    assert [a.question_id for a in load_answer_log(path, ["q002", "q001"]).answers] == ["q002", "q001"]


def test_an_id_twice_is_refused_and_a_log_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path) as log:
        log.write(**LINE)
        with pytest.raises(eg.InputError, match=r"answer to 'q001': already logged \(answer 1 of the log\)$"):
            log.write(**LINE)
        with pytest.raises(eg.InputError, match="AnswerLogger.missing needs the gold set"):
            log.missing  # noqa: B018
    with pytest.raises(eg.InputError, match=r"log.jsonl already holds answers: pass resume=True to continue it"):
        eg.AnswerLogger(path)
    with pytest.raises(eg.InputError, match=r"log.jsonl is closed"):
        log.write(**{**LINE, "question_id": "q002"})


def test_resume_continues_a_log_and_keeps_its_ids(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path) as log:
        log.write(**LINE)
    with eg.AnswerLogger(path, resume=True) as log:
        assert log.logged == ("q001",)
        with pytest.raises(eg.InputError, match="already logged"):
            log.write(**LINE)
        log.write(**{**LINE, "question_id": "q002"})
    assert [json.loads(x)["question_id"] for x in path.read_text().splitlines()] == ["q001", "q002"]


def test_resume_removes_a_half_written_last_line_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    whole = json.dumps(LINE) + "\n"
    path.write_text(whole + '{"question_id": "q002", "answer": "It is')  # a writer killed inside its write
    with pytest.warns(UserWarning, match=r"log.jsonl:2: removed an unterminated last line \(40 bytes"):
        log = eg.AnswerLogger(path, resume=True)
    with log:
        assert log.logged == ("q001",)
        log.write(**{**LINE, "question_id": "q002"})
    assert path.read_text() == whole + json.dumps({**LINE, "question_id": "q002"}) + "\n"
    # a complete last line someone wrote without its newline is kept, and the next line starts on a line of its own
    path.write_text(whole.rstrip("\n"))
    with eg.AnswerLogger(path, resume=True) as log:
        log.write(**{**LINE, "question_id": "q002"})
    assert [json.loads(x)["question_id"] for x in path.read_text().splitlines()] == ["q001", "q002"]


def test_resume_refuses_a_log_whose_lines_are_bad(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(LINE) + "\n" + json.dumps({**LINE, "answr": "x"}) + "\n")
    with pytest.raises(eg.InputError, match=r"log.jsonl:2: unknown key 'answr' in an answer-log line"):
        eg.AnswerLogger(path, resume=True)
    path.write_text(json.dumps(LINE) + "\n" + json.dumps(LINE) + "\n")
    with pytest.raises(eg.InputError, match=r"log.jsonl:2: question 'q001' answered twice \(answer 1 of the log\)"):
        eg.AnswerLogger(path, resume=True)
    eg.AnswerLogger(tmp_path / "other.jsonl").close()  # the refused opens left no lock behind on other files


def test_one_writer_per_file(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path):
        with pytest.raises(eg.InputError, match="is open in another AnswerLogger"):
            eg.AnswerLogger(path, resume=True)
    with eg.AnswerLogger(path, resume=True) as log:  # closed: free again
        log.write(**LINE)


def test_a_write_the_disk_refuses_half_way_leaves_no_half_line(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path) as log:
        log.write(**LINE)
        before = path.read_bytes()
        real_write = answer_logger.os.write
        calls = []

        def full_disk(fd: int, data: bytes | memoryview) -> int:
            calls.append(len(data))
            if len(calls) == 1:
                return real_write(fd, bytes(data[:10]))  # the system takes 10 bytes, then the disk is full
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(answer_logger.os, "write", full_disk)
        with pytest.raises(OutputError, match=r"cannot write answer log .*log.jsonl \(No space left on device\)"):
            log.write(**{**LINE, "question_id": "q002"})
        monkeypatch.undo()
        assert path.read_bytes() == before and log.logged == ("q001",) and calls[1] == calls[0] - 10
        log.write(**{**LINE, "question_id": "q002"})  # space again: the next call writes a whole line
    assert [json.loads(x)["question_id"] for x in path.read_text().splitlines()] == ["q001", "q002"]


def test_threads_of_one_pipeline_share_a_logger(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with eg.AnswerLogger(path) as log:
        workers = [
            threading.Thread(target=lambda n=n: [log.write(**{**LINE, "question_id": f"t{n}-{i}"}) for i in range(25)])
            for n in range(4)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    ids = [json.loads(x)["question_id"] for x in path.read_text().splitlines()]
    assert sorted(ids) == sorted(f"t{n}-{i}" for n in range(4) for i in range(25)) and list(log.logged) == ids


def test_a_line_score_would_refuse_is_refused_at_the_call(tmp_path: Path) -> None:
    """Issue 56: ``meta`` nested past 64 levels and a line over 16 MiB were written, then refused by ``score``. The
    logger refuses both at the call, by the reader's own bounds, and the log holds only what the reader reads."""
    from evalgate_lib.errors import InputError
    from evalgate_lib.inputs.structured import MAX_DEPTH, MAX_LINE_CHARS

    path = tmp_path / "log.jsonl"
    nested: dict = {}
    for _ in range(MAX_DEPTH - 2):  # the line's own object and "meta" make it 64 levels: the most score reads
        nested = {"x": nested}
    deeper: list = []
    for _ in range(5_000):  # deeper than json.dumps can go: refused, not a RecursionError
        deeper = [deeper]
    with eg.AnswerLogger(path) as log:
        for meta in ({"x": nested}, deeper):
            with pytest.raises(InputError, match=r"the line would nest more than 64 levels of arrays and objects, "
                               r"which evalgate score refuses to read .*Nothing was written$"):  # fmt: skip
                log.write("q1", "An answer.", [], meta=meta if isinstance(meta, dict) else {"deep": meta})
        with pytest.raises(InputError, match=r"the line would be 16,777,2\d\d characters, and evalgate score reads "
                           r"lines of at most 16,777,216 \(16 MiB\)"):  # fmt: skip
            log.write("q1", "An answer.", ["x" * (MAX_LINE_CHARS - 40)])
        log.write("q1", "An answer.", [], meta=nested)  # 63 levels in all: written
    assert len(path.read_text().splitlines()) == 1
    assert load_answer_log(path, ["q1"]).answers[0].question_id == "q1"  # what score reads
