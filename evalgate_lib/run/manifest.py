"""``manifest.json``, typed: what a run measured, with what, and the digests that let a reader trust its files.

A :class:`Manifest` is made in one place, :func:`new_manifest`, for ``evalgate run`` and
``evalgate score`` alike (the caller gives the sections that differ: configs, fairness,
backend; the version, packages and Python come from here). The results-folder writer then
adds what only it knows: the SHA-256 and row count of ``results.jsonl``, the SHA-256 of
``summary.json`` and the questions per config, and last the manifest's own SHA-256
(:func:`manifest_digest`), so the folder can be checked before it is trusted
(:mod:`evalgate_lib.run.folder`).

A manifest written by an older EvalGate lacks some fields; :meth:`Manifest.from_json` reads
each missing one as :data:`FALLBACKS` says, and nowhere else decides what a missing field
means.
"""

from __future__ import annotations

import copy
import hashlib
import json
import platform
from dataclasses import dataclass, fields
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.files import sha256_file
from evalgate_lib.version import __version__

#: Packages whose versions can change a number, recorded in the manifest.
RECORDED_PACKAGES = (
    "numpy",
    "pandas",
    "joblib",
    "httpx",
    "torch",
    "transformers",
    "sentence-transformers",
    "gguf",
    "scipy",
)

#: What each field reads as when ``manifest.json`` lacks it: the one fallback rule. A manifest without
#: ``judging.answer_matching`` predates that setting, when the only rule was the literal substring
#: match (``raw``); without ``judging.sentence_scorer``, when the only scorer was ``lexical@1``.
#: No ``files`` means an older schema without digests: :mod:`~evalgate_lib.run.folder` refuses it.
FALLBACKS: dict[str, Any] = {
    "evalgate_version": None,
    "baseline": "",
    "candidate": "",
    "configs": {},
    "fairness": {"differs": [], "shared": {}},
    "corpus": {},
    "gold": {},
    "backend": {},
    "judging": {"sentence_scorer": "lexical@1", "answer_matching": "raw"},
    "generation": None,
    "top_k": None,
    "packages": {},
    "python": None,
    "pipeline": None,
    "limit": None,
    "files": None,
    "questions_per_config": None,
    "manifest_sha256": None,
}

#: Fields left out of ``manifest.json`` while unset (``pipeline`` is set for scored answer logs only).
_OMITTED_WHEN_NONE = ("pipeline", "files", "questions_per_config", "manifest_sha256")


def package_versions() -> dict[str, str | None]:
    """Installed versions of :data:`RECORDED_PACKAGES` (``None`` if absent)."""
    versions: dict[str, str | None] = {}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


@dataclass(frozen=True)
class Manifest:
    """Everything needed to tell whether two runs measured the same thing, and whether a folder is intact.

    The sections (``configs``, ``fairness``, ``corpus``, ``gold``, ``backend``, ``judging``,
    ``generation``) stay the JSON objects they are in the file; the fields a reader decides on
    (``limit``, ``files``, ``questions_per_config``, ``pipeline``) are read through attributes
    and the properties below.
    """

    evalgate_version: str | None
    baseline: str
    candidate: str
    configs: dict[str, dict[str, Any]]
    fairness: dict[str, Any]
    corpus: dict[str, Any]
    gold: dict[str, Any]
    backend: dict[str, Any]
    judging: dict[str, Any]
    generation: dict[str, Any] | None
    top_k: int | None
    packages: dict[str, str | None]
    python: str | None
    #: ``{"kind": "external", "fairness": ...}`` for answers scored from logs; ``None`` for ``evalgate run``.
    pipeline: dict[str, Any] | None = None
    #: ``--limit`` when it cut the gold set short; ``None`` when every gold question ran.
    limit: int | None = None
    #: ``{"results.jsonl": {"sha256", "rows"}, "summary.json": {"sha256"}}``, added by the folder writer.
    files: dict[str, dict[str, Any]] | None = None
    #: Rows per config in ``results.jsonl``, baseline first, added by the folder writer.
    questions_per_config: dict[str, int] | None = None
    #: :func:`manifest_digest` of every other field, added last by the folder writer: the manifest's own checksum.
    manifest_sha256: str | None = None

    @property
    def is_external(self) -> bool:
        """True for answers scored from logs (``evalgate score``): EvalGate did not run the pipelines."""
        return (self.pipeline or {}).get("kind") == "external"

    @property
    def backend_name(self) -> str:
        return str(self.backend.get("backend", ""))

    @property
    def answer_matching(self) -> str:
        return str(self.judging["answer_matching"])

    @property
    def sentence_scorer(self) -> str:
        """The scorer's id with its version (``span@3``)."""
        return str(self.judging["sentence_scorer"])

    def to_json(self) -> dict[str, Any]:
        """The ``manifest.json`` object (written with sorted keys)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _OMITTED_WHEN_NONE:
            if data[name] is None:
                del data[name]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        """Read a ``manifest.json`` object; a field it lacks reads as :data:`FALLBACKS` says.

        A field of the wrong kind (``"files": "x"``, a manifest edited with its own checksum recomputed)
        is an :class:`~evalgate_lib.errors.InputError` naming the field, never a crash further on.
        """
        known = {f.name for f in fields(cls)}
        values = {name: copy.deepcopy(default) for name, default in FALLBACKS.items()}
        values.update({k: v for k, v in data.items() if k in known})
        _check_kinds(values)
        values["judging"] = {**FALLBACKS["judging"], **(values["judging"] or {})}
        return cls(**values)


#: What each field must be: (accepted types, its items' type for a mapping whose values are read as such, words).
_KINDS: dict[str, tuple[tuple[type, ...], type | None, str]] = {
    "evalgate_version": ((str, type(None)), None, "a string"),
    "baseline": ((str,), None, "a config name"),
    "candidate": ((str,), None, "a config name"),
    "configs": ((dict,), dict, "an object of one object per config"),
    "fairness": ((dict,), None, "an object"),
    "corpus": ((dict,), None, "an object"),
    "gold": ((dict,), None, "an object"),
    "backend": ((dict,), None, "an object"),
    "judging": ((dict, type(None)), None, "an object"),
    "generation": ((dict, type(None)), None, "an object"),
    "top_k": ((int, type(None)), None, "a whole number"),
    "packages": ((dict,), None, "an object"),
    "python": ((str, type(None)), None, "a string"),
    "pipeline": ((dict, type(None)), None, "an object"),
    "limit": ((int, type(None)), None, "a whole number"),
    "files": ((dict, type(None)), dict, "an object of one object per file (sha256, rows)"),
    "questions_per_config": ((dict, type(None)), int, "an object of whole numbers per config"),
    "manifest_sha256": ((str, type(None)), None, "a SHA-256 string"),
}


def _check_kinds(values: Mapping[str, Any]) -> None:
    for name, (kinds, item, words) in _KINDS.items():
        value = values.get(name)
        wrong = not isinstance(value, kinds) or isinstance(value, bool)
        if not wrong and item is not None and isinstance(value, dict):
            wrong = any(not isinstance(v, item) or isinstance(v, bool) for v in value.values())
        if wrong:
            shown = repr(value)
            raise InputError(f"'{name}' must be {words}, got {shown[:60]}{'…' if len(shown) > 60 else ''}")


def manifest_digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of a ``manifest.json`` object without its own ``manifest_sha256``, as canonical JSON.

    Canonical (sorted keys, fixed separators) so that re-indenting the file changes nothing, while
    any edit of a value (the generator's name, the limit, a digest) does. Like every plain checksum
    it finds accidents and careless edits, not forgery: an editor can recompute it, which is what
    the keyed signature (:mod:`evalgate_lib.signing`) is for.
    """
    rest = {k: v for k, v in data.items() if k != "manifest_sha256"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_section(
    path: str | None, digest: str | None, articles: int | None, skipped: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """The manifest's ``corpus`` object (``None`` values when answers were scored without a corpus)."""
    return {
        "path": path,
        "sha256": digest,
        "articles": articles,
        "skipped": [{"path": p, "reason": reason} for p, reason in skipped],
    }


def gold_section(
    path: Path,
    shown_path: str,
    questions_in_file: int,
    question_ids: Sequence[str],
    *,
    sha256: str | None = None,
    from_answer_log: bool = False,
) -> dict[str, Any]:
    """The manifest's ``gold`` object: the file by hash, and which of its questions ran.

    ``from_answer_log``: no gold file was given to ``evalgate score``, the gold is the one the
    baseline log's RAGAS / Hugging Face rows carry, and ``path`` and ``sha256`` (the log's own,
    passed in: a ``datasets`` folder is hashed file by file) name that log. The key is present
    only then, so every other manifest is unchanged.
    """
    section: dict[str, Any] = {
        "path": shown_path,
        "sha256": sha256 if sha256 is not None else sha256_file(path),
        "questions_in_file": questions_in_file,
        "questions_run": len(question_ids),
        "question_ids": list(question_ids),
    }
    if from_answer_log:
        section["from_answer_log"] = True
    return section


def new_manifest(
    *,
    baseline: str,
    candidate: str,
    configs: dict[str, dict[str, Any]],
    fairness: dict[str, Any],
    corpus: dict[str, Any],
    gold: dict[str, Any],
    backend: dict[str, Any],
    judging: dict[str, Any],
    generation: dict[str, Any] | None,
    top_k: int | None,
    pipeline: dict[str, Any] | None = None,
    limit: int | None = None,
) -> Manifest:
    """The one constructor of a run's manifest: the caller's sections plus this EvalGate, its packages and Python."""
    return Manifest(
        evalgate_version=__version__,
        baseline=baseline,
        candidate=candidate,
        configs=configs,
        fairness=fairness,
        corpus=corpus,
        gold=gold,
        backend=backend,
        judging=judging,
        generation=generation,
        top_k=top_k,
        packages=package_versions(),
        python=platform.python_version(),
        pipeline=pipeline,
        limit=limit,
    )
