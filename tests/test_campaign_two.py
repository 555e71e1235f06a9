"""The second bad-input and fault campaign (issue 31), as one table of cases like tests/test_campaign.py.

The first campaign's harness runs every row (:func:`test_campaign.run_case`): a fresh workspace,
one fault, one command through the real command line, its exit code and first line checked
exactly. The rows are grouped by what the campaign found:

* a long line: a document of one 1 MB line without a title used to hang ``run`` (the title regex
  was quadratic); it now reads in linear time (bench/bench_long_lines.py measures it);
* forged results: the plain checksums find accidents, not forgery; what a forger can and cannot
  get past the gate, with and without the team's signing key;
* output inside the corpus, also through a symbolic link, and EvalGate's own pages found there;
* crashes that were exit 3: where EvalGate writes (read-only, full, a folder, a dangling link, a
  file in the way), text that is not Unicode, option values past any sane range, a thresholds
  file that says "5%", a standard output that is full, closed or ASCII-only;
* wrong causes: a one-paragraph document, a corpus path that is a file, an Ollama URL ending in
  ``/v1``, HTTP 500, 503 and a 404 that is not a missing model.

Cases that mount a small tmpfs (a full or read-only file system) need root with CAP_SYS_ADMIN and
are skipped, with the reason, elsewhere. The table goes to ``build/campaign-2.txt``.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest
from fake_ollama import FakeOllama, serving
from test_campaign import DEAD_HOST, ERR, GOLD, ROOT, Case, Workspace, campaign_tests, nothing_written

SUMMARY = ROOT / "build" / "campaign-2.txt"
KEY = "5f1c0e3a9b7d2468ace13579bdf02468a1b2c3d4e5f60718293a4b5c6d7e8f90"  # 64 hex characters: a team's key
OTHER_KEY = "0" * 64
HINT = r"; rerun 'evalgate score .*"
VERIFIED = r"signature: verified \(HMAC-SHA256, key id [0-9a-f]{16}\)"
ENTRY = r"{ws}/cache/evalgate-v1/(generate|embed)/[0-9a-f]{2}/[0-9a-f]{64}\.json"
FORGED = "Starter includes 300 seats."


# ------------------------------------------------------------------------------ helpers


def key_file(ws: Workspace, text: str = KEY, name: str = "team.key") -> Path:
    path = ws.root / name
    path.write_text(text + "\n")
    return path


def scored(ws: Workspace, *extra: str, corpus: bool = False) -> Path:
    """``evalgate score`` of two logs (no model) into ``<ws>/results``; ``extra`` goes on its command line."""
    from evalgate_lib.cli import main

    good = ws.answer_log("v1", lambda q: [])
    other = ws.answer_log("v2", lambda q: [])
    argv = ws.score(good, other, out="results")
    if not corpus:
        at = argv.index("--corpus")
        del argv[at : at + 2]
    assert main([*extra, *argv]) == 0
    return ws.root / "results"


def point_gate(ws: Workspace) -> Path:
    """Thresholds that fail on any drop of refusal accuracy (the scored logs' only correct answers)."""
    path = ws.root / "gate.toml"
    path.write_text('mode = "point"\n\n[[rule]]\nmetric = "refusal_accuracy"\nmax_drop = 0.0\n')
    return path


def redigest_manifest(results: Path, change: Callable[[dict[str, Any]], None] = lambda m: None) -> None:
    """Edit manifest.json and recompute its checksums as a forger would (the SHA-256 of the files, its own)."""
    from evalgate_lib.run.manifest import manifest_digest

    path = results / "manifest.json"
    data = json.loads(path.read_text())
    change(data)
    for name in ("results.jsonl", "summary.json"):
        data["files"][name]["sha256"] = hashlib.sha256((results / name).read_bytes()).hexdigest()
    data["manifest_sha256"] = manifest_digest(data)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def forge_refusals(results: Path, summary_too: bool) -> None:
    """Mark the candidate's correct refusal (q2) wrong, recompute the checksums; with ``summary_too`` the summary."""
    from evalgate_lib.run.results import load_rows
    from evalgate_lib.statistics.metrics import compare, ranking_depths

    path = results / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        if row["config"] == "v2" and row["question_id"] == "q2":
            row["judgement"]["correct"] = False
    path.write_text("".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows))
    if summary_too:  # as a forger with the library would: the summary the writer computes from these rows
        forged = load_rows(results)
        summary = compare(forged, "v1", "v2", depths=ranking_depths(forged, ("v1", "v2"), None, logged=True)).to_json()
        (results / "summary.json").write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n")
    redigest_manifest(results)


def gate(results: Path, *extra: str | Path) -> list[str]:
    return ["gate", "--results", str(results), *map(str, extra)]


def fake_run(ws: Workspace, *extra: str) -> None:
    """A real ``evalgate run`` of the workspace against the in-process fake Ollama (fills the cache)."""
    from evalgate_lib.cli import main

    with serving(FakeOllama()):
        argv = [a.replace(DEAD_HOST, "http://a.test:11434") for a in ws.run()]
        assert main([*extra, *argv]) == 0


def warnings_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, the command's warnings reach stderr as in a terminal (pytest's log capture would keep them)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("evalgate: %(levelname)s: %(message)s"))
    monkeypatch.setattr(logging.getLogger(), "handlers", [handler])
    monkeypatch.setattr(logging.getLogger(), "level", logging.WARNING)


class RefusingStdout(io.TextIOBase):
    """A standard output every write to which fails as the system would fail it (``errno``)."""

    def __init__(self, number: int) -> None:
        self.number = number

    def write(self, text: str) -> int:
        raise OSError(self.number, os.strerror(self.number))


def stdout_refusing(number: int) -> Callable[[pytest.MonkeyPatch], None]:
    """A patch: the command's standard output refuses every write (in process; stdout-full is the real one)."""

    def patch(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sys, "stdout", RefusingStdout(number))

    return patch


def environment(**values: str) -> Callable[[pytest.MonkeyPatch], None]:
    """A patch: these environment variables set for the command (undone after the case)."""

    def patch(monkeypatch: pytest.MonkeyPatch) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)

    return patch


def forge_cache_answers(ws: Workspace) -> None:
    """Rewrite every cached answer's ``text`` and ``text_sha256`` (its signature, if any, left as it was)."""
    entries = sorted((ws.root / "cache" / "evalgate-v1" / "generate").glob("*/*.json"))
    assert entries
    for entry in entries:
        record = json.loads(entry.read_text())
        record["text"] = FORGED
        record["text_sha256"] = hashlib.sha256(FORGED.encode()).hexdigest()
        entry.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def answers(ws: Workspace) -> list[str]:
    return [json.loads(line)["answer"] for line in (ws.root / "out" / "results.jsonl").read_text().splitlines()]


def mount_tmpfs(ws: Workspace, name: str, options: str) -> Path:
    """A tmpfs at ``<ws>/name``, unmounted by the workspace's cleanup; the case is skipped where it cannot be."""
    point = ws.root / name
    point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): {done.stderr.strip()}")
    ws.cleanups.append(lambda: subprocess.run(["umount", str(point)], check=True))
    return point


class ScriptedOllama(FakeOllama):
    """The fake Ollama with one endpoint's answer replaced by ``answer(path, body)`` (``None``: the normal one)."""

    def __init__(self, answer: Callable[[str, Any], httpx.Response | None]) -> None:
        super().__init__()
        self.answer = answer

    def _answer(self, request: httpx.Request, path: str) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        return self.answer(path, body) or super()._answer(request, path)


def failing(status: int) -> FakeOllama:
    srv = FakeOllama()
    srv.fail_every(1, status=status)
    return srv


def not_an_ollama_path(path: str, body: Any) -> httpx.Response | None:
    """What a reverse proxy or a Go server says for a path it does not serve."""
    return httpx.Response(404, text="404 page not found") if path == "/api/show" else None


def surrogate_answer(path: str, body: Any) -> httpx.Response | None:
    """A chat answer holding a lone surrogate, as JSON spells it (``\\ud800``)."""
    if path != "/api/chat":
        return None
    data = {"model": body["model"], "message": {"role": "assistant", "content": "Three seats \ud800."}, "done": True}
    return httpx.Response(200, content=json.dumps(data).encode("ascii"), headers={"content-type": "application/json"})


# ------------------------------------------------------------------------------ setups


def long_line(ws: Workspace) -> list[str]:
    (ws.corpus / "export.md").write_text("lorem ipsum " * 87_382)  # one line of 1 MiB, no title anywhere
    return ws.run()


def blob(ws: Workspace) -> list[str]:
    (ws.corpus / "logo.md").write_text("# Logo\n\n" + "QUJD" * 250_000 + "\n")  # a 1 MB base64 run: one "word"
    return ws.run()


def forged_rows(ws: Workspace) -> list[str]:
    results = scored(ws)
    forge_refusals(results, summary_too=False)
    return gate(results, "--thresholds", point_gate(ws))


def forged_rows_and_summary(ws: Workspace) -> list[str]:
    results = scored(ws)
    forge_refusals(results, summary_too=True)
    return gate(results, "--thresholds", point_gate(ws))


def diff_agrees_with_gate(ws: Workspace) -> None:
    """The forged folder is at least one story: ``diff`` lists the same q2 as broken, the one the gate failed on."""
    from evalgate_lib.api import load_results

    changes = load_results(ws.root / "results").changes()
    assert [c.question_id for c in changes if c.kind == "broken"] == ["q2"]


def manifest_edited(ws: Workspace) -> list[str]:
    results = scored(ws)
    path = results / "manifest.json"
    data = json.loads(path.read_text())
    data["backend"]["backend"] = "ollama llama3.1:70b"  # another model named, the checksum not recomputed
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return gate(results)


def manifest_forged(ws: Workspace) -> list[str]:
    results = scored(ws)
    redigest_manifest(results, lambda m: m["backend"].update(backend="ollama llama3.1:70b"))
    return gate(results)


def signed(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    return gate(scored(ws, "--key-file", str(keys)), "--key-file", keys)


def signed_then_forged(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    results = scored(ws, "--key-file", str(keys))
    forge_refusals(results, summary_too=True)
    return gate(results, "--key-file", keys)


def signed_other_key(ws: Workspace) -> list[str]:
    results = scored(ws, "--key-file", str(key_file(ws)))
    return gate(results, "--key-file", key_file(ws, OTHER_KEY, "other.key"))


def unsigned_with_key(ws: Workspace) -> list[str]:
    return gate(scored(ws), "--key-file", key_file(ws))


def cache_forged_no_key(ws: Workspace) -> list[str]:
    fake_run(ws)
    forge_cache_answers(ws)
    return ws.run()


def forged_answers_used(ws: Workspace) -> None:
    assert set(answers(ws)) == {FORGED}  # the limit of a checksum: a rewritten answer with its checksum passes


def cache_forged_with_key(ws: Workspace) -> list[str]:
    keys = str(key_file(ws))
    fake_run(ws, "--key-file", keys)
    forge_cache_answers(ws)
    return ["--key-file", keys, *ws.run()]


def forged_answers_recomputed(ws: Workspace) -> None:
    assert FORGED not in answers(ws)


def cache_unsigned_with_key(ws: Workspace) -> list[str]:
    fake_run(ws)
    return ["--key-file", str(key_file(ws)), *ws.run()]


def out_through_link(ws: Workspace) -> list[str]:
    (ws.root / "kb").symlink_to(ws.corpus, target_is_directory=True)
    return ws.run(out="kb/results")


def report_page_linked(ws: Workspace) -> list[str]:
    from evalgate_lib.api import load_results
    from evalgate_lib.reporting.results_table import table_page_html

    page = ws.root / "report" / "answers.html"
    page.parent.mkdir()
    page.write_text(table_page_html(load_results(scored(ws)).rows))  # every gold answer, beside the judged ones
    (ws.corpus / "answers.html").symlink_to(page)
    return ws.gold_check()


def report_page_copied(ws: Workspace) -> list[str]:
    report_page_linked(ws)
    (ws.corpus / "answers.html").unlink()
    (ws.corpus / "answers.html").write_text((ws.root / "report" / "answers.html").read_text())
    return ws.run()


def page_skipped_in_manifest(ws: Workspace) -> None:
    manifest = json.loads((ws.root / "out" / "manifest.json").read_text())
    assert [s["path"] for s in manifest["corpus"]["skipped"]] == [str(ws.corpus / "answers.html")]
    assert manifest["corpus"]["articles"] == 3


def json_in_corpus(ws: Workspace) -> list[str]:
    return ["diff", "--results", str(scored(ws, corpus=True)), "--json", str(ws.corpus / "changes.json")]


def gold_import_into_corpus(ws: Workspace) -> list[str]:
    source = ws.root / "ragas.jsonl"
    source.write_text(json.dumps({"question": "How many seats?", "ground_truth": "3 seats"}) + "\n")
    return ["gold", "import", str(source), "--out", str(ws.corpus / "gold.md"), "--corpus", str(ws.corpus)]


def read_only_out(ws: Workspace) -> list[str]:
    (ws.root / "out").mkdir()
    (ws.root / "out").chmod(0o555)
    return ws.run()


def read_only_filesystem(ws: Workspace) -> list[str]:
    mount_tmpfs(ws, "ro", "ro,size=64k")
    return ws.run(out="ro/results")


def full_after_the_work(ws: Workspace) -> list[str]:
    mount_tmpfs(ws, "small", "size=8k")  # the write check's 4 KiB fit; the results (about 12 KB) do not
    return ws.run(out="small/out")


def work_kept_in_cache(ws: Workspace) -> None:
    from evalgate_lib.cli import main

    assert not (ws.root / "small" / "out" / "results.jsonl").exists()
    with serving(FakeOllama()) as srv:
        argv = [a.replace(DEAD_HOST, "http://a.test:11434") for a in ws.run(out="elsewhere")]
        assert main(argv) == 0
    assert srv.counts()["/api/chat"] == 0  # every answer came from the cache: nothing computed was lost


def surrogate_in_answer(ws: Workspace) -> list[str]:
    log = ws.root / "v2.jsonl"
    log.write_text(
        '{"question_id": "q1", "answer": "Three seats \\ud800.", "passages": []}\n'
        '{"question_id": "q2", "answer": "I don\'t know.", "passages": []}\n'
    )
    return ws.score(ws.answer_log("v1", lambda q: []), log)


def surrogate_in_gold(ws: Workspace) -> list[str]:
    rows = [json.dumps(GOLD[0]).replace("Starter plan", "Starter \\udc80 plan"), json.dumps(GOLD[1])]
    ws.gold.write_text("\n".join(rows) + "\n")
    return ws.run()


def json_is_a_folder(command: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        results = scored(ws)
        (ws.root / "changes").mkdir()
        extra = ["--labels", str(ws.gold)] if command == "agreement" else []
        return [command, "--results", str(results), *extra, "--json", str(ws.root / "changes")]

    return setup


def dangling_out(ws: Workspace) -> list[str]:
    (ws.root / "out").symlink_to(ws.root / "unmounted" / "results")
    return ws.run()


def dangling_json(ws: Workspace) -> list[str]:
    (ws.root / "changes.json").symlink_to(ws.root / "gone" / "changes.json")
    return ["diff", "--results", str(scored(ws)), "--json", str(ws.root / "changes.json")]


def out_under_a_file(ws: Workspace) -> list[str]:
    (ws.root / "taken").write_text("a file\n")
    return ws.run(out="taken/results")


def thresholds(text: str, raw: bytes | None = None) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        path = ws.root / "gate.toml"
        path.write_bytes(raw if raw is not None else text.encode())
        return gate(scored(ws), "--thresholds", path)

    return setup


def stdout_of_score(ws: Workspace) -> list[str]:
    return ws.score(ws.answer_log("v1", lambda q: []), ws.answer_log("v2", lambda q: []))


def results_written(ws: Workspace) -> None:
    assert (ws.root / "scored" / "manifest.json").is_file()  # the files are complete; only the printout was lost


def non_utf8_argument(ws: Workspace) -> list[Any]:
    return [*ws.run()[:-1], os.fsdecode(os.fsencode(str(ws.root)) + b"/out-\xff")]


def non_utf8_name(ws: Workspace) -> list[str]:
    (Path(os.fsdecode(os.fsencode(str(ws.corpus)) + b"/caf\xe9.md"))).write_text("# Cafe\n\nLatin-1 name.\n")
    return ws.run()


def one_paragraph(ws: Workspace) -> list[str]:
    sentence = "Nimbus keeps every export for thirty days after the account is closed. "
    (ws.corpus / "retention.txt").write_text(sentence * 1_400)  # 100 KB, one paragraph, no heading
    return ws.run()


def candidate_chunks_fit(ws: Workspace) -> None:
    manifest = json.loads((ws.root / "out" / "manifest.json").read_text())
    # 18,200 words in one paragraph: one chunk before (then "cannot fit"); cut under max_words = 250 now
    assert manifest["configs"]["candidate"]["chunks"] >= 73 + 3


def corpus_is_a_file(ws: Workspace) -> list[str]:
    (ws.root / "corpus.md").write_text("# Notes\n\nOne file, not a folder.\n")
    ws.both((json.dumps(str(ws.corpus)), json.dumps(str(ws.root / "corpus.md"))))
    return ws.run()


def without_hosts(ws: Workspace) -> list[str]:
    argv = ws.run()
    at = argv.index("--hosts")
    return argv[:at] + argv[at + 2 :]


# ------------------------------------------------------------------------------ the table

WRITE = r"; name a place you can write to, or fix its permissions or free space"
CORPUS = r"is inside the corpus folder {ws}/corpus: the next run would read what is written there as articles; "

CASES: tuple[Case, ...] = (
    # ---------------------------------------------------------------- a long line
    Case(
        "long-line-no-title",
        "a document of one 1 MiB line and no title (the title regex hung on it)",
        long_line,
        0,
        r"model calls: 4 generations, \d+ embedding batches; cache hits: \d+; wall time .*",
        stdout=True,
    ),
    Case(
        "blob-in-document",
        "a 1 MB base64 run (one 'word'): counted by characters, not silently truncated",
        blob,
        2,
        ERR + r"{ws}/baseline\.toml: the prompt cannot fit the generator's context: top_k 4 \(the 4 longest chunks, up "
        r"to \d+ words each\) \+ template \+ question = [\d,]+ words but 1,00[\d,]+ characters ≈ [\d,]+ tokens \(at 4 "
        r"characters/token \+ 64: its words are too long to count by words\), \+ max_tokens 96 = [\d,]+ > num_ctx "
        r"4,096; long runs without spaces \(a blob, a minified line\) cannot be split by a chunker; remove them",
    ),
    # ---------------------------------------------------------------- forged results
    Case(
        "forged-rows",
        "a correct refusal marked wrong in the rows, every checksum recomputed, the summary not",
        forged_rows,
        2,
        ERR + r"{ws}/results/summary\.json: .* is .*, but the rows give .*: the summary does not match its rows "
        r"\(one of them was changed after the run\)" + HINT,
    ),
    Case(
        "forged-rows-and-summary",
        "rows and summary forged alike: the gate FAILs on what diff lists as broken",
        forged_rows_and_summary,
        1,
        r"FAIL: candidate regresses on refusal_accuracy",
        stdout=True,
        check=diff_agrees_with_gate,
    ),
    Case(
        "manifest-edited",
        "another generator named in manifest.json, its own checksum not recomputed",
        manifest_edited,
        2,
        ERR + r"{ws}/results/manifest\.json: SHA-256 differs from its manifest_sha256 \(the file was changed after "
        r"the run\)" + HINT,
    ),
    Case(
        "manifest-forged-no-key",
        "the same edit with manifest_sha256 recomputed: without a key, nothing can tell",
        manifest_forged,
        4,  # INCONCLUSIVE on this small run (issue 53): the folder was judged
        r"signature: none \(checksums only: they find accidents, not forgery\)",
        stdout=True,
    ),
    Case(
        "signed-verified",
        "score and gate with the team's --key-file",
        signed,
        4,  # INCONCLUSIVE on this small run (issue 53): the folder was judged
        VERIFIED,
        stdout=True,
    ),
    Case(
        "signed-then-forged",
        "a signed folder whose rows, summary and checksums were forged alike",
        signed_then_forged,
        2,
        ERR + r"{ws}/results/signature\.json: the signature does not match manifest\.json: the folder was changed "
        r"after it was signed" + HINT,
    ),
    Case(
        "signed-other-key",
        "a signed folder read with another key",
        signed_other_key,
        2,
        ERR + r"{ws}/results/signature\.json: signed with another key \(key id '[0-9a-f]{16}'; the key set here has "
        r"'[0-9a-f]{16}'\)" + HINT,
    ),
    Case(
        "unsigned-with-key",
        "an unsigned folder read with a key set",
        unsigned_with_key,
        2,
        ERR + r"{ws}/results: not signed \(no signature\.json\), but a signing key is set: a folder written without "
        r"the key, or whose signature was removed, is not trusted" + HINT,
    ),
    Case(
        "key-file-missing",
        "--key-file names no file",
        lambda ws: ["--key-file", str(ws.root / "team.key"), *ws.run()],
        2,
        ERR + r"signing key file {ws}/team\.key does not exist",
        check=nothing_written,
    ),
    Case(
        "key-too-short",
        "EVALGATE_SIGNING_KEY=secret (6 bytes)",
        lambda ws: ws.run(),
        2,
        ERR + r"EVALGATE_SIGNING_KEY holds a key of 6 bytes; a signing key needs at least 16 \(make one with 'openssl "
        r"rand -hex 32'\)",
        patch=environment(EVALGATE_SIGNING_KEY="secret"),
        check=nothing_written,
    ),
    Case(
        "cache-forged-no-key",
        "cached answers and their text_sha256 rewritten, no key: used (the checksums' limit)",
        cache_forged_no_key,
        0,
        r"model calls: 0 generations, 0 embedding batches; cache hits: \d+; wall time .*",
        stdout=True,
        check=forged_answers_used,
    ),
    Case(
        "cache-forged-with-key",
        "the same forgery in a cache signed with the team's key: found and recomputed",
        cache_forged_with_key,
        0,
        r"evalgate: WARNING: corrupt generate cache entry " + ENTRY + r": its signature does not match it \(changed "
        r"after it was written\); recomputed it",
        patch=warnings_on_stderr,
        check=forged_answers_recomputed,
    ),
    Case(
        "cache-unsigned-with-key",
        "a cache written without a key, read with one: every entry recomputed, each said",
        cache_unsigned_with_key,
        0,
        r"evalgate: WARNING: corrupt (generate|embed) cache entry " + ENTRY + r": not signed, and a signing key is "
        r"set \(written without the key, or forged\); recomputed it",
        patch=warnings_on_stderr,
    ),
    # ---------------------------------------------------------------- output inside the corpus
    Case(
        "out-in-corpus-via-symlink",
        "--out kb/results where kb links to the corpus",
        out_through_link,
        2,
        ERR + r"--out {ws}/kb/results " + CORPUS + "write it outside the corpus",
    ),
    Case(
        "report-page-linked-into-corpus",
        "corpus/answers.html links to a page EvalGate wrote (it holds the gold)",
        report_page_linked,
        0,
        r"skipped corpus file {ws}/corpus/answers\.html: a page EvalGate wrote \(a report: it holds the gold "
        r"answers\), not an article",
        stdout=True,
    ),
    Case(
        "report-page-copied-into-corpus",
        "the same page copied into the corpus: skipped, listed in the manifest",
        report_page_copied,
        0,
        r"skipped corpus file {ws}/corpus/answers\.html: a page EvalGate wrote \(a report: it holds the gold "
        r"answers\), not an article",
        stdout=True,
        check=page_skipped_in_manifest,
    ),
    Case(
        "cache-dir-in-corpus",
        "--cache-dir inside the corpus",
        lambda ws: [*ws.run(), "--cache-dir", str(ws.corpus / "cache")],
        2,
        ERR + r"--cache-dir {ws}/corpus/cache " + CORPUS + "write it outside the corpus",
    ),
    Case(
        "diff-json-in-corpus",
        "diff --json into the corpus of the results",
        json_in_corpus,
        2,
        ERR + r"--json {ws}/corpus/changes\.json " + CORPUS + "write it outside the corpus",
    ),
    Case(
        "gold-import-into-corpus",
        "gold import --out into the corpus",
        gold_import_into_corpus,
        2,
        ERR + r"--out {ws}/corpus/gold\.md " + CORPUS + "write it outside the corpus",
    ),
    # ---------------------------------------------------------------- where EvalGate writes
    Case(
        "out-read-only",
        "--out a folder nobody may write: refused before any model call",
        read_only_out,
        2,
        ERR + r"--out {ws}/out: cannot write into {ws}/out \(Permission denied\)" + WRITE,
        how="nobody",
    ),
    Case(
        "out-read-only-filesystem",
        "--out under a folder on a read-only file system (a tmpfs mounted ro)",
        read_only_filesystem,
        2,
        ERR + r"--out {ws}/ro/results: cannot write into {ws}/ro \(Read-only file system\)" + WRITE,
    ),
    Case(
        "out-full-after-the-work",
        "the output file system fills during the run (an 8 KiB tmpfs)",
        full_after_the_work,
        2,
        ERR + r"cannot write {ws}/small/out/results\.jsonl \(No space left on device\)",
        check=work_kept_in_cache,
    ),
    Case(
        "out-dangling-symlink",
        "--out a symbolic link to a folder that is gone",
        dangling_out,
        2,
        ERR + r"--out {ws}/out is a symbolic link to {ws}/unmounted/results, which does not exist: create its "
        r"target, or name another folder",
    ),
    Case(
        "out-under-a-file",
        "--out taken/results where taken is a file",
        out_under_a_file,
        2,
        ERR + r"--out {ws}/taken/results: {ws}/taken is a file, so no folder can be made there",
    ),
    Case(
        "diff-json-is-a-folder",
        "diff --json names a folder",
        json_is_a_folder("diff"),
        2,
        ERR + r"--json {ws}/changes is a folder, not a file: name a file to write into, e\.g\. {ws}/changes/out\.json",
    ),
    Case(
        "agreement-json-is-a-folder",
        "agreement --json names a folder",
        json_is_a_folder("agreement"),
        2,
        ERR + r"--json {ws}/changes is a folder, not a file: name a file to write into, e\.g\. {ws}/changes/out\.json",
    ),
    Case(
        "diff-json-dangling-symlink",
        "diff --json a symbolic link whose folder is gone",
        dangling_json,
        2,
        ERR + r"--json {ws}/changes\.json is a symbolic link to {ws}/gone/changes\.json, which does not exist: create "
        r"its target, or name another file",
    ),
    # ---------------------------------------------------------------- text that is not Unicode
    Case(
        "answer-lone-surrogate",
        "an answer holding \\ud800 (half a UTF-16 pair)",
        surrogate_in_answer,
        2,
        ERR + r"{ws}/v2\.jsonl:1: answer holds \\ud800 at character 12, half of a UTF-16 pair \(a lone surrogate\), "
        r"which is not valid Unicode text; fix the writer's encoding \(EvalGate refuses it rather than change the "
        r"text\)",
        check=lambda ws: nothing_written(ws) or None,
    ),
    Case(
        "gold-lone-surrogate",
        "a gold question holding \\udc80",
        surrogate_in_gold,
        2,
        ERR + r"{ws}/gold\.jsonl:1: question holds \\udc80 at character 32, half of a UTF-16 pair .*",
        check=nothing_written,
    ),
    Case(
        "generator-lone-surrogate",
        "the server's answer holds \\ud800",
        lambda ws: ws.run(),
        2,
        ERR + r"the generator \(ollama qwen2\.5:7b\) returned an answer that is not valid Unicode: '\\ud800' at "
        r"character 12 is half of a UTF-16 pair \(a lone surrogate\)",
        server=lambda: ScriptedOllama(surrogate_answer),
        check=nothing_written,
    ),
    Case(
        "argument-not-utf8",
        "--out with a byte that is not UTF-8",
        non_utf8_argument,
        2,
        ERR + r"argument '{ws}/out-\\udcff' is not valid UTF-8 \(a name in another encoding\): EvalGate records "
        r"paths and names as UTF-8 JSON; rename it, or pass it in UTF-8",
    ),
    Case(
        "corpus-name-not-utf8",
        "a corpus file named in Latin-1 (caf\\xe9.md)",
        non_utf8_name,
        2,
        ERR + r"'{ws}/corpus/caf\\udce9\.md': the name is not valid UTF-8 \(bytes shown as \\udcXX\); rename it, or "
        r"move it out of the corpus",
    ),
    # ---------------------------------------------------------------- option values
    Case(
        "timeout-1e308",
        "--timeout 1e308",
        lambda ws: ws.run("--timeout", "1e308"),
        2,
        ERR + r"--timeout must be a number of seconds > 0 and at most 86,400 \(a day\), got '1e308'",
    ),
    Case(
        "retries-huge",
        "--retries 100000 (a backoff of 2^99999 s)",
        lambda ws: ws.run("--retries", "100000"),
        2,
        ERR + r"--retries must be a whole number from 0 to 100, got '100000'",
    ),
    Case(
        "jobs-huge",
        "--jobs 100000 (a thread each)",
        lambda ws: ws.run("--jobs", "100000"),
        2,
        ERR + r"--jobs must be at most 256, got 100,000",
    ),
    Case(
        "resamples-huge",
        "agreement --resamples 1000000000",
        lambda ws: ["agreement", "--results", str(ws.root), "--labels", str(ws.gold), "--resamples", "1000000000"],
        2,
        ERR + r"--resamples must be at most 1,000,000, got 1,000,000,000",
    ),
    Case(
        "gate-max-drop-percent",
        'max_drop = "5%"',
        thresholds('[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = "5%"\n'),
        2,
        ERR + r"{ws}/gate\.toml: rule 1 \(accuracy_answerable\) max_drop must be a number >= 0 and at most 1, a "
        r"fraction \(0\.05 = 5 points\) for this rate, got '5%'",
    ),
    Case(
        "gate-max-drop-negative",
        "max_drop = -0.05",
        thresholds('[[rule]]\nmetric = "mrr"\nmax_drop = -0.05\n'),
        2,
        ERR + r"{ws}/gate\.toml: rule 1 \(mrr\) max_drop must be a number >= 0 and at most 1, a fraction \(0\.05 = 5 "
        r"points\) for this score, got -0\.05",
    ),
    Case(
        "gate-max-increase-nan",
        "max_increase = nan",
        thresholds('[[rule]]\nmetric = "hallucination"\nmax_increase = nan\n'),
        2,
        ERR + r"{ws}/gate\.toml: rule 1 \(hallucination\) max_increase must be a number >= 0, a number of questions "
        r"for this count, got nan",
    ),
    Case(
        "gate-key-typo",
        "max_dorp = 0.05 (a typo must not be a rule without a bound)",
        thresholds('[[rule]]\nmetric = "accuracy_answerable"\nmax_dorp = 0.05\n'),
        2,
        ERR + r"{ws}/gate\.toml: unknown key 'max_dorp' in \[\[rule\]\] 1; did you mean 'max_drop'\?",
    ),
    Case(
        "gate-alpha-string",
        'alpha = "0.05"',
        thresholds('alpha = "0.05"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n'),
        2,
        ERR + r"{ws}/gate\.toml: alpha must be a number between 0 and 1 \(a p-value threshold\), got '0\.05'",
    ),
    Case(
        "gate-rule-not-a-table",
        'rule = "accuracy"',
        thresholds('rule = "accuracy"\n'),
        2,
        ERR + r"{ws}/gate\.toml: 'rule' must be \[\[rule\]\] tables, each with a metric and max_drop or max_increase",
    ),
    Case(
        "gate-thresholds-latin1",
        "a thresholds file saved in Latin-1",
        thresholds("", raw='# r\xe8gle\n[[rule]]\nmetric = "mrr"\nmax_drop = 0.05\n'.encode("latin-1")),
        2,
        ERR + r"{ws}/gate\.toml: not valid TOML \('utf-8' codec can't decode byte 0xe8 .*\)",
    ),
    # ---------------------------------------------------------------- standard output
    Case(
        "stdout-full",
        "score > /dev/full",
        stdout_of_score,
        2,
        ERR + r"cannot write to standard output \(No space left on device\): what the command prints was cut short",
        how="proc",
        sink="full",
        check=results_written,
    ),
    Case(
        "stdout-closed-pipe",
        "score | (a reader that already quit)",
        stdout_of_score,
        2,
        ERR + r"cannot write to standard output \(Broken pipe\): what the command prints was cut short",
        patch=stdout_refusing(errno.EPIPE),
        check=results_written,
    ),
    Case(
        "help-to-full-stdout",
        "evalgate --help into a full standard output",
        lambda ws: ["--help"],
        2,
        ERR + r"cannot write to standard output \(No space left on device\): what the command prints was cut short",
        patch=stdout_refusing(errno.ENOSPC),
    ),
    Case(
        "pythonioencoding-ascii",
        "gold check with PYTHONIOENCODING=ascii (its × has no ASCII form)",
        lambda ws: ws.gold_check(),
        0,
        r"  accept '3 seats': 2\\xd7 in plans-and-pricing-2026 \(first at {ws}/corpus/plans-and-pricing-2026\.md:16\); "
        r"0 other article\(s\)",
        how="proc",
        stdout=True,
        env=(("PYTHONIOENCODING", "ascii"),),
    ),
    # ---------------------------------------------------------------- the right cause
    Case(
        "one-paragraph-100kb",
        "a 100 KB one-paragraph .txt: cut by the markdown chunker, not 'cannot fit'",
        one_paragraph,
        0,
        r"model calls: 4 generations, \d+ embedding batches; cache hits: \d+; wall time .*",
        stdout=True,
        check=candidate_chunks_fit,
    ),
    Case(
        "corpus-is-a-file",
        "[shared] corpus names a file",
        corpus_is_a_file,
        2,
        ERR + r"corpus folder {ws}/corpus\.md is a file, not a folder: name the folder that holds the documents",
    ),
    Case(
        "ollama-host-v1",
        "OLLAMA_HOST=http://127.0.0.1:9/v1 (the OpenAI-compatible path)",
        without_hosts,
        2,
        ERR + r"invalid Ollama host 'http://127\.0\.0\.1:9/v1': it ends in /v1, the path of Ollama's OpenAI-compatible "
        r"API, which EvalGate does not use; EvalGate adds Ollama's own /api/\.\.\. paths to the server's root URL: use "
        r"http://127\.0\.0\.1:9",
        patch=environment(OLLAMA_HOST=DEAD_HOST + "/v1"),
    ),
    Case(
        "http-500",
        "every model request answered HTTP 500",
        lambda ws: ws.run("--retries", "0"),
        2,
        ERR + r"Ollama request to http://a\.test:11434/api/embed failed after 1 attempt: HTTP 500: injected failure "
        r"\(HTTP 500\)\. The server is up but failed with HTTP 500: its own log says why \(often a model that could "
        r"not be loaded, e\.g\. out of memory\); fix that and rerun",
        server=lambda: failing(500),
    ),
    Case(
        "http-503",
        "every model request answered HTTP 503",
        lambda ws: ws.run("--retries", "0"),
        2,
        ERR + r"Ollama request to http://a\.test:11434/api/embed failed after 1 attempt: HTTP 503: injected failure "
        r"\(HTTP 503\)\. The server is up but unavailable \(overloaded, or still loading the model\): wait and rerun, "
        r"lower --jobs, or raise --retries; its own log says more",
        server=lambda: failing(503),
    ),
    Case(
        "http-404-not-ollama",
        "a 404 page where Ollama's /api/show should be (a proxy's wrong prefix)",
        lambda ws: ws.run(),
        2,
        ERR + r"Ollama at http://a\.test:11434/api/show rejected the request with HTTP 404: 404 page not found; no "
        r"Ollama endpoint answered there: is http://a\.test:11434 the root URL of an Ollama server\?",
        server=lambda: ScriptedOllama(not_an_ollama_path),
    ),
)

campaign_summary, test_campaign_two = campaign_tests(CASES, SUMMARY)
