"""Reading a results folder back, verified before it is trusted.

The gate, ``diff``, the report and ``agreement`` all decide from a results folder; a folder
whose ``results.jsonl`` was emptied, truncated or edited after the run, or whose
``summary.json`` no longer matches its rows, must stop them with one line, not pass a
gate on stale deltas. :func:`read_results_folder` checks, in this order: the three published
files are present; ``manifest.json`` and ``summary.json`` parse; the manifest records
digests (an older schema without them is refused), and its own SHA-256 matches it; with a
signing key set, ``signature.json`` verifies under it (:mod:`evalgate_lib.signing`); the
SHA-256 of ``results.jsonl`` and ``summary.json`` match the manifest; the summary has every
key a reader needs and names the manifest's configs; the rows parse and their count, in all
and per config, is the manifest's; and every figure of the summary is the one its rows give
(:func:`evalgate_lib.statistics.gate.recompute_summary`). Each failure is an
:class:`~evalgate_lib.errors.InputError` naming the file, what differs, and the command that
writes a fresh folder.

The checksums find accidents (a truncated copy, a hand edit that forgot a file); whoever
means to forge can recompute them, so they cannot find forgery. Recomputing the summary from
the rows means a forger must at least edit rows and summary alike (then every reader, ``diff``
included, shows the same forged rows); only the signature tells a forged folder from the run's.

Internal: the public way to load a folder is :func:`evalgate_lib.load_results`, which calls this.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.files import sha256_file, special_file_kind
from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING, DEFAULT_SENTENCE_SCORER
from evalgate_lib.inputs.structured import read_json
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.run.manifest import Manifest, manifest_digest
from evalgate_lib.run.results import INDEX_FILE, PUBLISHED_FILES, SIGNATURE_FILE, load_rows
from evalgate_lib.signing import ALGORITHM, SIGNATURE_KEY, check_signed_json, key_id, signing_key, verifies
from evalgate_lib.statistics.gate import recompute_summary
from evalgate_lib.statistics.metrics import Summary, ranking_depths

#: The files whose SHA-256 the manifest records (the manifest itself holds the digests).
DIGESTED_FILES = ("results.jsonl", "summary.json")


@dataclass(frozen=True)
class ResultsFolder:
    """A results folder that passed every check: its rows, summary, manifest and (unchecked) run stats."""

    folder: Path
    rows: tuple[ResultRow, ...]
    summary: Summary
    manifest: Manifest
    run_stats: dict[str, Any]


def rerun_hint(folder: Path, manifest: Manifest | None) -> str:
    """The command that writes a fresh ``folder``: ``evalgate run``, or the ``evalgate score`` that made it.

    A pair folder of several candidates is written again by the command that wrote its family (the one
    its index records): run alone into the pair folder, a run would write a pair the index does not know.
    """
    family = _family_command(folder)
    if family is not None:
        return family
    if manifest is None or not manifest.is_external:
        return f"rerun 'evalgate run --out {folder}'" + ("" if manifest is not None else " (or 'evalgate score')")
    names = (manifest.baseline, manifest.candidate)
    logs = [str(manifest.configs.get(name, {}).get("path", f"{name}.jsonl")) for name in names]
    command = f"evalgate score {logs[0]} {logs[1]}"
    if not manifest.gold.get("from_answer_log"):  # else the gold came from the baseline log's rows
        command += f" --gold {manifest.gold.get('path')}"
    if manifest.corpus.get("path"):
        command += f" --corpus {manifest.corpus['path']}"
    if tuple(Path(log).stem for log in logs) != names:
        command += f" --names {manifest.baseline},{manifest.candidate}"
    if manifest.answer_matching != DEFAULT_ANSWER_MATCHING:
        command += f" --matching {manifest.answer_matching}"
    scorer = manifest.sentence_scorer.split("@")[0]
    if scorer != DEFAULT_SENTENCE_SCORER:
        command += f" --scorer {scorer}"
    return f"rerun '{command} --out {folder}'"


def _family_command(folder: Path) -> str | None:
    """The rerun of the family whose index lists ``folder`` as a pair, or ``None`` when no index does."""
    index = folder.resolve().parent / INDEX_FILE
    if not index.is_file():
        return None
    try:
        data = read_json(index, "index")
        listed = [entry.get("folder") for entry in data.get("candidates") or [] if isinstance(entry, dict)]
        command = data.get("command")
    except (InputError, AttributeError, TypeError):
        return None  # the index's own reader says what is wrong with it
    if folder.resolve().name not in listed:
        return None
    rerun = family_rerun(command, index.parent)
    return f"{folder} is one pair of the candidates in {index.parent} ({INDEX_FILE}): {rerun}"


def family_rerun(command: object, folder: Path) -> str:
    """The rerun of a several-candidates folder from the command its index records (with its ``--out``: an index
    written before it recorded one gets the folder's), or words naming the folder when it records none."""
    if not isinstance(command, str) or not command.strip():
        return f"rerun the command that wrote {folder}"
    return f"rerun '{command}'" if " --out " in command else f"rerun '{command} --out {folder}'"


def several_candidates_message(folder: Path) -> str:
    """Why a folder of several candidates is not one pair, and the pair folders to name instead."""
    try:
        entries = read_json(folder / INDEX_FILE, "index").get("candidates") or []
        pairs = [str(folder / str(entry["folder"])) for entry in entries]
    except (InputError, AttributeError, KeyError, TypeError):
        pairs = []  # the index's own reader says what is wrong with it
    listed = f"name one pair's folder ({', '.join(pairs)})" if pairs else "name one pair's folder inside it"
    return (
        f"{folder} holds several candidates against one baseline ({INDEX_FILE}), not one pair: {listed}; "
        f"'evalgate gate --results {folder}' and 'evalgate report --results {folder}' read them all"
    )


def _parse(path: Path, hint: str) -> dict[str, Any]:
    """A JSON object file, or one line saying why it is not one (bounded: :mod:`evalgate_lib.inputs.structured`)."""
    if path.is_dir():
        raise InputError(f"{path} is a folder, not the {path.name} file of a results folder; {hint}")
    try:
        data = read_json(path, "results file")
    except InputError as exc:
        raise InputError(f"{exc}; {hint}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON object (got {type(data).__name__}); {hint}")
    return data


def _check_digests(folder: Path, raw: dict[str, Any], manifest: Manifest, hint: str) -> None:
    recorded = manifest.files
    path = folder / "manifest.json"
    if recorded is None or manifest.questions_per_config is None:
        raise InputError(
            f"{path}: written by an older EvalGate (no SHA-256 of results.jsonl and summary.json to check them "
            f"against); {hint}"
        )
    if manifest.manifest_sha256 is None:
        raise InputError(f"{path}: written by an older EvalGate (no manifest_sha256 to check it against); {hint}")
    if manifest_digest(raw) != manifest.manifest_sha256:
        raise InputError(
            f"{path}: SHA-256 differs from its manifest_sha256 (the file was changed after the run); {hint}"
        )
    _check_signature(folder, hint)
    for name in DIGESTED_FILES:
        digest = (recorded.get(name) or {}).get("sha256")
        if not isinstance(digest, str):
            raise InputError(f"{folder / 'manifest.json'}: no SHA-256 of {name} under 'files'; {hint}")
        if sha256_file(folder / name) != digest:
            raise InputError(
                f"{folder / name}: SHA-256 differs from manifest.json (the file was changed after the run); {hint}"
            )


def _check_signature(folder: Path, hint: str) -> None:
    """With a signing key set, ``signature.json`` must be the key's HMAC of ``manifest.json``; else one line why not."""
    key = signing_key()
    if key is None:
        return
    path = folder / SIGNATURE_FILE
    if not path.is_file() and (path.exists() or path.is_symlink()):
        raise InputError(
            f"{path} is {_kind_of(path)}, not the signature file: a folder written with the key holds its signature "
            f"there as a file; {hint} with the key set"
        )
    if not path.is_file():
        raise InputError(
            f"{folder}: not signed (no {SIGNATURE_FILE}), but a signing key is set: a folder written without the "
            f"key, or whose signature was removed, is not trusted; {hint} with the key set"
        )
    signature = _parse(path, hint)
    if signature.get("algorithm") != ALGORITHM:
        raise InputError(f"{path}: algorithm {signature.get('algorithm')!r}, not {ALGORITHM}; {hint}")
    if signature.get("key_id") != key_id(key):
        raise InputError(
            f"{path}: signed with another key (key id {signature.get('key_id')!r}; the key set here has "
            f"{key_id(key)!r}); {hint} with this key, or set the key that signed it"
        )
    if not verifies(key, (folder / "manifest.json").read_bytes(), signature.get("signature")):
        raise InputError(
            f"{path}: the signature does not match manifest.json: the folder was changed after it was signed; {hint}"
        )


def _kind_of(path: Path) -> str:
    """What a path that is not a regular file is, in words ("a folder", "a dangling symbolic link", "a pipe …")."""
    if path.is_symlink() and not path.exists():
        return "a dangling symbolic link"
    return "a folder" if path.is_dir() else special_file_kind(path) or "not a regular file"


def signature_line(folder: str | Path) -> str:
    """What the signature of a folder that passed its reader says, for the gate's output (a pair, or several
    candidates: their index ``candidates.json`` signs the family)."""
    key = signing_key()
    if key is not None:
        return f"signature: verified ({ALGORITHM}, key id {key_id(key)})"
    path = Path(folder)
    signed = (path / SIGNATURE_FILE).is_file()
    if not signed and (path / INDEX_FILE).is_file():
        try:
            signed = SIGNATURE_KEY in read_json(path / INDEX_FILE, "index")
        except (InputError, TypeError):
            signed = False
    if signed:
        return "signature: present, not checked (no signing key set: EVALGATE_SIGNING_KEY or --key-file)"
    return "signature: none (checksums only: they find accidents, not forgery)"


def _check_rows(folder: Path, rows: list[ResultRow], manifest: Manifest, hint: str) -> None:
    path = folder / "results.jsonl"
    recorded = (manifest.files or {}).get("results.jsonl", {}).get("rows")
    if len(rows) != recorded:
        raise InputError(f"{path}: {len(rows)} rows, but manifest.json records {recorded}; {hint}")
    per_config = Counter(r.config for r in rows)
    for name, questions in (manifest.questions_per_config or {}).items():
        if per_config.get(name, 0) != questions:
            raise InputError(
                f"{path}: {per_config.get(name, 0)} rows of config {name!r}, but manifest.json records "
                f"{questions} questions per config; {hint}"
            )


def read_results_folder(folder: str | Path) -> ResultsFolder:
    """Load a results folder after checking it is the one its run wrote; one :class:`InputError` line if not."""
    path = Path(folder)
    if not path.is_dir():
        raise InputError(f"{path}: not a results folder (no such folder); run 'evalgate run --out {path}' first")
    if (path / INDEX_FILE).is_file() and not (path / "results.jsonl").exists():
        raise InputError(several_candidates_message(path))
    for name in PUBLISHED_FILES:
        if not (path / name).is_file() and ((path / name).exists() or (path / name).is_symlink()):
            raise InputError(
                f"{path / name} is {_kind_of(path / name)}, not the file a results folder holds; "
                f"{rerun_hint(path, None)}"
            )
        if not (path / name).is_file():
            raise InputError(
                f"{path / name} does not exist, so {path} is not a results folder; {rerun_hint(path, None)}"
            )
    raw = _parse(path / "manifest.json", rerun_hint(path, None))
    try:
        manifest = Manifest.from_json(raw)
    except InputError as exc:
        raise InputError(f"{path / 'manifest.json'}: {exc}; {rerun_hint(path, None)}") from None
    hint = rerun_hint(path, manifest)
    summary_data = _parse(path / "summary.json", hint)
    _check_digests(path, raw, manifest, hint)
    try:
        summary = Summary.from_json(summary_data, source=str(path / "summary.json"))
    except InputError as exc:
        raise InputError(f"{exc}; {hint}") from None
    if (summary.baseline, summary.candidate) != (manifest.baseline, manifest.candidate):
        raise InputError(
            f"{path / 'summary.json'}: compares {summary.candidate!r} with {summary.baseline!r}, but manifest.json "
            f"names {manifest.candidate!r} and {manifest.baseline!r}; {hint}"
        )
    try:
        rows = load_rows(path)
    except InputError as exc:
        raise InputError(f"{exc}; {hint}") from None
    _check_rows(path, rows, manifest, hint)
    try:
        depths = ranking_depths(rows, (manifest.baseline, manifest.candidate), manifest.top_k, manifest.is_external)
        summary = recompute_summary(rows, summary, str(path / "summary.json"), depths)
    except InputError as exc:
        raise InputError(f"{exc}; {hint}") from None
    stats = read_run_stats(path / "run_stats.json", ("manifest.json", sha256_file(path / "manifest.json")), hint)
    return ResultsFolder(path, tuple(rows), summary, manifest, stats)


def read_run_stats(stats_file: Path, bound_to: tuple[str, str], hint: str) -> dict[str, Any]:
    """A folder's ``run_stats.json`` (timings and model calls the report shows), or ``{}`` when there is none.

    With a signing key set it must be there, signed, and signed for this folder (``bound_to``: the file
    that names the folder and its SHA-256), so a signed ``run_stats.json`` of another run is refused.
    """
    if not stats_file.exists() and not stats_file.is_symlink():
        if signing_key() is not None:
            raise InputError(
                f"{stats_file} does not exist, but a signing key is set: a folder written with the key holds its run "
                f"stats, signed (the report shows their model calls); {hint}"
            )
        return {}
    stats = _parse(stats_file, hint)
    check_signed_json(stats, str(stats_file), hint, bound_to=bound_to)
    stats.pop(SIGNATURE_KEY, None)
    return stats
