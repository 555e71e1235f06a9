"""Writing a run's results folder: every row, the summary, and the manifest.

Files written (all JSON with sorted keys, so a rerun with nothing changed is
byte-identical; the one exception is ``run_stats.json``, which holds timings
and cache counters and is *meant* to differ between a cold and a cached run):

* ``results.jsonl``: one row per (config, question), misses included;
* ``summary.json``: per-config metrics and deltas;
* ``manifest.json``: hashes of corpus, gold and configs, the fairness contract,
  model identities and digests, backend, package versions, ``limit``, and the SHA-256
  of ``results.jsonl`` and ``summary.json`` with the rows per config, so a reader can
  check the folder before trusting it (:mod:`evalgate_lib.run.folder`);
* ``signature.json``, only with a signing key (:mod:`evalgate_lib.signing`): the HMAC-SHA256 of
  ``manifest.json`` under the team's key, which the checksums alone cannot give (anyone can
  recompute a SHA-256);
* ``run_stats.json``: wall time, model calls, cache hits, corrupt entries; with a signing key it
  carries its own signature (:func:`evalgate_lib.signing.sign_json`: the report shows its figures),
  bound to this folder's ``manifest.json``, so a signed ``run_stats.json`` of another run is refused here.

The folder is written under its lock (:func:`evalgate_lib.folders.folder_lock`): a report reading
it waits for the write to end, and a write waits for a report reading it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.chunks.chunking import chunker_identity
from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write, sha256_file
from evalgate_lib.folders import folder_lock
from evalgate_lib.inputs.config import shared_settings
from evalgate_lib.inputs.corpus import corpus_digest
from evalgate_lib.inputs.structured import jsonl_lines, read_text
from evalgate_lib.judging.rows import SCHEMA_VERSION, ResultRow
from evalgate_lib.judging.scorers import judging_manifest
from evalgate_lib.run.manifest import Manifest, corpus_section, gold_section, manifest_digest, new_manifest
from evalgate_lib.run.outputs import check_output
from evalgate_lib.run.pipeline import Comparison, RunOptions, run_configs
from evalgate_lib.signing import ALGORITHM, key_id, sign, sign_json, signing_key
from evalgate_lib.statistics.metrics import Summary, compare, ranking_depths

#: The files a rerun with nothing changed reproduces byte for byte (``run_stats.json`` is not one).
PUBLISHED_FILES = ("results.jsonl", "summary.json", "manifest.json")
#: The signature of a folder written with a signing key (byte-identical on a rerun with the same key).
SIGNATURE_FILE = "signature.json"

#: The index of a folder holding several candidates against one baseline, one pair folder each
#: (:mod:`evalgate_lib.run.candidates`); a pair's folder never holds one.
INDEX_FILE = "candidates.json"
#: Every file a writer of results folders writes at the top of ``--out`` (what it must never write over an input).
WRITTEN_FILES = (*PUBLISHED_FILES, SIGNATURE_FILE, "run_stats.json", INDEX_FILE)


def build_manifest(comparison: Comparison, limit: int | None = None) -> Manifest:
    """Everything needed to tell whether two runs measured the same thing.

    ``limit`` is the run's ``--limit``: recorded only when it cut the gold set short, so a
    manifest's ``limit`` is ``None`` exactly when every gold question ran.
    """
    inputs = comparison.inputs
    configs = {}
    for config in (inputs.baseline, inputs.candidate):
        configs[config.name] = {
            "path": str(config.path),
            "sha256": config.sha256,
            "chunking": config.chunking,
            "prompt_sha256": hashlib.sha256(config.prompt_template.encode()).hexdigest(),
            "prompt_template": config.prompt_template,  # one of the two things compared: shown, not only hashed
            "chunks": comparison.chunk_counts.get(config.name),
        }
        custom = chunker_identity(config.chunking, (config.path.parent,))
        if custom is not None:  # a team's own chunker: its code's path and hash, so runs whose code differs say so
            configs[config.name]["chunker"] = custom
    cut = limit is not None and len(inputs.questions) < inputs.all_questions
    return new_manifest(
        baseline=inputs.baseline.name,
        candidate=inputs.candidate.name,
        configs=configs,
        fairness={
            "differs": sorted(inputs.differences),
            "shared": {k: v for k, v in shared_settings(inputs.baseline).items()},
        },
        corpus=corpus_section(
            str(inputs.baseline.corpus), corpus_digest(inputs.articles), len(inputs.articles), inputs.skipped
        ),
        gold=gold_section(
            inputs.baseline.gold, str(inputs.baseline.gold), inputs.all_questions, [q.id for q in inputs.questions]
        ),
        backend=comparison.backend,
        judging=judging_manifest(inputs.baseline.sentence_scorer, inputs.baseline.answer_matching, SCHEMA_VERSION),
        generation=inputs.baseline.generation.as_dict(),
        top_k=inputs.baseline.top_k,
        limit=limit if cut else None,
    )


def json_text(obj: Any) -> str:
    """A JSON file's text as every results file is written: sorted keys, indented, UTF-8 kept, one final newline."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def write_folder(
    rows: Sequence[ResultRow],
    summary: Summary,
    manifest: Manifest,
    stats: dict[str, Any],
    out_dir: str | Path,
) -> Path:
    """Write a results folder (rows, summary, manifest, run stats) and return its path.

    The one writer behind ``evalgate run`` and ``evalgate score``, so both folders read
    back the same way in the report, the gate and the notebooks. The manifest is written
    last, with the SHA-256 of the two files as written, the rows per config and its own
    SHA-256, so a reader can tell an intact folder from one changed after the run; with a
    signing key it is then signed (:func:`sign_folder`).
    """
    folder = Path(out_dir)
    with folder_lock(folder, write=True):
        _write_folder(rows, summary, manifest, stats, folder)
    return folder


def _write_folder(
    rows: Sequence[ResultRow], summary: Summary, manifest: Manifest, stats: dict[str, Any], folder: Path
) -> None:
    # a pair written where several candidates were: the old index must not describe this folder
    (folder / INDEX_FILE).unlink(missing_ok=True)
    lines = "".join(json.dumps(r.to_json(), sort_keys=True, ensure_ascii=False) + "\n" for r in rows)
    atomic_write(folder / "results.jsonl", lines)
    atomic_write(folder / "summary.json", json_text(summary.to_json()))
    per_config = Counter(r.config for r in rows)
    manifest = replace(
        manifest,
        files={
            "results.jsonl": {"sha256": sha256_file(folder / "results.jsonl"), "rows": len(rows)},
            "summary.json": {"sha256": sha256_file(folder / "summary.json")},
        },
        questions_per_config={name: per_config.get(name, 0) for name in (manifest.baseline, manifest.candidate)},
        manifest_sha256=None,
    )
    manifest = replace(manifest, manifest_sha256=manifest_digest(manifest.to_json()))
    atomic_write(folder / "manifest.json", json_text(manifest.to_json()))
    sign_folder(folder)
    bound = ("manifest.json", sha256_file(folder / "manifest.json"))  # this run's stats, not another's
    atomic_write(folder / "run_stats.json", json_text(sign_json(stats, bound_to=bound)))


def sign_folder(folder: Path) -> None:
    """Write ``signature.json`` (the HMAC of ``manifest.json``) with the team's key; without a key, remove a stale one.

    Signing the manifest signs the folder: it holds the SHA-256 of ``results.jsonl`` and
    ``summary.json``. A signature left from an earlier signed run into the same folder would
    not match the new manifest, so it goes.
    """
    key = signing_key()
    path = folder / SIGNATURE_FILE
    if key is None:
        if path.exists():
            path.unlink()
        return
    signature = {
        "algorithm": ALGORITHM,
        "key_id": key_id(key),
        "signed": "manifest.json",
        "signature": sign(key, (folder / "manifest.json").read_bytes()),
    }
    atomic_write(path, json_text(signature))


def write_results(comparison: Comparison, summary: Summary, out_dir: str | Path, limit: int | None = None) -> Path:
    """Write the results folder of an EvalGate-run comparison and return its path."""
    return write_folder(comparison.rows, summary, build_manifest(comparison, limit), comparison.stats, out_dir)


def run_and_write(
    baseline: str | Path, candidate: str | Path, options: RunOptions, out_dir: str | Path
) -> tuple[Comparison, Summary, Path]:
    """Run both configs, summarise, write the folder; returns all three.

    Internal: the one public way to run is :func:`evalgate_lib.run_comparison`, which calls this and
    loads the folder back, verified, for the command line, the notebooks, the benchmark and the tests alike.
    """
    check_output(out_dir, "the results folder", folder=True)  # writable before twenty minutes of generation
    comparison = run_configs(baseline, candidate, options)
    summary = summarise_comparison(comparison)
    return comparison, summary, write_results(comparison, summary, out_dir, options.limit)


def summarise_comparison(comparison: Comparison) -> Summary:
    """The summary of a run's rows, rank metrics at the depth the run ranked (``max(top_k, 10)``)."""
    names = (comparison.inputs.baseline.name, comparison.inputs.candidate.name)
    depths = ranking_depths(comparison.rows, names, comparison.inputs.baseline.top_k)
    return compare(comparison.rows, *names, depths=depths)


def has_results(folder: str | Path) -> bool:
    """True when ``folder`` holds every published file of a results folder (present, not yet verified)."""
    path = Path(folder)
    return all((path / name).is_file() for name in PUBLISHED_FILES)


def load_rows(folder: str | Path) -> list[ResultRow]:
    """Read ``results.jsonl`` back as typed rows, naming the line of any row that does not parse.

    Unverified: to load a results folder, use :func:`evalgate_lib.load_results`, which checks it first.
    """
    path = Path(folder) / "results.jsonl"
    rows = []
    for number, _, _, obj in jsonl_lines(read_text(path, "results file", "JSONL file"), path):
        try:
            rows.append(ResultRow.from_json(obj))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InputError(f"{path}:{number}: not a result row of this EvalGate version ({detail})") from None
    return rows


def format_model_calls(stats: Mapping[str, Any]) -> str:
    """The run's model calls, as ``evalgate run`` prints them and the report shows them (a second line
    names corrupt cache entries, when there were any).

    ``stats`` is ``run_stats.json`` (``model_calls`` and ``wall_seconds``).
    """
    calls = stats.get("model_calls") or {}
    line = (
        f"model calls: {calls.get('generate_calls', 0)} generations, {calls.get('embed_calls', 0)} embedding batches; "
        f"cache hits: {calls.get('hits', 0)}; wall time {float(stats.get('wall_seconds') or 0):.1f} s"
    )
    if calls.get("corrupt_entries"):
        line += f"\ncorrupt cache entries detected and recomputed: {calls['corrupt_entries']}"
    return line
