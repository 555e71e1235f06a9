"""The keyed signature (HMAC-SHA256) of results folders and cache entries, and where the key comes from.

The HMAC itself is checked against RFC 4231's first test vector; the rest is what a signature is
for: a folder or entry that verifies under the key, one forged with its checksums recomputed that
does not, and every way a key can be missing or unusable, each one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_row, write_results_folder

from evalgate_lib.errors import InputError
from evalgate_lib.generation.store import EntryStore, entry_key
from evalgate_lib.run.folder import read_results_folder, signature_line
from evalgate_lib.run.manifest import manifest_digest
from evalgate_lib.signing import KEY_ENV, KEY_FILE_ENV, key_id, sign, signing_key, verifies

KEY = b"0123456789abcdef0123456789abcdef"


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts without a key in the environment, whatever the caller's shell holds."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)


def test_the_hmac_is_rfc_4231_test_case_1() -> None:
    key, data = b"\x0b" * 20, b"Hi There"
    expected = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    assert sign(key, data) == expected
    assert verifies(key, data, expected)
    assert not verifies(key, data + b"!", expected)
    assert not verifies(key, data, None)  # a signature that is not a string never verifies


def test_the_key_id_names_a_key_without_revealing_it() -> None:
    assert key_id(KEY) == sign(KEY, b"evalgate signing key id")[:16]
    assert key_id(KEY) != key_id(KEY[::-1])
    assert KEY.hex()[:16] not in key_id(KEY)


def test_the_key_comes_from_the_environment_or_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert signing_key() is None
    monkeypatch.setenv(KEY_ENV, f"  {KEY.decode()}\n")
    assert signing_key() == KEY  # surrounding whitespace is not part of the key
    path = tmp_path / "team.key"
    path.write_bytes(KEY + b"\n")
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    assert signing_key() == KEY


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("both", f"both {KEY_FILE_ENV} and {KEY_ENV} are set: set one, so it is clear which key signs"),
        ("short", f"{KEY_ENV} holds a key of 5 bytes; a signing key needs at least 16 (make one with "
         "'openssl rand -hex 32')"),
        ("missing", "signing key file {tmp}/none.key does not exist"),
        ("folder", "signing key file {tmp} is a directory, not a file"),
        ("empty", "signing key file {tmp}/empty.key holds a key of 0 bytes; a signing key needs at least 16 (make "
         "one with 'openssl rand -hex 32')"),
    ],
)  # fmt: skip
def test_an_unusable_key_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str, message: str) -> None:
    (tmp_path / "empty.key").write_text("\n")
    values = {
        "both": {KEY_ENV: KEY.decode(), KEY_FILE_ENV: str(tmp_path / "empty.key")},
        "short": {KEY_ENV: "short"},
        "missing": {KEY_FILE_ENV: str(tmp_path / "none.key")},
        "folder": {KEY_FILE_ENV: str(tmp_path)},
        "empty": {KEY_FILE_ENV: str(tmp_path / "empty.key")},
    }[setup]
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(InputError) as error:
        signing_key()
    assert str(error.value) == message.format(tmp=tmp_path)


# ------------------------------------------------------------------ results folders


def _folder(tmp_path: Path) -> Path:
    rows = [make_row(config=c, question_id=q) for c in ("baseline", "candidate") for q in ("q1", "q2")]
    return write_results_folder(tmp_path / "res", rows)


def test_a_folder_written_with_a_key_is_signed_and_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    folder = _folder(tmp_path)
    signature = json.loads((folder / "signature.json").read_text())
    assert signature == {
        "algorithm": "HMAC-SHA256",
        "key_id": key_id(KEY),
        "signature": sign(KEY, (folder / "manifest.json").read_bytes()),
        "signed": "manifest.json",
    }
    assert read_results_folder(folder).rows  # verifies
    assert signature_line(folder) == f"signature: verified (HMAC-SHA256, key id {key_id(KEY)})"
    monkeypatch.delenv(KEY_ENV)
    assert read_results_folder(folder).rows  # without the key it is read, and the gate says it was not checked
    assert signature_line(folder) == (
        "signature: present, not checked (no signing key set: EVALGATE_SIGNING_KEY or --key-file)"
    )


def test_a_forged_manifest_with_every_checksum_recomputed_fails_the_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    folder = _folder(tmp_path)
    path = folder / "manifest.json"
    data = json.loads(path.read_text())
    data["backend"]["generator"] = "another-model:70b"
    data["manifest_sha256"] = manifest_digest(data)  # the forger's best: the plain checksum matches again
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"signature\.json: the signature does not match manifest\.json"):
        read_results_folder(folder)
    monkeypatch.delenv(KEY_ENV)
    assert read_results_folder(folder).manifest.backend["generator"] == "another-model:70b"  # what a key is for


def test_a_rewrite_without_a_key_removes_a_stale_signature(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    folder = _folder(tmp_path)
    monkeypatch.delenv(KEY_ENV)
    _folder(tmp_path)  # the same folder again, without the key
    assert not (folder / "signature.json").exists()
    assert signature_line(folder) == "signature: none (checksums only: they find accidents, not forgery)"


# ------------------------------------------------------------------ cache entries

INPUTS = {"kind": "generate", "identity": {"backend": "fake"}, "options": {}, "prompt": "How many seats?"}


def test_a_signed_entry_verifies_and_a_forged_one_does_not(tmp_path: Path) -> None:
    from evalgate_lib.generation.store import CorruptEntry, sha256_text

    store = EntryStore(tmp_path, KEY)
    key = entry_key(INPUTS)
    store.write_text(key, INPUTS, "Three seats.")
    record = json.loads(store.record_path("generate", key).read_text())
    assert record["key_id"] == key_id(KEY) and len(record["signature"]) == 64
    assert store.read_text(key, INPUTS) == "Three seats."
    assert EntryStore(tmp_path).read_text(key, INPUTS) == "Three seats."  # no key: the signature is not needed
    record.update(text="Thirty seats.", text_sha256=sha256_text("Thirty seats."))
    store.record_path("generate", key).write_text(json.dumps(record))
    assert EntryStore(tmp_path).read_text(key, INPUTS) == "Thirty seats."  # a checksum cannot tell
    with pytest.raises(CorruptEntry, match=r"its signature does not match it \(changed after it was written\)"):
        store.read_text(key, INPUTS)
    with pytest.raises(CorruptEntry, match="signed with another key than the one set"):
        EntryStore(tmp_path, KEY[::-1]).read_text(key, INPUTS)


def test_an_unsigned_entry_is_refused_when_a_key_is_set(tmp_path: Path) -> None:
    from evalgate_lib.generation.store import CorruptEntry

    key = entry_key(INPUTS)
    EntryStore(tmp_path).write_text(key, INPUTS, "Three seats.")
    with pytest.raises(CorruptEntry, match=r"not signed, and a signing key is set"):
        EntryStore(tmp_path, KEY).read_text(key, INPUTS)


# ------------------------------------------------------------------ files that carry their own signature (issue 45)


def test_a_json_object_signs_its_canonical_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HMAC covers the object, less its signature, as compact sorted JSON: re-indenting keeps it, edits break it."""
    import hashlib
    import hmac

    from evalgate_lib.signing import check_signed_json, sign_json, signature_problem

    value = {"b": [1, 2], "a": "é"}
    signed = sign_json(value, KEY)
    canonical = '{"a":"é","b":[1,2]}'.encode()  # written out by hand
    assert signed["signature"] == {
        "algorithm": "HMAC-SHA256",
        "key_id": key_id(KEY),
        "hmac": hmac.new(KEY, canonical, hashlib.sha256).hexdigest(),
    }
    assert signature_problem(json.loads(json.dumps(signed, indent=3)), KEY) is None
    assert signature_problem({**signed, "b": [1, 3]}, KEY) == (
        "its signature does not match it: it was changed after it was signed"
    )
    assert signature_problem(value, KEY) == (
        "not signed, but a signing key is set (written without the key, or its signature was removed)"
    )
    assert signature_problem(sign_json(value, KEY[::-1]), KEY).startswith("signed with another key (key id ")
    assert sign_json(value) == value  # no key set: nothing is added
    check_signed_json(value, "x.json")  # ... and nothing is checked
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    with pytest.raises(InputError, match=r"^x\.json: not signed, but a signing key is set .*; rerun it$"):
        check_signed_json(value, "x.json", "rerun it")


@pytest.mark.parametrize("name", [KEY_FILE_ENV, KEY_ENV])
def test_a_signing_variable_set_but_empty_is_an_error(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """EVALGATE_SIGNING_KEY_FILE= used to mean "no key": every check off, without a word (issue 45)."""
    monkeypatch.setenv(name, " ")
    with pytest.raises(InputError, match=rf"^{name} is set but empty: a signing variable that is set must hold the"):
        signing_key()


def test_a_key_file_that_is_a_device_or_a_pipe_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setenv(KEY_FILE_ENV, "/dev/null")
    with pytest.raises(InputError, match=r"^signing key file /dev/null is a character device \(as /dev/null is\), not"):
        signing_key()
    os.mkfifo(tmp_path / "key")
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "key"))
    with pytest.raises(InputError, match=r"is a pipe \(a FIFO, or what <\(cat FILE\) passes\), not a regular file .*"
                       r"which a pipe cannot give twice"):  # fmt: skip
        signing_key()


def test_a_family_index_and_run_stats_are_signed_and_an_edit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalgate_lib.run.candidates import read_candidates_folder, write_index

    monkeypatch.setenv(KEY_ENV, KEY.decode())
    folder = tmp_path / "family"
    for name in ("one", "two"):
        rows = [make_row(config=c, question_id=q) for c in ("baseline", name) for q in ("q1", "q2")]
        write_results_folder(folder / name, rows, baseline="baseline", candidate=name)
    write_index(folder, "baseline", [("one", "one", "one.toml"), ("two", "two", "two.toml")], {"wall": 1}, "cmd")
    assert read_candidates_folder(folder).run_stats == {"wall": 1}  # verified, its signature not handed on
    assert signature_line(folder) == f"signature: verified (HMAC-SHA256, key id {key_id(KEY)})"
    index = json.loads((folder / "candidates.json").read_text())
    index["candidates"] = index["candidates"][1:]  # keep only "two"
    (folder / "candidates.json").write_text(json.dumps(index))
    with pytest.raises(InputError, match=r"candidates\.json: its signature does not match it: it was changed after"):
        read_candidates_folder(folder)
    monkeypatch.delenv(KEY_ENV)
    assert signature_line(folder).startswith("signature: present, not checked")


def test_evalgate_sign_vouches_for_labels_and_a_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command line: without a key it refuses; with one it signs a label file and a plan in place."""
    from evalgate_lib.cli import main
    from evalgate_lib.inputs.labels import Label, dumps_labels, load_label_files
    from evalgate_lib.statistics.sampling_plan import load_plan

    folder = _folder(tmp_path)
    assert main(["sample", "--results", str(folder), "--budget", "2", "--seed", "1"]) == 0
    plan = folder / "label-plan.json"
    _, digest = load_plan(plan)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(dumps_labels([Label("candidate", "q1", "a" * 64, True, False, "ann")]))
    capsys.readouterr()
    assert main(["sign", str(labels)]) == 2
    assert capsys.readouterr().err == (
        "evalgate: error: evalgate sign needs the team's signing key: --key-file FILE or EVALGATE_SIGNING_KEY\n"
    )
    keys = tmp_path / "team.key"
    keys.write_bytes(KEY + b"\n")
    assert main(["--key-file", str(keys), "sign", str(labels), str(plan)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"signed 1 label(s) in {labels} (key id {key_id(KEY)})",
        f"signed plan {plan} (key id {key_id(KEY)}); its SHA-256 stays {digest}",
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, KEY.decode())
        assert [lb.reviewer for lb in load_label_files([labels]).labels] == ["ann"]
        assert load_plan(plan)[1] == digest


def test_a_bound_signature_covers_the_folder_it_belongs_to() -> None:
    """A file signed bound to its folder (issue 56): the HMAC covers the object and the folder's identity, written out
    by hand; the same file read in another folder, or signed before the binding, is refused with that reason."""
    import hashlib
    import hmac

    from evalgate_lib.signing import json_digest, sign_json, signature_problem

    value = {"wall_seconds": 1.5}
    here, there = ("manifest.json", "a" * 64), ("manifest.json", "b" * 64)
    signed = sign_json(value, KEY, bound_to=here)
    covered = ('{"wall_seconds":1.5}' + "\nbound to manifest.json " + "a" * 64).encode()
    assert signed["signature"] == {
        "algorithm": "HMAC-SHA256",
        "key_id": key_id(KEY),
        "hmac": hmac.new(KEY, covered, hashlib.sha256).hexdigest(),
        "bound_to": {"file": "manifest.json", "sha256": "a" * 64},
    }
    assert signature_problem(signed, KEY, here) is None
    assert signature_problem(signed, KEY, there) == (
        f"signed for another folder: it belongs with the manifest.json of SHA-256 {'a' * 12}…, and this folder's has "
        f"{'b' * 12}… (a file moved or copied from another run)"
    )
    assert signature_problem({**signed, "wall_seconds": 9}, KEY, here) == (
        "its signature does not match it: it was changed after it was signed"
    )
    forged = {**signed, "signature": {**signed["signature"], "bound_to": {"file": "manifest.json", "sha256": "b" * 64}}}
    assert signature_problem(forged, KEY, there) == (  # naming this folder in the signature does not make it verify
        "its signature does not match it: it was changed after it was signed"
    )
    assert signature_problem(sign_json(value, KEY), KEY, here) == (
        "signed without the identity of the folder it belongs to (by an EvalGate before signatures covered the "
        "folder's manifest.json), so a copy from another run would pass as this one's; it is not trusted"
    )
    # a family's identity: its index's canonical text, however indented and whatever its own signature
    index = {"baseline": "b", "candidates": [{"name": "c"}]}
    expected = hashlib.sha256(b'{"baseline":"b","candidates":[{"name":"c"}]}').hexdigest()
    assert json_digest(index) == json_digest(sign_json(index, KEY)) == expected


def test_run_stats_moved_from_another_run_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair folder's run_stats.json is bound to its manifest, a family's to its index: moved, they are refused."""
    import shutil

    from evalgate_lib.run.candidates import read_candidates_folder, write_index

    monkeypatch.setenv(KEY_ENV, KEY.decode())
    for name in ("one", "two"):
        rows = [make_row(config=c, question_id=q) for c in ("baseline", name) for q in ("q1", "q2")]
        write_results_folder(tmp_path / "family" / name, rows, baseline="baseline", candidate=name)
    shutil.copy(tmp_path / "family" / "two" / "run_stats.json", tmp_path / "family" / "one" / "run_stats.json")
    with pytest.raises(InputError, match=r"one/run_stats\.json: signed for another folder: it belongs with the "):
        read_results_folder(tmp_path / "family" / "one")
    rows = [make_row(config=c, question_id=q) for c in ("baseline", "one") for q in ("q1", "q2")]
    write_results_folder(tmp_path / "family" / "one", rows, baseline="baseline", candidate="one")
    write_index(tmp_path / "family", "baseline", [("one", "one", "1"), ("two", "two", "2")], {"wall": 1}, "cmd")
    shutil.copytree(tmp_path / "family", tmp_path / "other")
    write_index(tmp_path / "other", "baseline", [("one", "one", "1")], {"wall": 2}, "cmd")  # one candidate less
    shutil.copy(tmp_path / "other" / "candidates.json", tmp_path / "family" / "candidates.json")
    with pytest.raises(InputError, match=r"family/run_stats\.json: signed for another folder: it belongs with the "
                       r"candidates\.json of SHA-256 "):  # fmt: skip
        read_candidates_folder(tmp_path / "family")
    (tmp_path / "other" / "run_stats.json").unlink()
    with pytest.raises(InputError, match=r"other/run_stats\.json does not exist, but a signing key is set"):
        read_candidates_folder(tmp_path / "other")
