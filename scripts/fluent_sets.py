"""Build the fluent labelled sets: what the answer writers see, and the answer logs made from what they wrote.

The fluent sets (``labels/fluent/``) hold answers written in the style of capable RAG
generators over the passages EvalGate's own retriever returns, so they can be judged by
``evalgate score`` exactly like a team's answer logs. This script does the two mechanical
steps; writing and labelling are done by people (see ``labels/README.md``):

``packets``  retrieve the top-k passages of every gold question with a config's chunking
             and the embedded MiniLM retriever (no generation), and write one JSON file per
             (domain, config) that shows a writer only the question and those passages;
``assemble`` join a writer's answers (``{"question_id", "answer"}`` per line) with the
             packet's passages into an answer log in ``evalgate score`` format.

Usage::

    .venv/bin/python scripts/fluent_sets.py packets configs/pip-topics/baseline.toml build/packets/pip-baseline.json
    .venv/bin/python scripts/fluent_sets.py assemble build/packets/pip-baseline.json answers.jsonl labels/fluent/x.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalgate_lib.chunks.chunking import chunk_corpus
from evalgate_lib.generation.backends import resolve_backend
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.retrieval.index import VectorIndex
from evalgate_lib.run.parallel import model_cache


def packets(config_path: Path, out: Path, cache_dir: Path) -> None:
    """One packet per gold question: id, question and the config's top-k passages (doc id, title, text, score)."""
    config = load_config(config_path)
    articles = list(scan_corpus(config.corpus).articles)
    questions = load_gold(config.gold)
    cache = model_cache(resolve_backend("local", config.models), cache_dir)
    chunks = chunk_corpus(articles, config.chunking, search=(config.path.parent,))
    index = VectorIndex(cache.embed([f"{c.title}\n{c.text}" for c in chunks]))
    vectors = cache.embed([q.question for q in questions])
    items = []
    for question, vector in zip(questions, vectors, strict=True):
        ids, sims = index.search(vector, config.top_k)
        passages = [
            {
                "doc_id": chunks[i].article_id,
                "title": chunks[i].title,
                "text": chunks[i].text,
                "score": round(float(s), 4),
            }
            for i, s in zip(ids, sims, strict=True)
        ]
        items.append({"question_id": question.id, "question": question.question, "passages": passages})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(items)} questions, top-{config.top_k} passages each ({config.name} chunking)")


def assemble(packet_path: Path, answers_path: Path, out: Path, meta: dict[str, str]) -> None:
    """The answer log: each written answer with the passages its writer was shown, in packet order.

    A writer's answers file may cover several gold sets; the first letter of a question id says which
    set it belongs to, and only the packet's letters are kept: ``q`` Nimbus (``gold/questions.jsonl``),
    ``p`` pip-topics, ``r`` requests-docs, ``s`` python-docs, ``d`` postgresql-docs, ``v`` valgrind-docs. A new gold set
    takes a letter not in this list.
    """
    packet = {item["question_id"]: item for item in json.loads(packet_path.read_text(encoding="utf-8"))}
    prefix = {qid[0] for qid in packet}
    answers: dict[str, str] = {}
    for _, where, obj in read_jsonl(answers_path, "answers"):
        qid = obj.get("question_id")
        if str(qid)[:1] not in prefix:
            continue  # a writer's file may cover several gold sets: keep this packet's
        if qid not in packet:
            sys.exit(f"{where}: question_id {qid!r} is not in {packet_path}")
        if qid in answers:
            sys.exit(f"{where}: question_id {qid!r} answered twice")
        if not str(obj.get("answer", "")).strip():
            sys.exit(f"{where}: empty answer")
        answers[qid] = str(obj["answer"])
    missing = [qid for qid in packet if qid not in answers]
    if missing:
        sys.exit(f"{answers_path}: no answer for {len(missing)} question(s): {', '.join(missing[:10])}")
    lines = [
        json.dumps(
            {"question_id": qid, "answer": answers[qid], "passages": item["passages"], "meta": meta},
            ensure_ascii=False,
            sort_keys=True,
        )
        for qid, item in packet.items()
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out}: {len(lines)} answers")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packets", help="retrieve passages for every gold question (no generation)")
    p.add_argument("config", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--cache-dir", type=Path, default=Path("cache"))
    a = sub.add_parser("assemble", help="join written answers with their packet's passages into an answer log")
    a.add_argument("packet", type=Path)
    a.add_argument("answers", type=Path)
    a.add_argument("out", type=Path)
    a.add_argument("--style", required=True, help="the generator style the writer played (kept in each line's meta)")
    args = parser.parse_args(argv)
    if args.command == "packets":
        packets(args.config, args.out, args.cache_dir)
    else:
        assemble(args.packet, args.answers, args.out, {"style": args.style, "written_by": "writer playing the model"})


if __name__ == "__main__":
    main()
