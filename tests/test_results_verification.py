"""A results folder is verified before it is trusted: each tampering is one line and exit 2, never a PASS.

The folder is 3 questions per config (q1, q2 answerable, q3 no-answer), written by the one writer
(:func:`conftest.write_results_folder`): 6 rows. The baseline answers all 3 correctly, the candidate
gets q2 wrong, so with a 5-point max drop on accuracy on answerable the gate fails (delta -50 pts)
and with a 60-point one it passes. Every expected line is written out by hand.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import make_row, write_results_folder

from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.run.manifest import Manifest, manifest_digest
from evalgate_lib.statistics.metrics import Summary, compare

ROOT = Path(__file__).resolve().parents[1]
SHA_RESULTS = "results.jsonl: SHA-256 differs from manifest.json (the file was changed after the run)"
SHA_SUMMARY = "summary.json: SHA-256 differs from manifest.json (the file was changed after the run)"


def _rows() -> list:
    rows = []
    for config in ("baseline", "candidate"):
        rows.append(make_row(config=config, question_id="q1"))
        rows.append(make_row(config=config, question_id="q2", correct=config == "baseline"))
        rows.append(make_row(config=config, question_id="q3", type="no_answer"))
    return rows


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_results_folder(tmp_path / "res", _rows())


@pytest.fixture
def thresholds(tmp_path: Path) -> Path:
    path = tmp_path / "gate.toml"
    path.write_text('[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.6\n')
    return path


def _gate(capsys, folder: Path, thresholds: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["gate", "--results", str(folder), "--thresholds", str(thresholds), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _first_err(err: str) -> str:
    return err.splitlines()[0] if err else ""


def _rerun(folder: Path) -> str:
    return f"; rerun 'evalgate run --out {folder}'"


def _edit_manifest(folder: Path, change, redigest: bool = True) -> None:
    """Edit manifest.json; with ``redigest`` its own manifest_sha256 is recomputed too (anyone can: no key)."""
    path = folder / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    if redigest and "manifest_sha256" in data:
        data["manifest_sha256"] = manifest_digest(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _write_summary(folder: Path, text: str, redigest: bool) -> None:
    """Replace summary.json; with ``redigest`` the manifest records the new file's digest too (a bad writer)."""
    (folder / "summary.json").write_text(text, encoding="utf-8")
    if redigest:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        _edit_manifest(folder, lambda m: m["files"]["summary.json"].update(sha256=digest))


def test_an_intact_folder_is_judged_and_says_how_many_questions(capsys, folder, thresholds):
    code, out, err = _gate(capsys, folder, thresholds)
    # accuracy on answerable: baseline 2/2, candidate 1/2 -> delta -50 pts, within a 60-point max drop
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == ["gate (point mode): candidate vs baseline", "judged 3 questions per config"]
    assert out.splitlines()[-1] == "PASS: no regression beyond thresholds"


def test_the_manifest_records_digests_rows_and_limit(folder):
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    results_sha = hashlib.sha256((folder / "results.jsonl").read_bytes()).hexdigest()
    summary_sha = hashlib.sha256((folder / "summary.json").read_bytes()).hexdigest()
    assert manifest["files"] == {
        "results.jsonl": {"rows": 6, "sha256": results_sha},
        "summary.json": {"sha256": summary_sha},
    }
    assert manifest["questions_per_config"] == {"baseline": 3, "candidate": 3}
    assert manifest["limit"] is None
    assert Manifest.from_json(manifest).to_json() == manifest  # one to_json/from_json pair, round trip exact


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        ("emptied", SHA_RESULTS),
        ("truncated", SHA_RESULTS),
        ("one row edited", SHA_RESULTS),
        ("summary edited", SHA_SUMMARY),
        ("summary {}", SHA_SUMMARY),
    ],
)
def test_a_file_changed_after_the_run_is_refused(capsys, folder, thresholds, tamper, expected):
    results, summary = folder / "results.jsonl", folder / "summary.json"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    if tamper == "emptied":
        results.write_text("", encoding="utf-8")
    elif tamper == "truncated":
        results.write_text("".join(lines[:4]), encoding="utf-8")
    elif tamper == "one row edited":  # the candidate's wrong q2 made right: the gate would see no drop
        row = json.loads(lines[4])
        row["correct"] = True
        results.write_text("".join(lines[:4] + [json.dumps(row, sort_keys=True) + "\n"] + lines[5:]), encoding="utf-8")
    elif tamper == "summary edited":
        data = json.loads(summary.read_text(encoding="utf-8"))
        data["delta"]["accuracy_answerable"] = 0.0
        summary.write_text(json.dumps(data, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    else:
        summary.write_text("{}", encoding="utf-8")
    code, out, err = _gate(capsys, folder, thresholds)
    assert (code, out) == (2, "")
    assert _first_err(err) == f"evalgate: error: {folder}/{expected}{_rerun(folder)}"


def test_a_missing_manifest_is_refused(capsys, folder, thresholds):
    (folder / "manifest.json").unlink()
    code, _, err = _gate(capsys, folder, thresholds)
    assert code == 2
    assert _first_err(err) == (
        f"evalgate: error: {folder}/manifest.json does not exist, so {folder} is not a results folder"
        f"{_rerun(folder)} (or 'evalgate score')"
    )


def test_an_older_schema_without_digests_is_refused(capsys, folder, thresholds):
    def old(manifest: dict) -> None:
        for key in ("files", "questions_per_config", "limit"):
            del manifest[key]

    _edit_manifest(folder, old)
    code, _, err = _gate(capsys, folder, thresholds)
    assert code == 2
    assert _first_err(err) == (
        f"evalgate: error: {folder}/manifest.json: written by an older EvalGate (no SHA-256 of results.jsonl and "
        f"summary.json to check them against){_rerun(folder)}"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", "summary.json: missing key 'baseline'"),
        ("not json", "summary.json: not valid JSON (Expecting value, line 1 column 1)"),
        ("[]", "summary.json: not a JSON object (got list)"),
    ],
)
def test_a_broken_summary_is_one_line_and_exit_2(capsys, folder, thresholds, text, expected):
    _write_summary(folder, text, redigest=True)
    code, out, err = _gate(capsys, folder, thresholds)
    assert (code, out) == (2, "")
    assert _first_err(err) == f"evalgate: error: {folder}/{expected}{_rerun(folder)}"


def test_a_summary_missing_one_key_names_it(capsys, folder, thresholds):
    data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    del data["delta"]
    _write_summary(folder, json.dumps(data), redigest=True)
    code, _, err = _gate(capsys, folder, thresholds)
    assert code == 2
    assert _first_err(err) == f"evalgate: error: {folder}/summary.json: missing key 'delta'{_rerun(folder)}"


def test_a_row_count_other_than_the_manifests_is_refused(capsys, folder, thresholds):
    _edit_manifest(folder, lambda m: m["files"]["results.jsonl"].update(rows=7))
    code, _, err = _gate(capsys, folder, thresholds)
    assert code == 2
    assert _first_err(err) == (
        f"evalgate: error: {folder}/results.jsonl: 6 rows, but manifest.json records 7{_rerun(folder)}"
    )
    _edit_manifest(folder, lambda m: m["files"]["results.jsonl"].update(rows=6))
    _edit_manifest(folder, lambda m: m.update(questions_per_config={"baseline": 4, "candidate": 2}))
    code, _, err = _gate(capsys, folder, thresholds)
    assert code == 2
    assert _first_err(err) == (
        f"evalgate: error: {folder}/results.jsonl: 3 rows of config 'baseline', but manifest.json records "
        f"4 questions per config{_rerun(folder)}"
    )


def test_a_limited_run_is_refused_unless_allow_partial(capsys, tmp_path, thresholds):
    # 3 questions of a 10-question gold file, as `--limit 3` would leave
    folder = write_results_folder(tmp_path / "partial", _rows(), limit=3, questions_in_file=10)
    code, out, err = _gate(capsys, folder, thresholds)
    assert (code, out) == (2, "")
    assert _first_err(err) == (
        f"evalgate: error: {folder}: a partial run (--limit 3: 3 of 10 gold questions), which the gate does not "
        "judge; rerun without --limit, or pass --allow-partial to judge it anyway"
    )
    code, out, err = _gate(capsys, folder, thresholds, "--allow-partial")
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == (
        "judged 3 questions per config, a PARTIAL run (--limit: 3 of 10 gold questions), judged by --allow-partial"
    )
    strict = tmp_path / "strict.toml"
    strict.write_text('[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    code, out, _ = _gate(capsys, folder, strict, "--allow-partial")
    assert code == 1 and out.splitlines()[-1] == "FAIL: candidate regresses on accuracy_answerable"  # a real regression


def test_diff_report_and_agreement_refuse_the_same_folder(capsys, folder, tmp_path):
    (folder / "results.jsonl").write_text("", encoding="utf-8")
    expected = f"evalgate: error: {folder}/{SHA_RESULTS}{_rerun(folder)}"
    labels = tmp_path / "labels.jsonl"
    labels.write_text("", encoding="utf-8")
    commands = [
        ["diff", "--results", str(folder)],
        ["agreement", "--results", str(folder), "--labels", str(labels)],
        [
            "report", "--results", str(folder), "--out", str(tmp_path / "report"),
            "--thresholds", str(ROOT / "configs" / "gate.toml"), "--no-progress",
        ],
    ]  # fmt: skip
    for argv in commands:
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        assert (captured.out, _first_err(captured.err)) == ("", expected), argv
    assert not (tmp_path / "report" / "index.html").exists()


def test_a_scored_folder_is_verified_and_names_the_score_command(capsys, tmp_path):
    demo = ROOT / "labels" / "demo" / "nimbus-answers"
    out = tmp_path / "scored"
    argv = ["score", str(demo / "baseline.jsonl"), str(demo / "candidate.jsonl"), "--gold", str(ROOT / "gold" /
            "questions.jsonl"), "--corpus", str(ROOT / "corpus"), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"]["results.jsonl"]["rows"] == 202  # 101 gold questions, two logs
    assert manifest["questions_per_config"] == {"baseline": 101, "candidate": 101} and manifest["limit"] is None
    tampered = tmp_path / "tampered"
    shutil.copytree(out, tampered)
    lines = (tampered / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tampered / "results.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    assert main(["gate", "--results", str(tampered)]) == 2
    assert _first_err(capsys.readouterr().err) == (
        f"evalgate: error: {tampered}/{SHA_RESULTS}; rerun 'evalgate score {demo / 'baseline.jsonl'} "
        f"{demo / 'candidate.jsonl'} --gold {ROOT / 'gold' / 'questions.jsonl'} --corpus {ROOT / 'corpus'} "
        f"--out {tampered}'"
    )


def test_summary_round_trips_and_refuses_an_empty_object():
    summary = compare(_rows(), "baseline", "candidate")
    assert Summary.from_json(json.loads(json.dumps(summary.to_json()))) == summary
    assert summary.questions_per_config() == {"baseline": 3, "candidate": 3}
    assert summary.delta["accuracy_answerable"] == -0.5  # 1/2 - 2/2
    with pytest.raises(InputError, match=r"^x/summary.json: missing key 'baseline'$"):
        Summary.from_json({}, source="x/summary.json")


def test_one_fallback_rule_for_fields_an_older_manifest_lacks():
    manifest = Manifest.from_json({"judging": {"sentence_scorer": "span@2"}})
    # before answer_matching existed the only rule was the literal substring match
    assert (manifest.answer_matching, manifest.sentence_scorer) == ("raw", "span@2")
    assert Manifest.from_json({}).sentence_scorer == "lexical@1"
    assert (manifest.limit, manifest.files, manifest.is_external, manifest.backend_name) == (None, None, False, "")


def test_the_manifest_digest_is_of_its_canonical_json_without_itself() -> None:
    data = {"b": [1, 2], "a": "é", "manifest_sha256": "ignored"}
    canonical = '{"a":"é","b":[1,2]}'  # sorted keys, no spaces, UTF-8, its own field left out
    assert manifest_digest(data) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert manifest_digest({**data, "a": "e"}) != manifest_digest(data)


def test_a_manifest_edited_without_its_checksum_is_refused(capsys, folder, thresholds):
    _edit_manifest(folder, lambda m: m["backend"].update(generator="another-model:70b"), redigest=False)
    code, out, err = _gate(capsys, folder, thresholds)
    assert (code, out) == (2, "")
    assert _first_err(err) == (
        f"evalgate: error: {folder}/manifest.json: SHA-256 differs from its manifest_sha256 (the file was changed "
        f"after the run){_rerun(folder)}"
    )


def test_a_summary_that_is_not_its_rows_is_refused_naming_the_figure(capsys, folder, thresholds):
    # the candidate's q2 is wrong: accuracy on answerable 1/2 against the baseline's 2/2, a delta of -0.5
    data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    data["delta"]["accuracy_answerable"] = 0.0
    _write_summary(folder, json.dumps(data, sort_keys=True, indent=2) + "\n", redigest=True)
    code, out, err = _gate(capsys, folder, thresholds)
    assert (code, out) == (2, "")
    assert _first_err(err) == (
        f"evalgate: error: {folder}/summary.json: delta.accuracy_answerable is 0.0, but the rows give -0.5: the "
        f"summary does not match its rows (one of them was changed after the run){_rerun(folder)}"
    )


def test_the_gate_judges_what_the_rows_say(capsys, tmp_path, thresholds):
    """Rows and summary forged alike (the candidate's q1 made wrong too): the gate FAILs on the rows it reads."""
    from evalgate_lib.run.results import load_rows

    rows = _rows()
    folder = write_results_folder(tmp_path / "res", rows)
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[3])
    assert (row["config"], row["question_id"]) == ("candidate", "q1")
    row["judgement"]["correct"] = False
    lines[3] = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
    (folder / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    forged = compare(load_rows(folder), "baseline", "candidate").to_json()
    _write_summary(folder, json.dumps(forged, sort_keys=True, indent=2) + "\n", redigest=True)
    digest = hashlib.sha256((folder / "results.jsonl").read_bytes()).hexdigest()
    _edit_manifest(folder, lambda m: m["files"]["results.jsonl"].update(sha256=digest))
    code, out, _ = _gate(capsys, folder, thresholds)  # accuracy on answerable 0/2 against 2/2: -100 pts
    assert code == 1 and out.splitlines()[-1] == "FAIL: candidate regresses on accuracy_answerable"
    assert out.splitlines()[2] == "signature: none (checksums only: they find accidents, not forgery)"


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("files", "x", "an object of one object per file (sha256, rows)"),
        ("files", {"results.jsonl": "abc"}, "an object of one object per file (sha256, rows)"),
        ("questions_per_config", {"baseline": "2"}, "an object of whole numbers per config"),
        ("limit", True, "a whole number"),
        ("configs", [], "an object of one object per config"),
    ],
)
def test_a_manifest_field_of_the_wrong_kind_is_named(field: str, value: object, words: str) -> None:
    """A manifest edited with its own checksum recomputed ("files": "x") crashed the reader (issue 45)."""
    from evalgate_lib.errors import InputError

    with pytest.raises(InputError, match=rf"^'{field}' must be {re.escape(words)}, got "):
        Manifest.from_json({field: value})
