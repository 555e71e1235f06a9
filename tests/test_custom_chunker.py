"""A team's own chunker, ``[chunking] method = "module:function"``: loaded, checked, hashed, and run.

The unit tests use a two-paragraph article whose spans are counted by hand; the run
tests drive the whole pipeline (fake Ollama server in process) with a candidate config
that names a chunker module in the config's own folder.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from fake_ollama import FakeOllama, evalgate_run, run_stats, serving

from evalgate_lib.chunks.chunking import check_chunking, chunk_corpus, chunker_identity
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import Article

ROOT = Path(__file__).resolve().parents[1]

PARAGRAPHS = '''
import re


def paragraphs(article, min_words=1):
    """One chunk per blank-line-separated paragraph of at least min_words words."""
    return [
        (m.start(), m.end())
        for m in re.finditer(r"\\S(?:.|\\n(?!\\n))*", article.body)
        if len(m.group().split()) >= min_words
    ]
'''

#: "(label)=" is a MyST label line: markup only, merged into the paragraph after it.
BODY = "First paragraph here.\n\n(label)=\n\nSecond one, longer than the first."
ARTICLE = Article("a", "A", BODY)


@pytest.fixture
def module(tmp_path) -> tuple[str, Path]:
    """A fresh module name per test, so Python's import cache never hands one test another's code."""
    name = f"team_chunker_{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{name}.py"
    path.write_text(PARAGRAPHS)
    return name, path


def test_spans_become_chunks_with_provenance(module, tmp_path):
    name, _ = module
    chunks = chunk_corpus([ARTICLE], {"method": f"{name}:paragraphs"}, search=(tmp_path,))
    # by hand: "First paragraph here." is 0..21; "(label)=" at 23..31 carries no text, so it is
    # merged into "Second one, longer than the first." (33..67): one chunk 23..67
    assert [(c.start, c.end) for c in chunks] == [(0, 21), (23, 67)]
    assert [c.chunk_id for c in chunks] == ["a#0", "a#1"]
    assert all(BODY[c.start : c.end] == c.text for c in chunks)


def test_parameters_are_passed_and_checked(module, tmp_path):
    name, _ = module
    chunks = chunk_corpus([ARTICLE], {"method": f"{name}:paragraphs", "min_words": 4}, search=(tmp_path,))
    assert [c.text for c in chunks] == ["Second one, longer than the first."]
    with pytest.raises(InputError, match=r"x.toml: \[chunking\]: unknown key 'min_word' .* did you mean 'min_words'"):
        check_chunking({"method": f"{name}:paragraphs", "min_word": 2}, "x.toml: [chunking]", search=(tmp_path,))


@pytest.mark.parametrize(
    ("method", "message"),
    [
        ("nosuchmodule_xyz:f", "cannot import chunker module 'nosuchmodule_xyz'"),
        (":f", "a custom chunker is named 'package.module:function'"),
        ("{name}:nope", "has no function 'nope'"),
    ],
)
def test_bad_names_are_refused(module, tmp_path, method, message):
    name, _ = module
    with pytest.raises(InputError, match=message):
        check_chunking({"method": method.format(name=name)}, "x.toml: [chunking]", search=(tmp_path,))


def test_bad_spans_name_the_article(tmp_path):
    name = f"bad_chunker_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("def f(article):\n    return [(0, 5), (3, 999)]\n")
    with pytest.raises(InputError, match=r"returned \(3, 999\) as span 1 of article 'a'.*0 <= start < end <= 67"):
        chunk_corpus([ARTICLE], {"method": f"{name}:f"}, search=(tmp_path,))


def test_source_hash_follows_the_code(module, tmp_path):
    name, path = module
    spec = {"method": f"{name}:paragraphs"}
    first = chunker_identity(spec, (tmp_path,))
    assert first is not None and first["source"] == str(path) and len(first["source_sha256"]) == 64
    path.write_text(PARAGRAPHS + "\n# a comment that changes nothing the chunker does\n")
    assert chunker_identity(spec, (tmp_path,))["source_sha256"] != first["source_sha256"]
    assert chunker_identity({"method": "fixed", "size": 10}) is None


def _configs(tmp_path: Path, method: str) -> Path:
    """Shipped baseline, and a candidate whose [chunking] names the team's chunker; absolute inputs."""
    folder = tmp_path / "configs"
    folder.mkdir(exist_ok=True)
    for config in ("baseline", "candidate"):
        text = (ROOT / "configs" / f"{config}.toml").read_text()
        text = text.replace('"../corpus"', json.dumps(str(ROOT / "corpus")))
        text = text.replace('"../gold/questions.jsonl"', json.dumps(str(ROOT / "gold" / "questions.jsonl")))
        if config == "candidate":
            head, _, rest = text.partition("\n[chunking]\n")
            rest = rest[rest.index("\n[") :] if "\n[" in rest else ""
            text = f'{head}\n[chunking]\nmethod = "{method}"\n{rest}'
        (folder / f"{config}.toml").write_text(text)
    return folder


def test_a_run_records_the_chunker_and_reruns_only_what_its_code_changes(tmp_path):
    name = f"team_chunker_{uuid.uuid4().hex[:8]}"
    configs = _configs(tmp_path, f"{name}:paragraphs")
    code = configs / f"{name}.py"  # beside the config: imported from the config's folder
    code.write_text(PARAGRAPHS)
    cache = tmp_path / "cache"
    with serving(FakeOllama()):
        assert evalgate_run(cache, tmp_path / "one", limit=6, configs=configs) == 0
        manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
        recorded = manifest["configs"]["candidate"]["chunker"]
        assert recorded["method"] == f"{name}:paragraphs" and recorded["source"] == str(code)
        assert "chunker" not in manifest["configs"]["baseline"]  # built-in chunkers need no code hash

        # a comment: new hash in the manifest, but every chunk is the same, so nothing re-runs
        code.write_text(PARAGRAPHS + "\n# reviewed 2026-12-02\n")
        assert evalgate_run(cache, tmp_path / "two", limit=6, configs=configs) == 0
        again = json.loads((tmp_path / "two" / "manifest.json").read_text())
        assert again["configs"]["candidate"]["chunker"]["source_sha256"] != recorded["source_sha256"]
        assert run_stats(tmp_path / "two")["model_calls"]["generate_calls"] == 0
        assert (tmp_path / "one" / "results.jsonl").read_bytes() == (tmp_path / "two" / "results.jsonl").read_bytes()

        # real change (paragraphs of at least 30 words): the candidate's chunks change, so its calls re-run
        code.write_text(PARAGRAPHS.replace("min_words=1", "min_words=30"))
        assert evalgate_run(cache, tmp_path / "three", limit=6, configs=configs) == 0
        calls = run_stats(tmp_path / "three")["model_calls"]
        assert calls["generate_calls"] > 0 and calls["embed_calls"] > 0
