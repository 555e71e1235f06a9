"""A real documentation set, used exactly as shipped, end to end on the embedded backend.

``tests/data/pip-slice`` is a slice of pip's topic guides as Debian ships them (licence in
its COPYRIGHT): MyST Markdown with label lines such as ``(SSL Certificate Verification)=``,
directive fences, no front matter, one file left gzip-compressed, and a Graphviz file
that is not a document. Nobody here edited them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalgate_lib.chunks.chunking import carries_text, chunk_corpus
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.run.results import load_rows

ROOT = Path(__file__).resolve().parents[1]
SLICE = ROOT / "tests" / "data" / "pip-slice"


def test_the_slice_reads_as_shipped():
    scan = scan_corpus(SLICE / "corpus")
    assert sorted(a.id for a in scan.articles) == ["caching", "https-certificates", "index"]
    titles = {a.id: a.title for a in scan.articles}
    assert titles["https-certificates"] == "HTTPS Certificates"  # first heading, not the MyST label above it
    assert titles["caching"] == "Caching"  # read through gzip
    assert [(Path(path).name, reason.split(" (")[0]) for path, reason in scan.skipped] == [
        ("deps.dot", "not a document type EvalGate reads")
    ]


@pytest.mark.parametrize("config", ["baseline", "candidate"])
def test_no_chunk_is_markup_only(config):
    articles = scan_corpus(SLICE / "corpus").articles
    chunks = chunk_corpus(articles, load_config(SLICE / f"{config}.toml").chunking)
    assert chunks and all(carries_text(c.text) for c in chunks)
    assert not any(c.text.strip() == "(SSL Certificate Verification)=" for c in chunks)


@pytest.mark.slow
def test_run_end_to_end_on_the_embedded_backend(tmp_path):
    proc = subprocess.run(
        [
            sys.executable, "-m", "evalgate_lib.cli", "run", "--backend", "local",
            "--baseline", str(SLICE / "baseline.toml"), "--candidate", str(SLICE / "candidate.toml"),
            "--limit", "2", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--no-progress",
        ],
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
        capture_output=True,
        text=True,
        timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"skipped corpus file {SLICE / 'corpus' / 'deps.dot'}: not a document type" in proc.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["corpus"]["articles"] == 3
    assert [Path(s["path"]).name for s in manifest["corpus"]["skipped"]] == ["deps.dot"]
    rows = load_rows(tmp_path / "out")
    ids = manifest["gold"]["question_ids"]
    # two questions (4 generations) keep both kinds: the first answerable and the first no-answer one
    assert len(ids) == 2 and [r.question_id for r in rows] == ids + ids
    assert {r.type for r in rows} == {"answerable", "no_answer"}
    for row in rows:
        assert row.answer.strip()  # the model answered every question
        assert all(c.article_id in {"caching", "https-certificates", "index"} for c in row.retrieved)


def test_gold_check_on_the_slice_finds_every_answer_where_the_gold_says(capsys):
    from evalgate_lib.cli import main

    args = ["gold", "check", "--baseline", str(SLICE / "baseline.toml"), "--candidate", str(SLICE / "candidate.toml")]
    assert main([*args, "--strict"]) == 0  # no warnings either
    out = capsys.readouterr().out
    assert "accept 'pip cache purge': 1× in caching (first at " in out
    assert "caching.md.gz:131); 0 other article(s)" in out  # line numbers of the decompressed file
    summary, power = out.split("\npower of the gate configs/gate.toml on this gold set")
    assert summary.endswith(
        "summary: 10 questions (8 answerable, 2 no-answer), 10 accept strings, 9 evidence strings, 3 articles; "
        "0 warnings (inside-word 0, in-question 0, not-in-article 0, evidence-repeated 0, evidence-markup 0, "
        "evidence-whitespace 0); 0 errors"
    )
    # 2 no-answer questions: even both broken leaves Tango's interval reaching back past the refusal rule's
    # 10-point limit (p = 0.2008 against it); 10 questions cannot carry a rise past 5 hallucinations far enough
    assert "power: 2 of 5 gate rule(s) cannot fail at this size" in power
    assert "  CANNOT FAIL  refusal accuracy on no-answer cannot fail on 2 no-answer questions" in power
