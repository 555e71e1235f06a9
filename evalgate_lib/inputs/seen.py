"""What each reviewer has been shown: the record that makes a label's blindness a fact, not a session's memory.

A label is blind when its reviewer had never been shown EvalGate's verdicts of that exact answer
before saving it. A labelling session knows only what it rendered itself: a reviewer who labelled
baseline q002, saw its verdicts, and labels it again weeks later under a new plan would be called
blind by the new session. So every time the labelling view shows an answer's verdicts it first
writes that down here, and every label is saved with ``verdicts_hidden`` read from this record.

The record is one file in the label file's folder, :data:`SEEN_FILE` (``verdicts-seen.jsonl``),
shared by every label file there: one JSON object per line and per (reviewer, answer), sorted::

    {"answer_sha256": "…", "config": "baseline", "question_id": "q002", "reviewer": "ana",
     "view": "blind labelling, after the label was saved"}

Written atomically, never shortened (a sighting is never forgotten), and with a signing key set each
line carries its own signature, as labels do (:func:`~evalgate_lib.signing.sign_json`): a sighting
removed or edited by hand would make a label look blind, so with the key a line that does not verify
is refused, naming its line.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.inputs.labels import SHA256_HEX
from evalgate_lib.signing import SIGNATURE_KEY, sign_json, signature_problem, signing_key

#: The record's file name, in the folder of the label files it serves.
SEEN_FILE = "verdicts-seen.jsonl"
_KEYS = ("answer_sha256", "config", "question_id", "reviewer", "view")


@dataclass(frozen=True)
class Sighting:
    """One reviewer was shown EvalGate's verdicts of one exact answer (its SHA-256), in ``view``."""

    reviewer: str
    config: str
    question_id: str
    answer_sha256: str
    view: str


def _parse(obj: object, where: str) -> Sighting:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: each line must be a JSON object")
    unknown = sorted(set(obj) - set(_KEYS) - {SIGNATURE_KEY})
    missing = [k for k in _KEYS if k not in obj]
    if unknown or missing:
        raise InputError(f"{where}: a line of the record has the keys {', '.join(_KEYS)} (and a signature)")
    if not all(isinstance(obj[k], str) and obj[k].strip() for k in _KEYS):
        raise InputError(f"{where}: every value of a line must be a non-empty string")
    if not SHA256_HEX.fullmatch(obj["answer_sha256"]):
        raise InputError(f"{where}: 'answer_sha256' must be 64 lowercase hex characters")
    return Sighting(obj["reviewer"], obj["config"], obj["question_id"], obj["answer_sha256"], obj["view"])


class SeenRecord:
    """The sightings of one folder's label files (:data:`SEEN_FILE`); a missing file records nothing yet."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / SEEN_FILE

    @classmethod
    def beside(cls, labels_path: str | Path) -> SeenRecord:
        """The record that serves the label file ``labels_path`` (in its folder)."""
        return cls(Path(labels_path).parent)

    def sightings(self) -> dict[tuple[str, str], Sighting]:
        """(reviewer, answer SHA-256) → its first sighting; every line checked (and, with a key, verified)."""
        if not self.path.exists():
            return {}
        key = signing_key()
        found: dict[tuple[str, str], Sighting] = {}
        for _, where, obj in read_jsonl(self.path, "record of verdicts shown"):
            sighting = _parse(obj, where)
            if key is not None:
                problem = signature_problem(obj, key)
                if problem is not None:
                    raise InputError(
                        f"{where}: line of the record of verdicts shown {problem}; it decides whether a label is "
                        "blind, so with a key set every line must verify"
                    )
            found.setdefault((sighting.reviewer, sighting.answer_sha256), sighting)
        return found

    def seen(self, reviewer: str, answer_sha256: str) -> bool:
        """Whether ``reviewer`` has been shown EvalGate's verdicts of the answer with this SHA-256, ever."""
        return (reviewer, answer_sha256) in self.sightings()

    def record(self, sighting: Sighting) -> None:
        """Write ``sighting`` down before the verdicts are shown (atomically; nothing when it is already there)."""
        known = self.sightings()
        if (sighting.reviewer, sighting.answer_sha256) in known:
            return
        known[(sighting.reviewer, sighting.answer_sha256)] = sighting
        ordered = sorted(known.values(), key=lambda s: (s.reviewer, s.config, s.question_id, s.answer_sha256))
        text = "".join(json.dumps(sign_json(asdict(s)), sort_keys=True, ensure_ascii=False) + "\n" for s in ordered)
        atomic_write(self.path, text)
