"""Several candidates against one baseline: one complete pair folder per candidate, and an index.

Layout of ``--out`` when ``evalgate run`` (or ``evalgate score``) is given two or more candidates::

    results/latest/
      candidates.json         the index: the baseline, each candidate, its folder, its manifest's SHA-256
      run_stats.json          the whole run's model calls (the baseline generated once)
      candidate/              a complete results folder of the pair (baseline, candidate):
        results.jsonl           byte-identical to what `evalgate run --candidate` of that one pair writes
        summary.json
        manifest.json
        run_stats.json          the whole run's, as above
      starved-context/
        ...

Each pair folder is exactly what a two-config run of that pair writes, so every reader of a
results folder (``load_results``, ``diff``, ``agreement``, the notebooks, the explorer) reads it
unchanged. The index ties the pairs into one family: the gate and the report adjust each yes/no
metric's p-value for the number of candidates (Holm), which they can do only when they know the
family. The index records each pair's ``manifest.json`` SHA-256, and a manifest records the digests
of its pair's files, so a pair changed, replaced or rerun alone after the run is refused, naming it.

A candidate's folder is its config name (characters other than letters, digits, ``.``, ``_`` and
``-`` become ``_``). One candidate keeps today's layout: one pair folder, no index.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write, sha256_file
from evalgate_lib.folders import folder_lock
from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING, DEFAULT_SENTENCE_SCORER
from evalgate_lib.inputs.structured import read_json
from evalgate_lib.run.external import ExternalRun, score_and_write, score_answer_logs
from evalgate_lib.run.folder import ResultsFolder, family_rerun, read_results_folder, read_run_stats
from evalgate_lib.run.outputs import check_output
from evalgate_lib.run.pipeline import RunOptions, run_candidates
from evalgate_lib.run.results import (
    INDEX_FILE,
    PUBLISHED_FILES,
    SIGNATURE_FILE,
    json_text,
    summarise_comparison,
    write_results,
)
from evalgate_lib.signing import check_signed_json, json_digest, sign_json
from evalgate_lib.statistics.metrics import Summary

#: The version of ``candidates.json``'s layout.
INDEX_SCHEMA = 1
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class CandidatesFolder:
    """A several-candidates folder that passed every check: each pair, verified, in the index's order."""

    folder: Path
    baseline: str
    pairs: tuple[ResultsFolder, ...]
    run_stats: dict[str, Any]

    @property
    def names(self) -> list[str]:
        return [p.manifest.candidate for p in self.pairs]


def pair_folder_names(names: Sequence[str]) -> list[str]:
    """The folder of each candidate's pair: its name with unsafe characters replaced; distinct, or an error."""
    folders = []
    for name in names:
        folder = re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip(".") or "candidate"
        if folder in (INDEX_FILE, "run_stats.json") or folder in folders:
            raise InputError(
                f"candidate {name!r} would be written to the folder {folder!r}, which "
                + ("another candidate uses" if folder in folders else "the index uses")
                + ": give the candidates names that differ in letters or digits"
            )
        folders.append(folder)
    return folders


def write_index(
    out_dir: str | Path,
    baseline: str,
    pairs: Sequence[tuple[str, str, str]],
    stats: dict[str, Any],
    command: str,
) -> Path:
    """Write ``candidates.json`` (and the run's ``run_stats.json``) over pair folders already written.

    ``pairs`` are (candidate name, its folder under ``out_dir``, its config or answer-log path);
    ``command`` is the command that writes the folder again, for the messages that refuse it.
    The index is written last, so a run that stopped half-way leaves no index that names it.
    """
    folder = Path(out_dir)
    index = {
        "schema": INDEX_SCHEMA,
        "baseline": baseline,
        "candidates": [
            {
                "name": name,
                "folder": sub,
                "source": source,
                "manifest_sha256": sha256_file(folder / sub / "manifest.json"),
            }
            for name, sub, source in pairs
        ],
        "adjustment": "holm: each yes/no metric's McNemar p across the candidates",
        "command": command,
    }
    # with a key: the index signs the family, and the run's stats are bound to it (never another family's)
    atomic_write(folder / "run_stats.json", json_text(sign_json(stats, bound_to=(INDEX_FILE, json_digest(index)))))
    atomic_write(folder / INDEX_FILE, json_text(sign_json(index)))
    return folder


def clear_pair_files(out_dir: str | Path) -> None:
    """Remove the files of one pair left at the top of ``out_dir`` by an earlier two-config run.

    A folder holds one pair or an index of several, never both, so no reader has to choose.
    """
    for name in (*PUBLISHED_FILES, SIGNATURE_FILE, "run_stats.json"):
        (Path(out_dir) / name).unlink(missing_ok=True)


def run_command(baseline: str | Path, candidates: Sequence[str | Path], out_dir: str | Path) -> str:
    """The ``evalgate run`` that writes this several-candidates folder."""
    given = " ".join(f"--candidate {c}" for c in candidates)
    return f"evalgate run --baseline {baseline} {given} --out {out_dir}"


def run_and_write_candidates(
    baseline: str | Path, candidates: Sequence[str | Path], options: RunOptions, out_dir: str | Path
) -> Path:
    """Run the baseline once and every candidate, write one pair folder each and the index; returns ``out_dir``.

    Internal: the public door is :func:`evalgate_lib.run_candidates`, which loads the folder back, verified.
    """
    check_output(out_dir, "the results folder", folder=True)  # writable before the generation, not after
    comparisons = run_candidates(baseline, candidates, options)
    names = [c.inputs.candidate.name for c in comparisons]
    folders = pair_folder_names(names)
    out = Path(out_dir)
    with folder_lock(out, write=True):  # the family as one write: a report reading it waits for the index
        clear_pair_files(out)
        for comparison, sub in zip(comparisons, folders, strict=True):
            summary = summarise_comparison(comparison)
            write_results(comparison, summary, out / sub, options.limit)
        sources = [str(c.inputs.candidate.path) for c in comparisons]
        write_index(
            out,
            comparisons[0].inputs.baseline.name,
            list(zip(names, folders, sources, strict=True)),
            comparisons[0].stats,
            run_command(baseline, candidates, out_dir),
        )
    return out


def score_and_write_candidates(
    baseline_log: str | Path,
    candidate_logs: Sequence[str | Path],
    gold: str | Path | None,
    out_dir: str | Path,
    *,
    names: Sequence[str] | None = None,
    corpus: str | Path | None = None,
    matching: str = DEFAULT_ANSWER_MATCHING,
    scorer: str = DEFAULT_SENTENCE_SCORER,
    declined_references: str = "no-answer",
) -> list[tuple[ExternalRun, Summary, Path]]:
    """``evalgate score`` with several candidate logs: each paired with the baseline log, one pair folder each.

    ``names`` are the baseline's then each candidate's (default: the logs' file stems). Each pair
    folder is what ``evalgate score BASELINE CANDIDATE`` writes; then the index. ``gold`` ``None``:
    the gold the baseline log's RAGAS / Hugging Face rows carry.
    """
    logs = [Path(baseline_log), *map(Path, candidate_logs)]
    given = names is not None
    names = list(names) if names is not None else [log.stem for log in logs]
    if len(names) != len(logs):
        raise InputError(f"--names gives {len(names)} names for {len(logs)} answer logs: name each log once")
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        found = [str(log) for log, name in zip(logs, names, strict=True) if name == twice]
        if given:
            raise InputError(
                f"--names gives {twice!r} to {len(found)} answer logs ({', '.join(found)}): each log needs a name of "
                "its own (names are the configs the gate and the report compare)"
            )
        raise InputError(
            f"answer logs {', '.join(found)} would have the same name {twice!r} (a log is named by its file's stem): "
            f"name each log with --names, e.g. --names {','.join(f'{n}{i}' for i, n in enumerate(names))}"
        )
    folders = pair_folder_names(names[1:])
    out = Path(out_dir)
    with folder_lock(out, write=True):  # the family as one write: a report reading it waits for the index
        return _score_family(
            logs,
            names,
            folders,
            gold,
            out,
            corpus=corpus,
            matching=matching,
            scorer=scorer,
            declined_references=declined_references,
        )


def _score_family(
    logs: Sequence[Path],
    names: Sequence[str],
    folders: Sequence[str],
    gold: str | Path | None,
    out: Path,
    **judging: Any,
) -> list[tuple[ExternalRun, Summary, Path]]:
    clear_pair_files(out)
    written = []
    for name, log, sub in zip(names[1:], logs[1:], folders, strict=True):
        run = score_answer_logs(logs[0], log, gold, names=(names[0], name), **judging)
        summary, folder = score_and_write(run, out / sub)
        written.append((run, summary, folder))
    stats = {
        "wall_seconds": round(sum(run.stats["wall_seconds"] for run, _, _ in written), 3),
        "answers_scored": sum(run.stats["answers_scored"] for run, _, _ in written),
        "model_calls": written[0][0].stats["model_calls"],
        "candidates": names[1:],
    }
    command = f"evalgate score {' '.join(map(str, logs))}" + (f" --gold {gold}" if gold is not None else "")
    command += f" --corpus {judging['corpus']}" if judging.get("corpus") else ""
    if list(names) != [log.stem for log in logs]:
        command += f" --names {','.join(names)}"
    if judging.get("matching", DEFAULT_ANSWER_MATCHING) != DEFAULT_ANSWER_MATCHING:
        command += f" --matching {judging['matching']}"
    if judging.get("scorer", DEFAULT_SENTENCE_SCORER) != DEFAULT_SENTENCE_SCORER:
        command += f" --scorer {judging['scorer']}"
    if judging.get("declined_references", "no-answer") != "no-answer":
        command += f" --declined-references {judging['declined_references']}"
    command += f" --out {out}"  # the command that writes this folder again, as 'evalgate run''s records its --out
    write_index(out, names[0], list(zip(names[1:], folders, map(str, logs[1:]), strict=True)), stats, command)
    return written


def _index(folder: Path) -> dict[str, Any]:
    path = folder / INDEX_FILE
    try:
        data = read_json(path, "index")
    except InputError as exc:
        raise InputError(f"{exc}; rerun the command that wrote {folder}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON object; rerun the command that wrote {folder}")
    hint = family_rerun(data.get("command"), folder)
    check_signed_json(data, str(path), hint)  # with a key: which pairs make the family is the signer's word
    if data.get("schema") != INDEX_SCHEMA:
        raise InputError(f"{path}: index schema {data.get('schema')!r}, this EvalGate reads {INDEX_SCHEMA}; {hint}")
    entries = data.get("candidates")
    if not isinstance(data.get("baseline"), str) or not isinstance(entries, list) or not entries:
        raise InputError(f"{path}: needs 'baseline' (a name) and 'candidates' (a non-empty list); {hint}")
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("name", "folder")):
            raise InputError(f"{path}: candidate {i} needs 'name' and 'folder' strings; {hint}")
        if Path(entry["folder"]).name != entry["folder"] or entry["folder"] in ("", ".", ".."):
            raise InputError(f"{path}: candidate {i}'s folder {entry['folder']!r} is not a folder name; {hint}")
        for key in ("name", "folder"):
            if (key, entry[key]) in seen:
                first = seen[(key, entry[key])]
                raise InputError(
                    f"{path}: candidates {first} and {i} have the same {key} {entry[key]!r}: each candidate is "
                    f"listed once, in its own folder; {hint}"
                )
            seen[(key, entry[key])] = i
    return dict(data, hint=hint, raw=data)


def is_candidates_folder(folder: str | Path) -> bool:
    """True when ``folder`` holds an index of several candidates (present, not yet verified)."""
    return (Path(folder) / INDEX_FILE).is_file()


def family_of(pair_folder: str | Path) -> Path | None:
    """The several-candidates folder that lists ``pair_folder`` as one of its pairs, else ``None`` (unverified)."""
    path = Path(pair_folder).resolve()
    parent = path.parent
    if not is_candidates_folder(parent):
        return None
    try:
        entries = read_json(parent / INDEX_FILE, "index").get("candidates") or []
        listed = {entry.get("folder") for entry in entries if isinstance(entry, dict)}
    except (InputError, AttributeError, TypeError):
        return parent  # a malformed index: reading the family says what is wrong with it
    return parent if path.name in listed else None


@contextlib.contextmanager
def reading_lock(folder: str | Path | None) -> Iterator[None]:
    """Hold the shared lock of a results folder (and of the family a pair folder belongs to) while reading it, so a
    run rewriting it waits, and a read waits for a write under way (:func:`evalgate_lib.folders.folder_lock`).

    The family's lock is taken first, in the order its writer takes them. ``None``: nothing to lock.
    """
    if folder is None:
        yield
        return
    family = family_of(folder)
    with contextlib.ExitStack() as stack:
        if family is not None:
            stack.enter_context(folder_lock(family, write=False))
        stack.enter_context(folder_lock(folder, write=False))
        yield


def read_candidates_folder(folder: str | Path) -> CandidatesFolder:
    """Load a several-candidates folder after checking that each pair is the one the run wrote.

    Every pair folder passes :func:`~evalgate_lib.run.folder.read_results_folder`; its
    ``manifest.json`` SHA-256 is the index's; it pairs the index's baseline with the candidate the
    index names; and every pair ran the same questions and holds the same baseline rows (one
    baseline, generated once). Each failure is one :class:`InputError` line naming the file.
    """
    path = Path(folder)
    index = _index(path)
    hint = index["hint"]
    pairs = []
    for entry in index["candidates"]:
        sub = path / entry["folder"]
        pair = read_results_folder(sub)
        if sha256_file(sub / "manifest.json") != entry.get("manifest_sha256"):
            raise InputError(
                f"{sub / 'manifest.json'}: SHA-256 differs from {path / INDEX_FILE} (the pair was changed or rerun "
                f"alone after the run); {hint}"
            )
        if (pair.manifest.baseline, pair.manifest.candidate) != (index["baseline"], entry["name"]):
            raise InputError(
                f"{sub}: compares {pair.manifest.candidate!r} with {pair.manifest.baseline!r}, but {INDEX_FILE} "
                f"names {entry['name']!r} and {index['baseline']!r}; {hint}"
            )
        pairs.append(pair)
    first = pairs[0]
    base_rows = [r for r in first.rows if r.config == index["baseline"]]
    for pair in pairs[1:]:
        if pair.manifest.gold.get("question_ids") != first.manifest.gold.get("question_ids") or base_rows != [
            r for r in pair.rows if r.config == index["baseline"]
        ]:
            raise InputError(
                f"{pair.folder}: its baseline rows differ from {first.folder}'s: the pairs of one index share one "
                f"baseline run; {hint}"
            )
    # timings only, but the report shows them: damaged is said, never dropped silently; with a key, signed for
    # this family's index (another family's index in this folder, or its stats here, is refused)
    stats = read_run_stats(path / "run_stats.json", (INDEX_FILE, json_digest(index["raw"])), hint)
    return CandidatesFolder(path, index["baseline"], tuple(pairs), stats)
