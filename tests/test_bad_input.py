"""Bad input through the command line: exit code 2 and one message naming the file, line or key.

Every case is rejected while loading, before any model is called (the fake Ollama
server checks that it never received a model request).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_ollama import ROOT, FakeOllama, evalgate_run, serving

ARTICLES = ("plans-and-pricing-2026.md", "refunds.md", "two-factor-authentication.md")
GOOD = [
    {
        "id": "q1",
        "question": "How many seats does the Starter plan include?",
        "type": "answerable",
        "article": "plans-and-pricing-2026",
        "accept": ["3 seats"],
        "evidence": ["Starter includes 3 seats"],
    },
    {
        "id": "q2",
        "question": "Does Nimbus offer a lifetime licence?",
        "type": "no_answer",
        "article": None,
        "accept": [],
    },
]


class Workspace:
    """A corpus folder, a gold file and two configs in a temporary folder, each breakable on purpose."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.corpus = root / "corpus"
        self.corpus.mkdir()
        for name in ARTICLES:
            shutil.copy(ROOT / "corpus" / name, self.corpus / name)
        self.gold = root / "gold.jsonl"
        self.write_gold(GOOD)
        self.texts = {name: (ROOT / "configs" / f"{name}.toml").read_text() for name in ("baseline", "candidate")}
        for name in self.texts:
            self.edit_config(name)

    def write_gold(self, rows: list[dict | str]) -> None:
        lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
        self.gold.write_text("\n".join(lines) + "\n")

    def edit_config(self, name: str, *replacements: tuple[str, str]) -> Path:
        """Write config ``name`` with paths into the workspace and each (old, new) replacement applied."""
        text = self.texts[name].replace('"../corpus"', json.dumps(str(self.corpus)))
        text = text.replace('"../gold/questions.jsonl"', json.dumps(str(self.gold)))
        for old, new in replacements:
            assert old in text, old
            text = text.replace(old, new)
        path = self.root / f"{name}.toml"
        path.write_text(text)
        return path


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path)


def run(ws: Workspace, capsys) -> tuple[int, str]:
    """Run against the workspace; return (exit code, stderr) and check that no model was called."""
    srv = FakeOllama()
    with serving(srv):
        rc = evalgate_run(ws.root / "cache", ws.root / "out", limit=None, configs=ws.root)
    assert sum(srv.seen.values()) == 0, "a model was called before the input was validated"
    assert not (ws.root / "out").exists()
    return rc, capsys.readouterr().err


def test_the_workspace_itself_is_fine(ws, capsys):
    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(ws.root / "cache", ws.root / "out", limit=None, configs=ws.root) == 0
    assert len((ws.root / "out" / "results.jsonl").read_text().splitlines()) == 4


# --------------------------------------------------------------------------- gold


def test_malformed_gold_line(ws, capsys):
    ws.write_gold([GOOD[0], '{"id": "q2", "question": oops}', GOOD[1]])
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"evalgate: error: {ws.gold}:2: not valid JSON (Expecting value at column 26)" in err


def test_gold_line_that_is_not_an_object(ws, capsys):
    ws.write_gold([GOOD[0], "[1, 2]"])
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.gold}:2: each line must be a JSON object" in err


def test_gold_line_missing_a_field(ws, capsys):
    ws.write_gold([GOOD[0], {k: v for k, v in GOOD[1].items() if k != "question"}])
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.gold}:2: 'question' is required and must be a non-empty string" in err


def test_gold_line_with_an_unknown_field(ws, capsys):
    ws.write_gold([GOOD[0], {**GOOD[1], "answer": "no"}])
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.gold}:2: unknown field(s) ['answer']" in err


def test_duplicate_question_ids(ws, capsys):
    ws.write_gold([GOOD[0], GOOD[1], {**GOOD[0], "question": "Same id, other question?"}])
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.gold}:3: duplicate question id 'q1' (first on line 1)" in err


def test_unknown_article_ids(ws, capsys):
    ws.write_gold([GOOD[0], {**GOOD[0], "id": "q3", "article": "no-such-article", "evidence": None}, GOOD[1]])
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"{ws.gold}: unknown gold article id(s), not in the corpus: q3 → 'no-such-article'" in err


def test_evidence_not_in_the_article(ws, capsys):
    ws.write_gold([{**GOOD[0], "evidence": ["Starter includes 300 seats"]}, GOOD[1]])
    rc, err = run(ws, capsys)
    assert rc == 2
    assert "evidence string not found in the gold article body" in err and "q1" in err


def test_empty_gold_file(ws, capsys):
    ws.gold.write_text("\n\n")
    rc, err = run(ws, capsys)
    assert rc == 2 and f"gold file {ws.gold} holds no questions" in err


# ------------------------------------------------------------------------- corpus


def test_empty_corpus_folder(ws, capsys):
    for path in ws.corpus.iterdir():
        path.unlink()
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"corpus folder {ws.corpus} holds no readable documents (.md, .markdown, .txt, .rst, .html, .htm)" in err


def test_empty_corpus_file(ws, capsys):
    (ws.corpus / "empty.md").write_bytes(b"")
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"{ws.corpus / 'empty.md'}: the article body is empty" in err  # front matter is optional


def test_article_with_an_empty_body(ws, capsys):
    (ws.corpus / "stub.md").write_text("---\nid: stub\ntitle: Stub\n---\n\n  \n")
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.corpus / 'stub.md'}: the article body is empty" in err


def test_binary_corpus_file(ws, capsys):
    (ws.corpus / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"{ws.corpus / 'logo.md'}: looks like a binary file (NUL bytes), not a text document" in err


def test_corpus_file_that_is_not_utf8(ws, capsys):
    (ws.corpus / "latin1.md").write_bytes("---\nid: x\ntitle: Café\n---\nbody\n".encode("latin-1"))
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{ws.corpus / 'latin1.md'}: not UTF-8 text" in err


def test_two_articles_with_one_id(ws, capsys):
    shutil.copy(ws.corpus / "refunds.md", ws.corpus / "refunds-copy.md")
    rc, err = run(ws, capsys)
    assert rc == 2 and "article id 'refunds' is already used by" in err


# -------------------------------------------------------------------------- configs


def test_template_missing_the_question_placeholder(ws, capsys):
    path = ws.edit_config("candidate", ("Question: {question}", "Question: (none)"))
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"{path}: the prompt template is missing the placeholder {{question}}; it needs each once" in err


def test_template_repeating_the_context_placeholder(ws, capsys):
    path = ws.edit_config("baseline", ("{context}", "{context}\n{context}"))
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{path}: the prompt template appears 2 times the placeholder {{context}}" in err


def test_unfair_configs_name_every_differing_key(ws, capsys):
    ws.edit_config("candidate", ("top_k = 4", "top_k = 5"), ("temperature = 0.0", "temperature = 0.7"))
    rc, err = run(ws, capsys)
    assert rc == 2
    assert "may differ only in [chunking] and [prompt]" in err
    assert "shared.top_k: 4 (baseline.toml) vs 5 (candidate.toml)" in err
    assert "shared.temperature: 0.0 (baseline.toml) vs 0.7 (candidate.toml)" in err


def test_configs_with_the_same_name(ws, capsys):
    ws.edit_config("candidate", ('name = "candidate"', 'name = "baseline"'))
    rc, err = run(ws, capsys)
    assert rc == 2 and "have the same name 'baseline'" in err


def test_config_that_is_not_toml(ws, capsys):
    path = ws.root / "baseline.toml"
    path.write_text("name = 'unterminated\n")
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{path}: not valid TOML" in err


def test_config_missing_a_shared_key(ws, capsys):
    path = ws.edit_config("baseline", (f"gold = {json.dumps(str(ws.gold))}\n", ""))
    rc, err = run(ws, capsys)
    assert rc == 2 and f"{path}: [shared] is missing ['gold']" in err


# ----------------------------------------------------------------- config typos (strict keys)


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        # a typo must never run silently with the default ("raw" matching here)
        (
            "candidate",
            "num_ctx = 4096\n",
            'num_ctx = 4096\nanswer_matchng = "normalised"\n',
            "unknown key 'answer_matchng' in [shared]; did you mean 'answer_matching'?",
        ),
        ("baseline", 'gold = "', 'gold_file = "', "unknown key 'gold_file' in [shared]; did you mean 'gold'?"),
        (
            "baseline",
            "overlap = 20",
            "overlp = 20",
            "[chunking]: unknown key 'overlp' for the 'fixed' chunker; did you mean 'overlap'?",
        ),
        (
            "candidate",
            'embedder = "nomic-embed-text"',
            'embeder = "nomic-embed-text"',
            "unknown key 'embeder' in [shared.models.ollama]; did you mean 'embedder'?",
        ),
        (
            "baseline",
            "[shared.models.ollama]",
            "[shared.model.ollama]",
            "unknown key 'model' in [shared]; did you mean 'models'?",
        ),
    ],
    ids=["shared", "shared-required", "chunking", "models-ollama", "shared-table"],
)
def test_config_typo_is_refused_naming_file_key_and_nearest(ws, capsys, name, old, new, message):
    path = ws.edit_config(name, (old, new))
    rc, err = run(ws, capsys)
    assert rc == 2
    assert f"evalgate: error: {path}: {message}" in err
    assert len(err.strip().splitlines()) == 1  # one message, no traceback


def test_missing_config_file(ws, capsys):
    (ws.root / "candidate.toml").unlink()
    rc, err = run(ws, capsys)
    assert rc == 2 and f"config file {ws.root / 'candidate.toml'} does not exist" in err
