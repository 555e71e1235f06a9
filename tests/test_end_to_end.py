"""End to end on the real embedded backend: the command, the results folder, the cache.

These load the real SmolLM2 and MiniLM models from their PyPI packages, on a slice of the gold
set: the session's small run (conftest.py's ``small_run``, ``--limit 4``, the first run into a
fresh cache folder) and a rerun of it here against that same cache.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, SMALL_LIMIT, evalgate_cli

from evalgate_lib.judging.rows import FLAG_NAMES, SCHEMA_VERSION, ResultRow
from evalgate_lib.run.results import load_rows
from evalgate_lib.statistics.metrics import compare

LIMIT = SMALL_LIMIT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_runs(small_run, tmp_path_factory):
    """The same slice run twice against one cache folder: the session's small run (cold), then a rerun."""
    warm = tmp_path_factory.mktemp("e2e") / "warm"
    proc = evalgate_cli(
        "run",
        "--backend",
        "local",
        "--limit",
        str(LIMIT),
        "--cache-dir",
        small_run.cache,
        "--out",
        warm,
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    return [(small_run.out, small_run.proc), (warm, proc)]


def test_run_prints_summary_and_results_path(two_runs):
    out, proc = two_runs[0]
    assert "backend: local (generator SmolLM2-135M-Instruct.Q4_1, embedder all-MiniLM-L6-v2)" in proc.stdout
    assert "differs: chunking.max_words, chunking.method" in proc.stdout
    for label in (
        "retrieval recall@top-k (doc)",
        "accuracy on answerable",
        "refusal accuracy on no-answer",
        "mean groundedness",
        "hallucination flags",
        "grounded-but-wrong flags",
        "review queue",
    ):
        assert label in proc.stdout
    assert f"results: {out.resolve()}/results.jsonl" in proc.stdout
    assert "model calls: 8 generations" in proc.stdout  # 4 questions x 2 configs, all cold


def test_every_question_is_published_for_both_configs(two_runs):
    out, _ = two_runs[0]
    rows = load_rows(out)
    manifest = json.loads((out / "manifest.json").read_text())
    ids = manifest["gold"]["question_ids"]
    assert len(ids) == LIMIT and len(rows) == 2 * LIMIT
    assert [r.question_id for r in rows] == ids + ids
    assert {r.config for r in rows} == {"baseline", "candidate"}
    assert {r.type for r in rows} == {"answerable", "no_answer"}  # the slice keeps both kinds
    for row in rows:
        assert isinstance(row.answer, str)
        assert len(row.retrieved) == 4
        assert row.flags.hallucination <= row.flags.wrong
        assert set(row.flags.reasons) == {name for name in FLAG_NAMES if row.flags.fired(name)}
        assert row.scorer == "prose@10"


def test_rows_read_back_equal_the_file(two_runs):
    out, _ = two_runs[0]
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    rows = load_rows(out)
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows, strict=True):
        data = json.loads(line)
        assert data["schema"] == SCHEMA_VERSION
        assert ResultRow.from_json(data) == row
        assert json.dumps(row.to_json(), sort_keys=True, ensure_ascii=False) == line


def test_summary_file_matches_rows(two_runs):
    out, _ = two_runs[0]
    summary = json.loads((out / "summary.json").read_text())
    assert summary == json.loads(json.dumps(compare(load_rows(out), "baseline", "candidate").to_json()))


def test_manifest_records_models_inputs_and_fairness(two_runs):
    out, _ = two_runs[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"]["backend"] == "local"
    assert manifest["backend"]["generator_digest"].startswith("sha256:")
    assert manifest["backend"]["embedder_digest"].startswith("sha256:")
    assert len(manifest["corpus"]["sha256"]) == 64 and manifest["corpus"]["articles"] == 18
    assert len(manifest["gold"]["sha256"]) == 64
    assert set(manifest["configs"]) == {"baseline", "candidate"}
    assert "chunking.method" in manifest["fairness"]["differs"]
    assert manifest["fairness"]["shared"]["shared.top_k"] == 4
    assert manifest["packages"]["transformers"]
    judging = manifest["judging"]
    assert judging["row_schema"] == SCHEMA_VERSION
    assert judging["sentence_scorer"] == "prose@10" and judging["answer_matching"] == "claim"
    assert manifest["backend"]["generator_runtime"].endswith("/float32/last-token-head")
    assert manifest["generation"]["stop"] == ["\nQuestion:"]


def test_rerun_makes_no_model_calls_and_is_byte_identical(two_runs):
    (cold, _), (warm, proc) = two_runs
    stats = json.loads((warm / "run_stats.json").read_text())
    assert stats["model_calls"]["generate_calls"] == 0
    assert stats["model_calls"]["embed_calls"] == 0
    assert "model calls: 0 generations, 0 embedding batches" in proc.stdout
    for name in ("results.jsonl", "summary.json", "manifest.json"):
        assert (cold / name).read_bytes() == (warm / name).read_bytes(), name


def test_bad_input_exits_non_zero_with_message(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"id": "q1", "question": "x?", "type": "answerable", "article": "plans-and-pricing-2026", '
        '"accept": ["$18"]}\n{"id": "q2", "question": oops}\n'
    )
    for name in ("baseline", "candidate"):
        text = (ROOT / "configs" / f"{name}.toml").read_text()
        text = text.replace('"../corpus"', json.dumps(str(ROOT / "corpus")))
        text = text.replace('"../gold/questions.jsonl"', json.dumps(str(gold)))
        (tmp_path / f"{name}.toml").write_text(text)
    proc = evalgate_cli(
        "run",
        "--backend",
        "local",
        "--baseline",
        str(tmp_path / "baseline.toml"),
        "--candidate",
        str(tmp_path / "candidate.toml"),
        "--cache-dir",
        str(tmp_path / "c"),
        "--out",
        str(tmp_path / "o"),
    )
    assert proc.returncode == 2
    assert f"{gold}:2: not valid JSON" in proc.stderr


def test_score_of_the_runs_own_answers_gives_the_same_verdicts(two_runs, tmp_path):
    """`evalgate score` on answer logs of this very run: every judgement equals the run's own.

    The logs hold what a pipeline outside EvalGate would log: the answer, and the text,
    document id and similarity of each passage in its prompt. Only what the log cannot
    know differs: the prompt hash, chunk positions, and the rank metrics beyond the top k.
    """
    from evalgate_lib.inputs.corpus import load_corpus

    out, _ = two_runs[0]
    rows = load_rows(out)
    bodies = {a.id: a.body for a in load_corpus(ROOT / "corpus")}
    gold = tmp_path / "gold.jsonl"
    ids = {r.question_id for r in rows}
    gold.write_text(
        "".join(
            line + "\n"
            for line in (ROOT / "gold" / "questions.jsonl").read_text().splitlines()
            if line.strip() and json.loads(line)["id"] in ids
        )
    )
    for config in ("baseline", "candidate"):
        lines = [
            {
                "question_id": r.question_id,
                "answer": r.answer,
                "passages": [
                    {"text": bodies[c.article_id][c.start : c.end], "doc_id": c.article_id, "score": c.similarity}
                    for c in r.retrieved
                ],
            }
            for r in rows
            if r.config == config
        ]
        (tmp_path / f"{config}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = evalgate_cli(
        "score",
        str(tmp_path / "baseline.jsonl"),
        str(tmp_path / "candidate.jsonl"),
        "--gold",
        str(gold),
        "--corpus",
        str(ROOT / "corpus"),
        "--out",
        str(tmp_path / "scored"),
    )
    assert proc.returncode == 0, proc.stderr
    scored = load_rows(tmp_path / "scored")
    assert len(scored) == len(rows)
    for mine, theirs in zip(rows, scored, strict=True):
        for name in (
            "config",
            "question_id",
            "answer",
            "refused",
            "correct",
            "matched",
            "matching",
            "sentences",
            "groundedness",
            "confidence",
            "flags",
            "top_similarity",
            "scorer",
        ):
            assert getattr(mine, name) == getattr(theirs, name), (mine.question_id, name)
        assert [c.article_id for c in mine.retrieved] == [c.article_id for c in theirs.retrieved]
