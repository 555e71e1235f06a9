"""``evalgate retrieve`` without a model: the skeleton's lines, the format ``score`` reads, and what it refuses.

The retrieval itself runs on a counting fake backend here (the real embedder runs in
``tests/test_own_pipeline.py``): whatever the vectors, each line must hold the gold question, the
top-k chunks of the config's own chunking in rank order with their text, ``doc_id``, title, score
and span, an empty answer, and no generation may happen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CountingBackend

import evalgate_lib as eg
from evalgate_lib.chunks.chunking import chunk_corpus
from evalgate_lib.errors import InputError
from evalgate_lib.generation.cache import ModelCache
from evalgate_lib.inputs.answer_logs import load_answer_log, parse_line
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import load_corpus
from evalgate_lib.run import skeleton as skeleton_module
from evalgate_lib.run.skeleton import write_skeleton

ROOT = Path(__file__).resolve().parents[1]
SLICE = ROOT / "tests" / "data" / "python-docs-slice"


@pytest.fixture
def fake(monkeypatch, tmp_path) -> CountingBackend:
    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path / "cache")
    monkeypatch.setattr(skeleton_module, "model_cache", lambda spec, folder: cache)
    return backend


def test_a_skeleton_holds_the_config_chunks_in_rank_order_and_no_answer(fake):
    skeleton = eg.retrieve(SLICE / "careful.toml", eg.RunOptions(backend="local"))
    assert fake.calls["generate"] == 0 and fake.calls["embed"] >= 2  # questions, then chunks
    gold = [json.loads(line) for line in (SLICE / "gold.jsonl").read_text().splitlines()]
    assert [line["question_id"] for line in skeleton.lines] == [q["id"] for q in gold]
    articles = load_corpus(SLICE / "corpus")
    bodies = {a.id: a.body for a in articles}
    chunking = load_config(SLICE / "careful.toml").chunking
    chunks = {(c.article_id, c.start, c.end) for c in chunk_corpus(articles, chunking)}
    for line, q in zip(skeleton.lines, gold, strict=True):
        assert line["question"] == q["question"] and line["answer"] == ""
        assert len(line["passages"]) == 3  # [shared] top_k
        scores = [p["score"] for p in line["passages"]]
        assert scores == sorted(scores, reverse=True)
        for p in line["passages"]:
            (span,) = p["spans"]
            assert bodies[p["doc_id"]][span["start"] : span["end"]] == p["text"]
            assert (p["doc_id"], span["start"], span["end"]) in chunks
        assert line["meta"] == {"retrieved_by": "evalgate retrieve", "config": "careful",
                                "chunking": {"method": "markdown", "max_words": 250}, "top_k": 3}  # fmt: skip


def test_top_k_and_limit_override_the_config(fake):
    skeleton = eg.retrieve(SLICE / "chatty.toml", eg.RunOptions(backend="local", limit=2), top_k=1)
    assert [line["question_id"] for line in skeleton.lines] == ["q01", "q04"]  # one of each type, as a run's --limit
    assert all(len(line["passages"]) == 1 for line in skeleton.lines)
    with pytest.raises(InputError, match="--top-k must be at least 1"):
        eg.retrieve(SLICE / "chatty.toml", eg.RunOptions(backend="local"), top_k=0)


def test_the_skeleton_is_refused_by_score_until_it_is_filled_and_kept_unless_forced(fake, tmp_path):
    out = tmp_path / "skeleton.jsonl"
    skeleton = eg.retrieve(SLICE / "careful.toml", eg.RunOptions(backend="local"), out=out)
    with pytest.raises(InputError, match=r"skeleton\.jsonl:1: empty answer for question 'q01'.*evalgate retrieve"):
        load_answer_log(out, [line["question_id"] for line in skeleton.lines])
    filled = dict(skeleton.lines[0], answer="70.")
    assert parse_line(json.loads(json.dumps(filled)), "x:1").passages[0].spans is not None
    with pytest.raises(InputError, match=r"skeleton\.jsonl exists \(it may hold filled-in answers\)"):
        write_skeleton(skeleton, out)
    assert write_skeleton(skeleton, out, force=True) == out


def test_a_logged_question_must_be_the_gold_question(tmp_path):
    log = tmp_path / "log.jsonl"
    line = {"question_id": "q1", "question": "Something else?", "answer": "x", "passages": []}
    log.write_text(json.dumps(line) + "\n")
    with pytest.raises(InputError, match=r"log\.jsonl:1: 'question' 'Something else\?' is not the text of gold"):
        load_answer_log(log, ["q1"], {"q1": "How many seats?"})
    log.write_text(json.dumps(dict(line, question=" How many\nseats?")) + "\n")  # whitespace aside, the same
    assert load_answer_log(log, ["q1"], {"q1": "How many seats?"}).answers[0].question == " How many\nseats?"


def test_the_command_line_writes_the_skeleton_and_says_what_to_do_next(fake, tmp_path, capsys):
    from evalgate_lib.cli import main

    out = tmp_path / "careful.jsonl"
    assert main(["retrieve", "--config", str(SLICE / "careful.toml"), "--backend", "local", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "retrieve: config careful (" in printed and "top-k 3, 8 of 8 gold questions" in printed
    assert f"skeleton: {out} (8 lines, every 'answer' empty)" in printed and "no generation" in printed
    assert main(["retrieve", "--config", str(SLICE / "careful.toml"), "--backend", "local", "--out", str(out)]) == 2
    assert "exists (it may hold filled-in answers)" in capsys.readouterr().err
