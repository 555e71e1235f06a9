"""The careless / hostile user campaign (issue 20, "nothing silent"), as one table of cases.

Each case builds a small workspace (three articles, two gold questions, the shipped configs
pointed at them), breaks one thing, runs one command and checks its exit code and the first
line it writes to stderr (or, for a case that must succeed and *say* something, the stdout
line that says it). A failure is one line ``evalgate: error: ...`` naming the file, line, key
or option, and exit 2; a bug is ``evalgate: internal error: ...`` and exit 3; never a traceback
(unless ``--debug``), never a silent skip.

How each case runs:

* ``inproc``: :func:`evalgate_lib.cli.main` in this process, with the fake Ollama server
  plugged in, so a case that gets past validation never reaches a real model;
* ``proc``: ``python -m evalgate_lib.cli`` in a real process (help text, argparse errors,
  exit codes as the shell sees them), with ``--backend ollama --hosts 127.0.0.1:9`` so a
  run that got past validation would fail at once on a closed port, not load a model;
* ``nobody``: the same real process, but it drops to the unprivileged ``nobody`` user
  (``os.setuid``) before calling ``main``: the tests run as root, and ``chmod 000`` does
  not stop root. It cannot be ``subprocess``'s ``preexec_fn``: the interpreter lives under
  ``/root`` (pyenv), which ``nobody`` may not enter, so the child starts as root, imports
  what it needs, then drops privileges. Skipped, with the reason, when not running as root.

At the end of the module the table (case, exit code, first line) is written to
``build/campaign.txt`` and printed (visible with ``pytest -s``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest
from fake_ollama import ROOT, FakeOllama, serving

ARTICLES = ("plans-and-pricing-2026.md", "refunds.md", "two-factor-authentication.md")
GOLD = [
    {
        "id": "q1",
        "question": "How many seats does the Starter plan include?",
        "type": "answerable",
        "article": "plans-and-pricing-2026",
        "accept": ["3 seats"],
        "evidence": ["Starter includes 3 seats"],
    },
    {"id": "q2", "question": "Does Nimbus offer a lifetime licence?", "type": "no_answer", "article": None,
     "accept": []},
]
NOBODY = 65534
DEAD_HOST = "http://127.0.0.1:9"  # the discard port: nothing listens, a connection is refused at once
SUMMARY = ROOT / "build" / "campaign.txt"


class Workspace:
    """A corpus folder, a gold file and the two shipped configs pointed at them, in one folder.

    ``cleanups`` run before the folder is removed (a file system a case mounted in it, say).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cleanups: list[Callable[[], None]] = []
        self.corpus = root / "corpus"
        self.corpus.mkdir()
        for name in ARTICLES:
            shutil.copy(ROOT / "corpus" / name, self.corpus / name)
        self.gold = root / "gold.jsonl"
        self.gold.write_text("".join(json.dumps(row) + "\n" for row in GOLD))
        self.texts = {name: (ROOT / "configs" / f"{name}.toml").read_text() for name in ("baseline", "candidate")}
        for name in self.texts:
            self.config(name)

    def config(self, name: str, *replacements: tuple[str, str]) -> Path:
        """Write config ``name`` with the workspace's paths and each (old, new) replacement applied."""
        text = self.texts[name].replace('"../corpus"', json.dumps(str(self.corpus)))
        text = text.replace('"../gold/questions.jsonl"', json.dumps(str(self.gold)))
        for old, new in replacements:
            assert old in text, old
            text = text.replace(old, new)
        path = self.root / f"{name}.toml"
        path.write_text(text)
        return path

    def both(self, *replacements: tuple[str, str]) -> None:
        """The same change in both configs (a [shared] key must stay equal)."""
        for name in self.texts:
            self.config(name, *replacements)

    def run(self, *extra: str, out: str = "out") -> list[str]:
        """``evalgate run`` argv over this workspace (the backend is the fake or a closed port, never a model)."""
        return [
            "run",
            "--backend",
            "ollama",
            "--hosts",
            DEAD_HOST,
            "--cache-dir",
            str(self.root / "cache"),
            "--baseline",
            str(self.root / "baseline.toml"),
            "--candidate",
            str(self.root / "candidate.toml"),
            "--no-progress",
            "--out",
            str(self.root / out),
            *extra,
        ]

    def gold_check(self) -> list[str]:
        return ["gold", "check", "--corpus", str(self.corpus), "--gold", str(self.gold)]

    def answer_log(self, name: str, passages: Callable[[dict], list]) -> Path:
        """An answer log refusing every question, each with ``passages(gold row)``."""
        path = self.root / f"{name}.jsonl"
        rows = [{"question_id": q["id"], "answer": "I don't know.", "passages": passages(q)} for q in GOLD]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return path

    def score(self, baseline: Path, candidate: Path, out: str = "scored") -> list[str]:
        return [
            "score",
            str(baseline),
            str(candidate),
            "--gold",
            str(self.gold),
            "--corpus",
            str(self.corpus),
            "--out",
            str(self.root / out),
        ]

    def scored_results(self) -> Path:
        """A results folder of ``evalgate score`` (no model), for the cases that read one."""
        good = self.answer_log("v1", _evidence_passage)
        other = self.answer_log("v2", lambda q: [])
        from evalgate_lib.cli import main

        assert main(self.score(good, other, out="results")) == 0
        return self.root / "results"


def _evidence_passage(q: dict) -> list[dict]:
    text = q["evidence"][0] if q.get("evidence") else "Nimbus offers four plans."
    return [{"text": text, "doc_id": q["article"] or "plans-and-pricing-2026", "score": 0.8}]


def _stale_labels(ws: Workspace, results: Path) -> Path:
    """A label for every answer of ``results``, each hashed from another answer text (so every one is stale)."""
    path = ws.root / "labels.jsonl"
    rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines() if line.strip()]
    labels = [
        {
            "config": r["config"],
            "question_id": r["question_id"],
            "answer_sha256": "0" * 64,
            "correct": True,
            "unsupported_claim": False,
            "reviewer": "ann",
        }
        for r in rows
    ]
    path.write_text("".join(json.dumps(label) + "\n" for label in labels))
    return path


@dataclass(frozen=True)
class Case:
    """One row of the campaign table.

    ``setup`` breaks the workspace and returns the argv; ``line`` is a regex the first stderr
    line must match in full (``{ws}`` stands for the workspace folder), or, with ``stdout``
    set, a stdout line must (stderr must then be empty). ``check`` looks at what was written.

    For a real process (``proc``, ``nobody``): ``env`` adds to its environment and ``sink`` is
    where its standard output goes: ``pipe`` (read back), ``full`` (``/dev/full``: every write
    fails with no space left) or ``closed`` (a pipe whose reader is gone: a write fails with a
    broken pipe). In process, ``server`` makes the fake Ollama the case talks to.
    """

    id: str
    what: str
    setup: Callable[[Workspace], list[str]]
    code: int
    line: str
    how: str = "inproc"
    stdout: bool = False
    check: Callable[[Workspace], None] | None = field(default=None, compare=False)
    patch: Callable[[pytest.MonkeyPatch], None] | None = field(default=None, compare=False)
    env: tuple[tuple[str, str], ...] = ()
    sink: str = "pipe"
    server: Callable[[], FakeOllama] | None = field(default=None, compare=False)


# ------------------------------------------------------------------------------ setups


def shared_edit(*replacements: tuple[str, str]) -> Callable[[Workspace], list[str]]:
    """Setup: the same [shared] change in both configs (fairness holds), then ``evalgate run``."""

    def setup(ws: Workspace) -> list[str]:
        ws.both(*replacements)
        return ws.run()

    return setup


def config_edit(name: str, *replacements: tuple[str, str]) -> Callable[[Workspace], list[str]]:
    """Setup: a change in one config, then ``evalgate run``."""

    def setup(ws: Workspace) -> list[str]:
        ws.config(name, *replacements)
        return ws.run()

    return setup


def empty_corpus(ws: Workspace) -> list[str]:
    for path in ws.corpus.iterdir():
        path.unlink()
    return ws.run()


def binary_document(ws: Workspace) -> list[str]:
    (ws.corpus / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    return ws.run()


def missing_candidate(ws: Workspace) -> list[str]:
    (ws.root / "candidate.toml").unlink()
    return ws.run()


def unreadable_gold(ws: Workspace) -> list[str]:
    ws.gold.chmod(0)
    return ws.run()


def gold_is_a_folder(ws: Workspace) -> list[str]:
    return ws.score(ws.answer_log("v1", _evidence_passage), ws.answer_log("v2", lambda q: []))[:3] + [
        "--gold", str(ws.root), "--out", str(ws.root / "scored")
    ]


def malformed_gold(ws: Workspace) -> list[str]:
    ws.gold.write_text(json.dumps(GOLD[0]) + '\n{"id": "q2", oops}\n')
    return ws.run()



def unreadable_file(ws: Workspace) -> list[str]:
    secret = ws.corpus / "secret.md"
    secret.write_text("# Secret\n\nNobody may read this.\n")
    secret.chmod(0)
    return ws.run()


def unreadable_folder(ws: Workspace) -> list[str]:
    private = ws.corpus / "private"
    private.mkdir()
    (private / "inside.md").write_text("# Inside\n\nText.\n")
    private.chmod(0)
    return ws.run()


def dangling_link(ws: Workspace) -> list[str]:
    (ws.corpus / "moved.md").symlink_to(ws.root / "nowhere.md")
    return ws.run()


def folder_named_md(ws: Workspace) -> list[str]:
    (ws.corpus / "notes.md").mkdir()
    return ws.gold_check()


def fifo(ws: Workspace) -> list[str]:
    os.mkfifo(ws.corpus / "pipe.md")
    return ws.gold_check()


def folder_link(ws: Workspace) -> list[str]:
    (ws.corpus / "elsewhere").symlink_to(ROOT / "corpus", target_is_directory=True)
    return ws.gold_check()


def out_is_file(ws: Workspace) -> list[str]:
    (ws.root / "taken").write_text("not a folder\n")
    return ws.run(out="taken")


def report_out_in_corpus(ws: Workspace) -> list[str]:
    return [
        "report",
        "--baseline",
        str(ws.root / "baseline.toml"),
        "--candidate",
        str(ws.root / "candidate.toml"),
        "--thresholds",
        str(ROOT / "configs" / "gate.toml"),
        "--out",
        str(ws.corpus / "report"),
    ]


def top_k_huge(ws: Workspace) -> list[str]:
    shutil.copytree(ROOT / "corpus", ws.corpus, dirs_exist_ok=True)  # the whole shipped corpus: it cannot fit
    ws.both(("top_k = 4", "top_k = 100000"))
    return ws.run()


def local_context(ws: Workspace) -> list[str]:
    """num_ctx above the embedded model's 8,192 positions, and 60 chunks of the shipped corpus to fill them."""
    shutil.copytree(ROOT / "corpus", ws.corpus, dirs_exist_ok=True)
    ws.both(("num_ctx = 4096", "num_ctx = 100000"), ("top_k = 4", "top_k = 60"))
    argv = ws.run()
    return [argv[0], "--backend", "local", *argv[5:]]


def internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug planted in the gate: any exception that is not an EvalGateError."""
    from evalgate_lib.statistics import gate

    def broken(path: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(gate, "load_gate", broken)


def whitespace_passage(ws: Workspace) -> list[str]:
    good = ws.answer_log("v1", _evidence_passage)
    spaced = ws.answer_log(
        "v2", lambda q: [{**p, "text": p["text"].replace(" ", " \n  ")} for p in _evidence_passage(q)]
    )
    return ws.score(good, spaced)


def evidence_found_in_both(ws: Workspace) -> None:
    rows = [json.loads(line) for line in (ws.root / "scored" / "results.jsonl").read_text().splitlines()]
    hits = [r["retrieval_metrics"]["evidence_hit"] for r in rows if r["question_id"] == "q1"]
    assert hits == [True, True]  # the re-spaced passage still holds the evidence


def passage_not_in_article(ws: Workspace) -> list[str]:
    good = ws.answer_log("v1", _evidence_passage)
    wrong = ws.answer_log(
        "v2", lambda q: [{**p, "text": "Words the article does not hold."} for p in _evidence_passage(q)]
    )
    return ws.score(good, wrong)


def empty_passages(ws: Workspace) -> list[str]:
    return ws.score(ws.answer_log("v1", _evidence_passage), ws.answer_log("v2", lambda q: []))


def all_stale_agreement(ws: Workspace) -> list[str]:
    results = ws.scored_results()
    return ["agreement", "--results", str(results), "--labels", str(_stale_labels(ws, results))]


def all_stale_report(ws: Workspace) -> list[str]:
    results = ws.scored_results()
    labels = _stale_labels(ws, results)
    return ["report", "--results", str(results), "--labels", str(labels), "--out", str(ws.root / "report")]


def manifest_records_dangling_link(ws: Workspace) -> None:
    manifest = json.loads((ws.root / "out" / "manifest.json").read_text())
    assert manifest["corpus"]["skipped"] == [
        {
            "path": str(ws.corpus / "moved.md"),
            "reason": f"dangling symbolic link (its target {ws.root / 'nowhere.md'} does not exist)",
        }
    ]


def emptied_results(ws: Workspace) -> list[str]:
    """Setup: a real results folder whose results.jsonl is emptied after the run, then judged by the gate."""
    results = ws.scored_results()
    (results / "results.jsonl").write_text("")
    return ["gate", "--results", str(results)]


def empty_summary(ws: Workspace) -> list[str]:
    """Setup: a real results folder whose summary.json is replaced by ``{}``, then judged by the gate."""
    results = ws.scored_results()
    (results / "summary.json").write_text("{}")
    return ["gate", "--results", str(results)]


def partial_run(ws: Workspace) -> list[str]:
    """Setup: a real ``--limit 1`` run (fake model), then judged by the gate without --allow-partial."""
    from evalgate_lib.cli import main

    with serving(FakeOllama()):
        argv = ws.run("--limit", "1", out="partial")
        assert main([a.replace(DEAD_HOST, "http://a.test:11434") for a in argv]) == 0
    return ["gate", "--results", str(ws.root / "partial")]


MARKER = "pickle-ran"


class _Payload:
    """Unpickling this writes the marker file: proof that a cache entry ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204 - pickle protocol
        return (Path.write_text, (self.marker, "ran"))


def crafted_cache(ws: Workspace) -> list[str]:
    """Setup: an old joblib cache layout holding a crafted output.pkl and a garbage func_code.py, then a run."""
    import pickle

    entry = ws.root / "cache" / "joblib" / "evalgate_lib" / "cache" / "_generate_entry"
    (entry / "0123456789abcdef").mkdir(parents=True)
    (entry / "0123456789abcdef" / "output.pkl").write_bytes(pickle.dumps(_Payload(ws.root / MARKER)))
    (entry / "func_code.py").write_text("garbage that is not Python (")
    return ws.run()


def no_code_ran(ws: Workspace) -> None:
    assert not (ws.root / MARKER).exists()
    assert (ws.root / "out" / "results.jsonl").is_file()


def nothing_written(ws: Workspace) -> None:
    assert not (ws.root / "out").exists()


ERR = "evalgate: error: "
STALE = (
    ERR + r"4 label\(s\) read from {ws}/labels\.jsonl, none of a current answer of the run: 4 stale \(answer "
    r"changed since it was labelled\); 0 unknown \(no such config and question in the run\); label the run's "
    r"current answers \(notebook 06\) or measure the results folder the labels were made on"
)

CASES: tuple[Case, ...] = (
    # ---------------------------------------------------------------- corpus
    Case(
        "corpus-unreadable-file", "a document nobody may read (chmod 000)", unreadable_file, 2,
        ERR + r"{ws}/corpus/secret\.md: cannot be read \(Permission denied\); fix its permissions or move it out "
        r"of the corpus",
        how="nobody", check=nothing_written,
    ),
    Case(
        "corpus-unreadable-folder", "a subfolder nobody may list (chmod 000)", unreadable_folder, 2,
        ERR + r"{ws}/corpus/private: corpus folder cannot be listed \(Permission denied\); fix its permissions or "
        r"move it out of the corpus",
        how="nobody", check=nothing_written,
    ),
    Case(
        "corpus-dangling-symlink", "moved.md links to a file that is gone: skipped, listed, in the manifest",
        dangling_link, 0,
        r"skipped corpus file {ws}/corpus/moved\.md: dangling symbolic link \(its target {ws}/nowhere\.md does "
        r"not exist\)",
        stdout=True, check=manifest_records_dangling_link,
    ),
    Case(
        "corpus-folder-named-md", "a folder called notes.md", folder_named_md, 0,
        r"skipped corpus file {ws}/corpus/notes\.md: a folder named like a document, not one; the documents "
        r"inside it are read",
        stdout=True,
    ),
    Case(
        "corpus-fifo", "a named pipe called pipe.md (reading it would hang)", fifo, 0,
        r"skipped corpus file {ws}/corpus/pipe\.md: not a regular file \(a FIFO, socket or device\)", stdout=True,
    ),
    Case(
        "corpus-folder-symlink", "a symbolic link to another folder", folder_link, 0,
        r"skipped corpus file {ws}/corpus/elsewhere: symbolic link to a folder: not followed", stdout=True,
    ),
    Case(
        "corpus-empty", "no documents at all", empty_corpus,
        2, ERR + r"corpus folder {ws}/corpus holds no readable documents \(\.md, \.markdown, \.txt, \.rst, \.html, "
        r"\.htm\)",
    ),
    Case(
        "corpus-binary", "a PNG saved as logo.md",
        binary_document, 2,
        ERR + r"{ws}/corpus/logo\.md: looks like a binary file \(NUL bytes\), not a text document",
    ),
    # ---------------------------------------------------------------- options
    Case(
        "limit-zero", "--limit 0", lambda ws: ws.run("--limit", "0"), 2,
        ERR + r"--limit must be at least 1, got 0 \(leave it out to run every gold question\)", how="proc",
    ),
    Case(
        "limit-negative", "--limit -3", lambda ws: ws.run("--limit", "-3"), 2,
        ERR + r"--limit must be at least 1, got -3 \(leave it out to run every gold question\)",
    ),
    Case(
        "limit-larger-than-gold", "--limit 500 with 2 gold questions: runs all and says so",
        lambda ws: ws.run("--limit", "500"), 0, r"limit 500 >= 2 gold questions: ran all 2", stdout=True,
    ),
    Case(
        "limit-not-a-number", "--limit abc (argparse)", lambda ws: ws.run("--limit", "abc"), 2,
        r"usage: evalgate run .*", how="proc",
    ),
    Case(
        "out-is-a-file", "run --out names an existing file", out_is_file, 2,
        ERR + r"--out {ws}/taken is an existing file, not a folder: name a folder to write into", how="proc",
    ),
    Case(
        "run-out-in-corpus", "run --out inside the corpus folder", lambda ws: ws.run(out="corpus/results"), 2,
        ERR + r"--out {ws}/corpus/results is inside the corpus folder {ws}/corpus: the next run would read what "
        r"is written there as articles; write it outside the corpus",
    ),
    Case(
        "report-out-in-corpus", "report --out inside the corpus folder (index.html would become an article)",
        report_out_in_corpus, 2,
        ERR + r"--out {ws}/corpus/report is inside the corpus folder {ws}/corpus: the next run would read what "
        r"is written there as articles; write it outside the corpus",
    ),
    Case(
        "baseline-is-a-folder", "--baseline names a directory", lambda ws: [*ws.run()[:-2], "--baseline", str(ws.root)],
        2, ERR + r"config file {ws} is a directory, not a TOML file", how="proc",
    ),
    Case(
        "config-missing", "--candidate names no file",
        missing_candidate, 2,
        ERR + r"config file {ws}/candidate\.toml does not exist",
    ),
    Case(
        "thresholds-is-a-folder", "gate --thresholds names a directory",
        lambda ws: ["gate", "--results", str(ws.root), "--thresholds", str(ws.root)], 2,
        ERR + r"gate thresholds file {ws} is a directory, not a TOML file",
    ),
    # ---------------------------------------------------------------- impossible configurations
    Case(
        "top-k-100000", "top_k = 100000 in both configs, the shipped corpus", top_k_huge, 2,
        ERR + r"{ws}/baseline\.toml: the prompt cannot fit the generator's context: top_k 100,000 \(the \d+ "
        r"longest chunks, up to \d+ words each\) \+ template \+ question = [\d,]+ words ≈ [\d,]+ tokens \(at 2\.0 "
        r"tokens/word \+ 64\), \+ max_tokens 96 = [\d,]+ > num_ctx 4,096; lower top_k, the chunk size or "
        r"max_tokens, or raise num_ctx",
    ),
    Case(
        "max-tokens-huge", "max_tokens = 99999999999",
        shared_edit(("max_tokens = 96", "max_tokens = 99999999999")), 2,
        ERR + r"{ws}/baseline\.toml: \[shared\] max_tokens 99,999,999,999 must be smaller than num_ctx 4,096 \(the "
        r"answer is generated inside the context window, after the prompt\)",
    ),
    Case(
        "num-ctx-too-small", "num_ctx = 512 for 4 chunks of up to 250 words",
        shared_edit(("num_ctx = 4096", "num_ctx = 512")), 2,
        ERR + r"{ws}/baseline\.toml: the prompt cannot fit the generator's context: top_k 4 .* > num_ctx 512; .*",
    ),
    Case(
        "local-context-length", "num_ctx = 100000 on the embedded backend: its model holds 8,192 tokens",
        local_context, 2,
        ERR + r"{ws}/baseline\.toml: the prompt cannot fit the generator's context: top_k 60 .* > the embedded "
        r"generator's context length 8,192 \(SmolLM2-135M-Instruct\.Q4_1\); .*",
    ),
    Case(
        "temperature-nan", "temperature = nan",
        shared_edit(("temperature = 0.0", "temperature = nan")), 2,
        ERR + r"{ws}/baseline\.toml: \[shared\] temperature must be a finite number, got nan",
    ),
    Case(
        "temperature-high", "temperature = 7",
        shared_edit(("temperature = 0.0", "temperature = 7.0")), 2,
        ERR + r"{ws}/baseline\.toml: \[shared\] temperature must be at most 2\.0, got 7\.0; above 2 decoding is "
        r"close to uniform random text",
    ),
    Case(
        "seed-negative", "seed = -1 (Ollama: a random seed)",
        shared_edit(("seed = 42", "seed = -1")), 2,
        ERR + r"{ws}/baseline\.toml: \[shared\] seed must be at least 0, got -1; a negative seed asks Ollama for "
        r"a random one, which makes the run unrepeatable",
    ),
    Case(
        "chunk-size-zero", "[chunking] size = 0",
        config_edit("baseline", ("size = 120", "size = 0")), 2,
        ERR + r"{ws}/baseline\.toml: \[chunking\]: fixed chunker needs size > 0 and 0 <= overlap < size, got "
        r"size=0 overlap=20",
    ),
    Case(
        "config-typo", "answer_matchng = ... (a typo must not run with the default)",
        config_edit("candidate", ("num_ctx = 4096\n", 'num_ctx = 4096\nanswer_matchng = "raw"\n')),
        2, ERR + r"{ws}/candidate\.toml: unknown key 'answer_matchng' in \[shared\]; did you mean 'answer_matching'\?",
    ),
    Case(
        "configs-unfair", "the candidate changes top_k",
        config_edit("candidate", ("top_k = 4", "top_k = 5")), 2,
        ERR + r"configs {ws}/baseline\.toml and {ws}/candidate\.toml may differ only in \[chunking\] and "
        r"\[prompt\], but these shared keys differ:",
    ),
    Case(
        "gold-malformed-line", "line 2 of the gold file is not JSON",
        malformed_gold, 2,
        ERR + r"{ws}/gold\.jsonl:2: not valid JSON \(.*\)",
    ),
    Case(
        "gold-unreadable", "a gold file nobody may read (chmod 000)", unreadable_gold, 2,
        ERR + r"gold file {ws}/gold\.jsonl cannot be read \(Permission denied\)", how="nobody", check=nothing_written,
    ),
    Case(
        "gold-is-a-folder", "score --gold names a directory", gold_is_a_folder, 2,
        ERR + r"gold file {ws} is a directory, not a JSONL file",
    ),
    # ---------------------------------------------------------------- score, agreement
    Case(
        "score-whitespace-passage", "a passage whose spaces became line breaks: placed anyway",
        whitespace_passage, 0, r"pipeline: external \(answer logs {ws}/v1\.jsonl, {ws}/v2\.jsonl\)",
        stdout=True, check=evidence_found_in_both,
    ),
    Case(
        "score-passage-not-in-article", "a passage its doc_id's article does not hold", passage_not_in_article, 2,
        ERR + r"{ws}/v2\.jsonl:1: passage 1: its 'text' is not in article 'plans-and-pricing-2026' of the corpus "
        r"\({ws}/corpus/plans-and-pricing-2026\.md\), not even with whitespace ignored, nor made of spans of the "
        r"corpus's articles \(pieces of at least 24 characters, joined by at most 40 other characters\): .*",
    ),
    Case(
        "score-empty-passages", "passages: [] (nothing retrieved) is valid and said", empty_passages, 0,
        r"v2: 2 answer\(s\) logged no passages \(nothing retrieved\): their retrieval counts as a miss",
        stdout=True,
    ),
    Case(
        "agreement-resamples-zero", "agreement --resamples 0",
        lambda ws: ["agreement", "--results", str(ws.root), "--labels", str(ws.gold), "--resamples", "0"], 2,
        ERR + r"--resamples must be at least 1, got 0",
    ),
    Case("agreement-all-stale", "every label's answer hash is out of date", all_stale_agreement, 2, STALE),
    Case("report-labels-all-stale", "report --labels, every label stale", all_stale_report, 2, STALE),
    # ---------------------------------------------------------------- results folders the gate must not trust
    Case(
        "results-emptied", "results.jsonl emptied after the run; the gate reads the folder", emptied_results, 2,
        ERR + r"{ws}/results/results\.jsonl: SHA-256 differs from manifest\.json \(the file was changed after the "
        r"run\); rerun 'evalgate score .*",
    ),
    Case(
        "results-summary-empty", "summary.json replaced by {}", empty_summary, 2,
        ERR + r"{ws}/results/summary\.json: SHA-256 differs from manifest\.json \(the file was changed after the "
        r"run\); rerun 'evalgate score .*",
    ),
    Case(
        "gate-partial-run", "a --limit 1 run judged without --allow-partial", partial_run, 2,
        ERR + r"{ws}/partial: a partial run \(--limit 1: 1 of 2 gold questions\), which the gate does not judge; "
        r"rerun without --limit, or pass --allow-partial to judge it anyway",
    ),
    # ---------------------------------------------------------------- the model-call cache is data, never code
    Case(
        "cache-crafted-pickle", "a crafted output.pkl and a garbage func_code.py in the cache folder", crafted_cache,
        0, r"model calls: 4 generations, \d+ embedding batches; cache hits: 0; wall time .*", stdout=True,
        check=no_code_ran,
    ),
    # ---------------------------------------------------------------- internal errors and help
    Case(
        "internal-error", "a bug (ZeroDivisionError) in the gate", lambda ws: ["gate", "--results", str(ws.root)], 3,
        r"evalgate: internal error: ZeroDivisionError: division by zero \(a bug in EvalGate; rerun with --debug "
        r"for the traceback\)",
        patch=internal_error,
    ),
    Case(
        "internal-error-debug", "the same bug with --debug: the traceback comes first",
        lambda ws: ["--debug", "gate", "--results", str(ws.root)], 3, r"Traceback \(most recent call last\):",
        patch=internal_error,
    ),
    Case(
        "help-lists-exit-codes", "evalgate --help", lambda ws: ["--help"], 0, r"exit codes:", how="proc", stdout=True,
    ),
)

RECORDED: dict[str, tuple[int, str]] = {}


def write_summary(cases: Sequence[Case], recorded: dict[str, tuple[int, str]], path: Path) -> None:
    """The table of every case run (in table order) to ``path``, and printed (visible with ``pytest -s``)."""
    if not recorded:
        return
    width = max(len(case.id) for case in cases)
    lines = [f"{'case':<{width}}  exit  first line", f"{'-' * width}  ----  ----------"]
    lines += [f"{c.id:<{width}}  {recorded[c.id][0]:>4}  {recorded[c.id][1]}" for c in cases if c.id in recorded]
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines) + f"\n(written to {path})")


def campaign_tests(cases: Sequence[Case], summary: Path, *, without_keys: bool = False) -> tuple[Any, Any]:
    """A later campaign module's fixture and test: every case of ``cases`` run as a row, the table to ``summary``.

    ``without_keys``: each case runs with no signing key in the environment, whatever the caller's shell holds.
    Assign both at module level (``campaign_summary, test_campaign_n = campaign_tests(CASES, SUMMARY)``).
    """
    recorded: dict[str, tuple[int, str]] = {}

    @pytest.fixture(scope="module", autouse=True)
    def campaign_summary():
        """After the module: the table of every case run."""
        yield
        write_summary(cases, recorded, summary)

    @pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])
    def test_case(case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        if without_keys:
            for name in ("EVALGATE_SIGNING_KEY", "EVALGATE_SIGNING_KEY_FILE"):
                monkeypatch.delenv(name, raising=False)
        run_case(case, capsys, monkeypatch, recorded)

    return campaign_summary, test_case


@pytest.fixture(scope="module", autouse=True)
def campaign_summary():
    """After the module: the table of every case run to build/campaign.txt."""
    yield
    write_summary(CASES, RECORDED, SUMMARY)


def _workspace() -> Path:
    """A fresh folder every user can enter (pytest's tmp_path is 0700 under root's folder, closed to nobody)."""
    root = Path(tempfile.mkdtemp(prefix="evalgate-campaign-"))
    root.chmod(0o755)
    return root


def _inproc(argv: list[str], capsys: pytest.CaptureFixture[str], case: Case) -> tuple[int, str, str]:
    from evalgate_lib.cli import main

    srv = case.server() if case.server is not None else FakeOllama()
    with serving(srv):
        code = main([a.replace(DEAD_HOST, "http://a.test:11434") for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


_CHILD = f"""
import os, sys
import evalgate_lib.cli, evalgate_lib.run.results, evalgate_lib.gold_tools.gold_files, evalgate_lib.workbench.report
if sys.argv[1] == "nobody":
    os.setgid({NOBODY}); os.setuid({NOBODY})
sys.exit(evalgate_lib.cli.main(sys.argv[2:]))
"""


def _process(argv: list[str], as_nobody: bool, cwd: Path, case: Case) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OLLAMA_HOST": DEAD_HOST, **dict(case.env)}
    if not as_nobody:
        command = [sys.executable, "-m", "evalgate_lib.cli", *argv]
    else:
        command = [sys.executable, "-c", _CHILD, "nobody", *argv]
    if case.sink == "pipe":
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
        return done.returncode, done.stdout, done.stderr
    assert case.sink in ("full", "closed"), case.sink
    if case.sink == "full":
        sink = os.open("/dev/full", os.O_WRONLY)
    else:
        read, sink = os.pipe()
        os.close(read)  # the reader is gone before the child writes a byte: its first write gets EPIPE
    try:
        done = subprocess.run(command, stdout=sink, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, timeout=300)
    finally:
        os.close(sink)
    return done.returncode, "", done.stderr


def run_case(
    case: Case,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    recorded: dict[str, tuple[int, str]],
) -> None:
    """Run one case in a fresh workspace and check its exit code, first line and what it wrote."""
    if case.how == "nobody" and os.geteuid() != 0:
        pytest.skip("needs root to drop to the nobody user; as another user chmod 000 already applies")
    root = _workspace()
    if case.how == "nobody":
        root.chmod(0o777)  # nobody may write its --out and cache there: the case is about what it may not read
    ws = None
    try:
        ws = Workspace(root)
        argv = case.setup(ws)
        if case.patch is not None:
            case.patch(monkeypatch)
        if case.how == "inproc":
            code, out, err = _inproc(argv, capsys, case)
        else:
            code, out, err = _process(argv, case.how == "nobody", root, case)
        pattern = re.compile(case.line.replace("{ws}", re.escape(str(root))))
        err_lines = err.splitlines()
        if case.stdout:
            assert err == "", err
            found = [line for line in out.splitlines() if pattern.fullmatch(line)]
            assert found, f"no stdout line matches {pattern.pattern!r}:\n{out}"
            shown = found[0]
        else:
            assert err_lines, f"nothing on stderr; stdout:\n{out}"
            shown = err_lines[0]
            assert pattern.fullmatch(shown), f"{shown!r}\n does not match\n{pattern.pattern!r}"
            if not shown.startswith("Traceback"):
                assert "Traceback" not in err, err
        assert code == case.code, (code, err)
        if case.check is not None:
            case.check(ws)
        recorded[case.id] = (code, shown.replace(str(root), "<ws>"))
    finally:
        for cleanup in reversed(ws.cleanups if ws is not None else []):
            cleanup()
        for path in root.rglob("*"):
            if not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_campaign(case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    run_case(case, capsys, monkeypatch, RECORDED)


def test_the_embedded_context_length_is_the_models_own():
    """CONTEXT_LENGTH, which the context check uses for the embedded backend, is what the GGUF file declares."""
    gguf = pytest.importorskip("gguf")
    from evalgate_lib.generation.backends.local import CONTEXT_LENGTH, generator_path

    field = gguf.GGUFReader(str(generator_path())).fields["llama.context_length"]
    assert int(field.parts[field.data[0]][0]) == CONTEXT_LENGTH == 8192
