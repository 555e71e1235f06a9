"""Reviewers' labels as data: loading, validating, matching to a run, and saving one click at a time.

EvalGate's judgements are transparent string functions; to know how far to trust them we measure
them against human reviewers who follow ``docs/labelling-guide.md``. Those labels are data like the gold
file, so they get the same treatment: strict validation that names ``file:line`` and the key, and no
label is ever used silently when it may not describe the answer in the run.

A label file is JSON Lines, one object per line::

    {"config": "baseline", "question_id": "q001", "answer_sha256": "<sha256 of the answer, utf-8>",
     "correct": true, "unsupported_claim": false, "unsupported_sentences": [],
     "refusal": false, "reviewer": "ana", "pass": 1, "comment": "...", "verdicts_hidden": true,
     "mode": "blind", "sentences": [{"text": "...", "supported": true}], "plan_sha256": "<sha256 of label-plan.json>"}

Required: ``config, question_id, answer_sha256, correct, unsupported_claim, reviewer``. ``pass``
defaults to 1 and is always written back, so a file saved by :class:`LabelStore` is normalised.
``plan_sha256`` is the SHA-256 of the sampling plan (``evalgate sample``) the answer was drawn by;
without it a label is part of a convenience sample, never used to correct a delta.
``verdicts_hidden`` records whether EvalGate's verdicts of that answer had been shown to the reviewer
before the label was saved (the labelling widget writes what it rendered); ``mode`` records the flow the
label was made in: ``blind`` (the reviewer's own judgement, the verdicts appearing only after the label is
saved) or ``audit`` (the reviewer saw EvalGate's verdicts and judged them, agreeing or not). A report and
the corrected delta say what the labels record (:func:`label_kind`) and claim nothing a file does not say.

Why the answer hash: a label judges one exact answer text. When the prompt, model or cache changes,
the answer for the same (config, question) changes too and the old label no longer applies. A label
whose hash differs from the current answer is *stale*: :func:`match_labels` reports it and never uses it.

With a signing key set (:mod:`evalgate_lib.signing`) every label carries its own ``signature`` (the
labelling widget signs each one it saves, ``evalgate sign FILE`` signs a file made without the key),
and the labels read for a run (:func:`load_label_files`) must verify: a label decides the corrected
delta the gate rests on, so a label edited after it was made is refused like a forged row.

One label per answer and pass: the same label in two files, or two reviewers' labels of one answer in
the same pass, would let the file order or the reviewers' names decide which counts. Both are refused,
naming both places, unless a policy says which counts: ``--reviewer NAME`` keeps one reviewer's labels
(:class:`LabelSelection` says how many it set aside, and whose). A writer of labels (:class:`LabelStore`)
refuses the second reviewer's label where it is made (:class:`LabelConflict`, naming the first pass free
for that answer), not only the gate that reads the file afterwards.

**A label is never replaced silently.** A reviewer who labels an answer again (after seeing EvalGate's
verdicts, or under a new plan) saves a new label whose ``history`` holds every earlier label of that
answer, oldest first, as it was: the file keeps both, and each says whether it was blind.

**A label template** (:mod:`evalgate_lib.reporting.label_template`, written by ``evalgate sample``) is a
label file whose rows are not labelled yet: ``correct`` is ``null``, each row holds what the reviewer is
shown (``material``: question, reference, passages, answer, whose SHA-256 must be the row's
``answer_sha256``) and the answer's sentences without marks. Filled in (by the static labelling page or
by hand), it is read as any label file; its rows not filled yet are counted
(:attr:`LabelSelection.unfilled`), never taken for labels.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.signing import SIGNATURE_KEY, sign_json, signature_problem, signing_key
from evalgate_lib.text.matching import canonical

REQUIRED_KEYS = ("config", "question_id", "answer_sha256", "correct", "unsupported_claim", "reviewer")
OPTIONAL_KEYS = (
    "unsupported_sentences",
    "refusal",
    "pass",
    "comment",
    "sentences",
    "plan_sha256",
    "verdicts_hidden",
    "mode",
    "history",
    "material",
    SIGNATURE_KEY,
)
KNOWN_KEYS = REQUIRED_KEYS + OPTIONAL_KEYS
SENTENCE_KEYS = ("text", "supported")
#: What a template row shows the reviewer (``material``), and each passage of it.
MATERIAL_KEYS = ("question", "type", "accept", "evidence", "passages", "answer")
PASSAGE_KEYS = ("rank", "title", "text")

#: The two labelling flows a label can record in ``mode``: the reviewer's own judgement made before any
#: EvalGate verdict of the answer is shown, and an audit of EvalGate's verdicts made while seeing them.
BLIND, AUDIT = "blind", "audit"
MODES = (BLIND, AUDIT)

#: What a label says about how it was made (:func:`label_kind`), in the order reports list them.
LABEL_KINDS = ("blind", "audit", "verdicts seen", "unrecorded")

#: A SHA-256 as labels and the record of what was shown write it: 64 lowercase hex characters.
SHA256_HEX = re.compile(r"[0-9a-f]{64}")

#: (config, question_id, answer_sha256, reviewer, pass): at most one label per key.
LabelKey = tuple[str, str, str, str, int]


def answer_sha256(text: str) -> str:
    """SHA-256 hex digest of the answer text encoded as UTF-8: the identity a label is tied to."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SentenceLabel:
    """One sentence's verdict captured in the explorer; ``supported`` is ``None`` for "not a claim"."""

    text: str
    supported: bool | None


@dataclass(frozen=True)
class Passage:
    """One passage a template row shows the reviewer: the context the model was shown, in its order."""

    rank: int
    title: str
    text: str


@dataclass(frozen=True)
class Material:
    """What a label template row shows the reviewer, and nothing else: no verdict, flag or score of EvalGate.

    ``accept`` and ``evidence`` are the reference (the gold answer), as the labelling guide lets a
    reviewer see it; ``answer`` is the exact text the row's ``answer_sha256`` names.
    """

    question: str
    type: str
    accept: tuple[str, ...]
    evidence: tuple[str, ...] | None
    passages: tuple[Passage, ...]
    answer: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "type": self.type,
            "accept": list(self.accept),
            "evidence": None if self.evidence is None else list(self.evidence),
            "passages": [{"rank": p.rank, "title": p.title, "text": p.text} for p in self.passages],
            "answer": self.answer,
        }


@dataclass(frozen=True)
class Label:
    """One reviewer's judgement of one exact answer (see the labelling guide for what each field means).

    ``pass_number`` is the JSON key ``pass`` (a Python keyword): 1 for the first labelling pass, 2 for
    the independent second pass used to measure inter-rater agreement.
    """

    config: str
    question_id: str
    answer_sha256: str
    correct: bool
    unsupported_claim: bool
    reviewer: str
    unsupported_sentences: tuple[str, ...] = ()
    refusal: bool | None = None
    pass_number: int = 1
    comment: str | None = None
    sentences: tuple[SentenceLabel, ...] | None = None
    plan_sha256: str | None = None
    #: Whether EvalGate's verdicts were hidden from the reviewer (``None``: the file does not say).
    verdicts_hidden: bool | None = None
    #: The labelling flow, :data:`BLIND` or :data:`AUDIT` (``None``: the file does not say).
    mode: str | None = None
    #: This reviewer's earlier labels of this answer in this pass, oldest first, as each was saved: a label is
    #: never replaced silently (a relabel after the verdicts were shown, a label re-recorded under a new plan).
    history: tuple[Label, ...] = ()
    #: What a label template showed the reviewer (question, reference, passages, answer); not part of the verdict.
    material: Material | None = field(default=None, compare=False)
    #: Where the label was read (``file:line``), for the messages that name it; not part of the label.
    source: str | None = field(default=None, compare=False)

    @property
    def key(self) -> LabelKey:
        """The uniqueness key: a reviewer labels one answer once per pass."""
        return (self.config, self.question_id, self.answer_sha256, self.reviewer, self.pass_number)

    @property
    def sort_key(self) -> tuple[str, str, str, int, str]:
        """File order: config, question, reviewer, pass (hash last, only to break ties deterministically)."""
        return (self.config, self.question_id, self.reviewer, self.pass_number, self.answer_sha256)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object for this label; optional fields that are unset are left out."""
        obj: dict[str, Any] = {
            "config": self.config,
            "question_id": self.question_id,
            "answer_sha256": self.answer_sha256,
            "correct": self.correct,
            "unsupported_claim": self.unsupported_claim,
            "unsupported_sentences": list(self.unsupported_sentences),
            "reviewer": self.reviewer,
            "pass": self.pass_number,
        }
        if self.refusal is not None:
            obj["refusal"] = self.refusal
        if self.comment is not None:
            obj["comment"] = self.comment
        if self.sentences is not None:
            obj["sentences"] = [{"text": s.text, "supported": s.supported} for s in self.sentences]
        if self.plan_sha256 is not None:
            obj["plan_sha256"] = self.plan_sha256
        if self.verdicts_hidden is not None:
            obj["verdicts_hidden"] = self.verdicts_hidden
        if self.mode is not None:
            obj["mode"] = self.mode
        if self.history:
            obj["history"] = [earlier.to_dict() for earlier in self.history]
        if self.material is not None:
            obj["material"] = self.material.to_dict()
        return obj

    def earlier(self) -> Label:
        """This label as one entry of a later label's ``history``: no history of its own, no material, no source."""
        return replace(self, history=(), material=None, source=None)


def _reject_unknown(obj: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    """Name each unknown key with the nearest valid one: a typo ("corect") must not silently drop a field."""
    unknown = sorted(k for k in obj if k not in known)
    if not unknown:
        return
    parts = []
    for key in unknown:
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        parts.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
    raise InputError(f"{where}: unknown key(s) {', '.join(parts)}; allowed: {', '.join(known)}")


def _check_keys(obj: dict[str, Any], known: tuple[str, ...], required: tuple[str, ...], where: str) -> None:
    """No unknown key (each named with the nearest valid one), and every required key present."""
    _reject_unknown(obj, known, where)
    missing = [k for k in required if k not in obj]
    if missing:
        raise InputError(f"{where}: missing required key(s) {', '.join(repr(k) for k in missing)}")


def _bool(obj: dict[str, Any], key: str, where: str) -> bool:
    value = obj[key]
    if not isinstance(value, bool):  # 0/1 and "true" are refused: a typed file is unambiguous
        raise InputError(f"{where}: '{key}' must be true or false, got {value!r}")
    return value


def _string(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: '{key}' must be a non-empty string, got {value!r}")
    return value


def _sentences(value: object, where: str, marked: bool = True) -> tuple[SentenceLabel, ...]:
    """A label's sentences; with ``marked`` False (a template row not labelled yet) the marks may be absent."""
    if not isinstance(value, list):
        raise InputError(f"{where}: 'sentences' must be a list of objects, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        at = f"{where}: 'sentences'[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{at} must be an object with keys 'text' and 'supported'")
        _reject_unknown(item, SENTENCE_KEYS, at)
        if "text" not in item or not isinstance(item["text"], str):
            raise InputError(f"{at}: 'text' is required and must be a string")
        if "supported" not in item and not marked:
            out.append(SentenceLabel(item["text"], None))
            continue
        if "supported" not in item:
            raise InputError(
                f"{at}: sentence {i + 1} is not marked: set 'supported' to true, false or null (not a claim); "
                "a label is saved only when every sentence is marked"
            )
        if not (item["supported"] is None or isinstance(item["supported"], bool)):
            raise InputError(f"{at}: 'supported' is required and must be true, false or null")
        out.append(SentenceLabel(item["text"], item["supported"]))
    return tuple(out)


def _text_list(value: object, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _material(value: object, digest: str, where: str) -> Material:
    """A template row's ``material``, checked: its answer must be the text the row's ``answer_sha256`` names."""
    at = f"{where}: 'material'"
    if not isinstance(value, dict):
        raise InputError(f"{at} must be an object with the keys {', '.join(MATERIAL_KEYS)}")
    _check_keys(value, MATERIAL_KEYS, MATERIAL_KEYS, at)
    for key in ("question", "type", "answer"):
        if not isinstance(value[key], str):
            raise InputError(f"{at}: '{key}' must be a string")
    if answer_sha256(value["answer"]) != digest:
        raise InputError(
            f"{at}: its 'answer' is not the text 'answer_sha256' names (SHA-256 "
            f"{answer_sha256(value['answer'])[:12]}…, the row says {digest[:12]}…): the answer was edited after "
            "the template was written; write the template again with 'evalgate sample'"
        )
    passages = []
    if not isinstance(value["passages"], list):
        raise InputError(f"{at}: 'passages' must be a list of objects")
    for i, item in enumerate(value["passages"]):
        here = f"{at}: 'passages'[{i}]"
        if not isinstance(item, dict) or set(item) != set(PASSAGE_KEYS):
            raise InputError(f"{here} must be an object with the keys {', '.join(PASSAGE_KEYS)}")
        if (
            isinstance(item["rank"], bool)
            or not isinstance(item["rank"], int)
            or not all(isinstance(item[k], str) for k in ("title", "text"))
        ):
            raise InputError(f"{here}: 'rank' must be a whole number, 'title' and 'text' strings")
        passages.append(Passage(item["rank"], item["title"], item["text"]))
    evidence = None if value["evidence"] is None else _text_list(value["evidence"], at, "'evidence'")
    return Material(
        value["question"], value["type"], _text_list(value["accept"], at, "'accept'"), evidence, tuple(passages),
        value["answer"],
    )  # fmt: skip


def is_template_row(obj: object) -> bool:
    """Whether ``obj`` (a decoded line) is a template row not labelled yet: ``correct`` is ``null``."""
    return isinstance(obj, dict) and "correct" in obj and obj["correct"] is None


def _check_template_row(obj: dict[str, Any], where: str) -> None:
    """A template row not labelled yet: its identity and material checked, no verdict field set."""
    _reject_unknown(obj, KNOWN_KEYS, where)
    for key in ("config", "question_id"):
        _string(obj, key, where)
    digest = obj.get("answer_sha256")
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        raise InputError(f"{where}: 'answer_sha256' must be 64 lowercase hex characters, got {digest!r}")
    decided = [k for k in ("unsupported_claim", "refusal") if obj.get(k) is not None]
    decided += [
        f"sentence {i + 1}"
        for i, s in enumerate(obj.get("sentences") or [])
        if isinstance(s, dict) and "supported" in s
    ]
    if decided:
        raise InputError(
            f"{where}: 'correct' is null (not labelled yet) but {', '.join(decided)} is set: a half-marked label "
            "counts as neither; set 'correct' (true or false) to finish it, or clear the other marks"
        )
    if obj.get("sentences") is not None:
        _sentences(obj["sentences"], where, marked=False)
    if obj.get("material") is not None:
        _material(obj["material"], digest, where)


def parse_label(obj: object, where: str) -> Label:
    """Validate one decoded JSON object; ``where`` (``file:line``) starts every message.

    A template row not labelled yet (``correct`` null) is refused here: :func:`parse_row` tells them apart.
    """
    if not isinstance(obj, dict):
        raise InputError(f"{where}: each line must be a JSON object, got {type(obj).__name__}")
    _check_keys(obj, KNOWN_KEYS, REQUIRED_KEYS, where)
    config = canonical(_string(obj, "config", where))
    question_id = canonical(_string(obj, "question_id", where))  # one spelling of an id
    if obj["correct"] is None:
        raise InputError(f"{where}: 'correct' is null: a template row not labelled yet, not a label")
    reviewer = canonical(_string(obj, "reviewer", where))  # a name typed on macOS (NFD) is the same reviewer
    digest = obj["answer_sha256"]
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        raise InputError(f"{where}: 'answer_sha256' must be 64 lowercase hex characters, got {digest!r}")
    correct = _bool(obj, "correct", where)
    sentences = None if obj.get("sentences") is None else _sentences(obj["sentences"], where)
    if obj["unsupported_claim"] is None and sentences is not None:
        # a template filled by hand: the claim-level verdict follows from the sentence marks, as the page derives it
        derived = tuple(s.text for s in sentences if s.supported is False)
        obj = {
            **obj,
            "unsupported_claim": bool(derived),
            "unsupported_sentences": obj.get("unsupported_sentences") or list(derived),
        }
    unsupported_claim = _bool(obj, "unsupported_claim", where)

    sentences_raw = obj.get("unsupported_sentences", [])
    if not isinstance(sentences_raw, list) or not all(isinstance(s, str) and s.strip() for s in sentences_raw):
        raise InputError(f"{where}: 'unsupported_sentences' must be a list of non-empty strings")
    if sentences_raw and not unsupported_claim:
        # contradictory: which of the two did the reviewer mean? Refuse rather than guess.
        raise InputError(f"{where}: 'unsupported_sentences' is not empty but 'unsupported_claim' is false")

    refusal = None
    if obj.get("refusal") is not None:
        refusal = _bool(obj, "refusal", where)
    pass_number = obj.get("pass", 1)
    if isinstance(pass_number, bool) or not isinstance(pass_number, int) or pass_number < 1:
        raise InputError(f"{where}: 'pass' must be a positive integer (1, 2, ...), got {pass_number!r}")
    comment = obj.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise InputError(f"{where}: 'comment' must be a string, got {comment!r}")
    plan_sha256 = obj.get("plan_sha256")
    if plan_sha256 is not None and (not isinstance(plan_sha256, str) or not SHA256_HEX.fullmatch(plan_sha256)):
        raise InputError(f"{where}: 'plan_sha256' must be 64 lowercase hex characters, got {plan_sha256!r}")
    hidden = None if obj.get("verdicts_hidden") is None else _bool(obj, "verdicts_hidden", where)
    mode = obj.get("mode")
    if mode is not None and mode not in MODES:
        raise InputError(f"{where}: 'mode' must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    if mode == AUDIT and hidden is True:
        raise InputError(f"{where}: 'mode' is 'audit' (the reviewer saw the verdicts) but 'verdicts_hidden' is true")
    material = None if obj.get("material") is None else _material(obj["material"], digest, where)
    label = Label(
        config=config,
        question_id=question_id,
        answer_sha256=digest,
        correct=correct,
        unsupported_claim=unsupported_claim,
        reviewer=reviewer,
        unsupported_sentences=tuple(sentences_raw),
        refusal=refusal,
        pass_number=pass_number,
        comment=comment,
        sentences=sentences,
        plan_sha256=plan_sha256,
        verdicts_hidden=hidden,
        mode=mode,
        material=material,
        source=where,
    )
    return replace(label, history=_history(obj.get("history"), label, where))


def _history(value: object, label: Label, where: str) -> tuple[Label, ...]:
    """A label's earlier versions: each a label of the same answer by the same reviewer in the same pass."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(f"{where}: 'history' must be a list of the earlier labels of this answer")
    earlier = []
    for i, item in enumerate(value):
        at = f"{where}: 'history'[{i}]"
        if isinstance(item, dict) and ("history" in item or SIGNATURE_KEY in item or "material" in item):
            raise InputError(f"{at}: an earlier label holds no history, signature or material of its own")
        entry = parse_label(item, at)
        if entry.key != label.key:
            raise InputError(
                f"{at}: an earlier label of another answer, reviewer or pass ({_describe(entry.key)}); a history "
                "holds the earlier labels of its own label's answer only"
            )
        earlier.append(replace(entry, source=None))
    return tuple(earlier)


def parse_row(obj: object, where: str) -> Label | None:
    """One line of a label file: its label, or ``None`` for a template row not labelled yet (checked as such)."""
    if is_template_row(obj):
        _check_template_row(obj, where)  # type: ignore[arg-type]
        return None
    return parse_label(obj, where)


def label_kind(label: Label) -> str:
    """How a label was made, as its file records it: one of :data:`LABEL_KINDS`.

    ``audit``: made in the audit flow (``mode``), seeing EvalGate's verdicts; ``blind``: the verdicts of
    the answer were hidden until it was saved (``verdicts_hidden`` true); ``verdicts seen``: they had
    been shown before it was saved, outside an audit (a blind label revised after the verdicts
    appeared); ``unrecorded``: the file does not say. The corrected delta and the report count
    labels by this, so neither calls a label blind that its file does not record as blind.
    """
    if label.mode == AUDIT:
        return "audit"
    if label.verdicts_hidden is True:
        return "blind"
    if label.verdicts_hidden is False:
        return "verdicts seen"
    return "unrecorded"


def label_kinds(labels: Iterable[Label]) -> dict[str, int]:
    """How many of ``labels`` are of each :func:`label_kind`, in :data:`LABEL_KINDS` order, kinds with none left out."""
    counts = {kind: 0 for kind in LABEL_KINDS}
    for label in labels:
        counts[label_kind(label)] += 1
    return {kind: n for kind, n in counts.items() if n}


#: What each :func:`label_kind` means, in the words a count of them is printed with (:func:`describe_kinds`).
KIND_WORDS = {
    "blind": "blind (EvalGate's verdicts of the answer hidden from its reviewer until the label was saved)",
    "audit": "audit (made seeing EvalGate's verdicts, judging them)",
    "verdicts seen": "made after its reviewer had been shown EvalGate's verdicts of the answer",
    "unrecorded": "whose file does not record whether EvalGate's verdicts were hidden",
}


def describe_kinds(kinds: Mapping[str, int]) -> str:
    """How many labels, and of which kind, in words that say what each count counts (the gate and the report print it).

    ``{"blind": 40, "audit": 2}`` → ``"42 labels: 40 blind (EvalGate's verdicts of the answer hidden from its
    reviewer until the label was saved), 2 audit (made seeing EvalGate's verdicts, judging them)"``.
    """
    total = sum(kinds.values())
    if not total:
        return "no labels"
    parts = ", ".join(f"{n} {KIND_WORDS[kind]}" for kind, n in kinds.items())
    return f"{total} label{'s' if total != 1 else ''}: {parts}"


@dataclass(frozen=True)
class LabelProvenance:
    """Who made a set of labels and what they saw, as the label files record it (``verdicts_hidden``, ``mode``)."""

    labels: int
    reviewers: tuple[str, ...]
    hidden: int
    shown: int
    unrecorded: int
    #: Of the ``shown``: labels made in the audit flow (``mode`` = ``audit``).
    audit: int = 0


def label_provenance(labels: Iterable[Label]) -> LabelProvenance:
    """The reviewers (in order of first label) and how many labels record EvalGate's verdicts as hidden or shown.

    A report states this, never more: a file that does not record ``verdicts_hidden`` is said not
    to, rather than assumed blind.
    """
    items = list(labels)
    return LabelProvenance(
        len(items),
        tuple(dict.fromkeys(label.reviewer for label in items)),
        sum(label.verdicts_hidden is True for label in items),
        sum(label.verdicts_hidden is False for label in items),
        sum(label.verdicts_hidden is None for label in items),
        sum(label.mode == AUDIT for label in items),
    )


def _describe(key: LabelKey) -> str:
    config, qid, digest, reviewer, pass_number = key
    return (
        f"config={config!r} question_id={qid!r} answer_sha256={digest[:12]}… reviewer={reviewer!r} pass={pass_number}"
    )


def load_labels(path: str | Path, *, verify: bool = False) -> list[Label]:
    """Load and validate a label file, in file order. An empty file is valid (no labels yet).

    Raises :class:`InputError` naming ``file:line`` for bad JSON, unknown or missing keys, wrong types
    and a duplicate key (naming the line of the first occurrence). With ``verify`` and a signing key
    set, a label whose own signature does not verify is refused, naming its line. Rows of a label
    template not labelled yet are checked and left out (:func:`read_label_files` counts them).
    """
    return _read_labels([path], verify)[0]


def read_label_files(paths: Iterable[str | Path], verify: bool = False) -> tuple[list[Label], int]:
    """Every label of ``paths`` in order, and how many template rows they hold that are not labelled yet."""
    return _read_labels(paths, verify)


def _read_labels(paths: Iterable[str | Path], verify: bool) -> tuple[list[Label], int]:
    """Every label of ``paths`` in order and the template rows not labelled yet; one label key in two places is
    refused, naming both."""
    key = signing_key() if verify else None
    labels: list[Label] = []
    unfilled = 0
    seen: dict[LabelKey, str] = {}
    spelt: dict[LabelKey, object] = {}  # each key's reviewer as its first label wrote it
    for path in paths:
        for _, where, obj in read_jsonl(path, "label file"):
            label = parse_row(obj, where)
            if label is None:
                unfilled += 1  # a template row: nothing to verify, it holds no verdict
                continue
            if key is not None:
                problem = signature_problem(obj, key)
                if problem is not None:
                    raise InputError(
                        f"{where}: label {problem}; a label decides the corrected delta, so with a key set only "
                        f"signed labels count: label it again with the key set, or vouch for the file with "
                        f"'evalgate --key-file KEY sign {path}'"
                    )
            first = seen.get(label.key)
            if first is not None:
                same_file = first.rsplit(":", 1)[0] == where.rsplit(":", 1)[0]
                at = f"first on line {first.rsplit(':', 1)[1]}" if same_file else f"also at {first}"
                other = (
                    f", where the reviewer's name is spelt in another Unicode form: {spelt[label.key]!a} there, "
                    f"{obj.get('reviewer')!a} here, one name to a reader and so one reviewer"
                    if spelt[label.key] != obj.get("reviewer")
                    else ""
                )
                raise InputError(
                    f"{where}: duplicate label {_describe(label.key)} ({at}{other}): one reviewer labels one answer "
                    "once per pass, so a second copy would count twice or let the file order decide; keep one"
                )
            seen[label.key] = where
            spelt[label.key] = obj.get("reviewer")
            labels.append(label)
    return labels, unfilled


@dataclass(frozen=True)
class LabelSelection:
    """The labels read for a run, and the policy that chose among them (said aloud by :meth:`policy_line`).

    ``labels`` are the ones kept; ``read`` how many the files hold; with ``reviewer`` (``--reviewer``)
    only that reviewer's labels are kept, and ``set_aside`` names the other reviewers and how many
    labels of each were not used.
    """

    labels: tuple[Label, ...]
    read: int
    sources: tuple[str, ...]
    reviewer: str | None = None
    set_aside: tuple[tuple[str, int], ...] = ()
    #: Rows of a label template in the files that are not labelled yet (neither read as labels nor dropped silently).
    unfilled: int = 0

    def nothing_read(self) -> str:
        """The one line that refuses files holding no label: a template not filled in yet says so."""
        files = ", ".join(self.sources)
        if self.unfilled:
            return (
                f"no labels in {files}: {self.unfilled} template row{'s' if self.unfilled != 1 else ''} not labelled "
                "yet; fill them in (its labelling page, or by hand: 'correct', each sentence's 'supported', "
                "'reviewer') and name the filled file"
            )
        return f"no labels in {files}"

    def policy_line(self) -> str:
        """Which labels count and why, in one line (the gate, ``diff`` and ``agreement`` print it)."""
        files = ", ".join(self.sources)
        template = (
            f" ({self.unfilled} template row{'s' if self.unfilled != 1 else ''} not labelled yet, not counted)"
            if self.unfilled
            else ""
        )
        read = f"{self.read} read from {files}{template}"
        if self.reviewer is None:
            return f"labels: {read}; every reviewer's labels count (one label per answer and pass)"
        others = ", ".join(f"{count} of {name!r}" for name, count in self.set_aside) or "none"
        return (
            f"labels: {read}; reviewer {self.reviewer!r} only (--reviewer): "
            f"{len(self.labels)} kept, set aside: {others}"
        )


def load_label_files(paths: Iterable[str | Path], reviewer: str | None = None) -> LabelSelection:
    """A run's label files, checked: the one reader behind the gate, ``diff``, ``agreement`` and the report.

    Every file parses (:func:`parse_label`); one label key in two files is refused naming both; with
    a signing key set every label's signature must verify; with ``reviewer`` only that reviewer's
    labels are kept (one who labelled nothing in the files is an error, naming who did).
    """
    files = [Path(p) for p in paths]
    for number, file in enumerate(files):
        if any(file.resolve() == earlier.resolve() for earlier in files[:number]):
            raise InputError(f"label file {file} is given twice: each label would count twice; name it once")
    loaded, unfilled = _read_labels(files, verify=True)
    sources = tuple(str(p) for p in files)
    if reviewer is None:
        return LabelSelection(tuple(loaded), len(loaded), sources, unfilled=unfilled)
    reviewer = canonical(reviewer)
    kept = tuple(label for label in loaded if label.reviewer == reviewer)
    if not kept and loaded:
        names = ", ".join(repr(name) for name in dict.fromkeys(label.reviewer for label in loaded))
        raise InputError(
            f"--reviewer {reviewer!r}: no label of that reviewer in {', '.join(sources)} (reviewers: {names})"
        )
    counts: dict[str, int] = {}
    for label in loaded:
        if label.reviewer != reviewer:
            counts[label.reviewer] = counts.get(label.reviewer, 0) + 1
    return LabelSelection(kept, len(loaded), sources, reviewer, tuple(counts.items()), unfilled)


@dataclass(frozen=True)
class LabelMatch:
    """Labels sorted by whether they describe the run's current answers.

    * ``matched``: (config, question_id) → labels whose hash equals the current answer's (file order
      by :attr:`Label.sort_key`); only these may be compared with EvalGate's verdicts;
    * ``stale``: the question is in the run but its answer has changed since it was labelled;
    * ``unknown``: no such (config, question_id) in the run (other gold file, renamed config...).
    """

    matched: dict[tuple[str, str], list[Label]] = field(default_factory=dict)
    stale: list[Label] = field(default_factory=list)
    unknown: list[Label] = field(default_factory=list)


def match_labels(labels: Iterable[Label], answers: Mapping[tuple[str, str], str]) -> LabelMatch:
    """Split labels into matched / stale / unknown against ``answers[(config, question_id)] = answer text``.

    A matched label's ``unsupported_sentences`` must be exact substrings of the answer (the guide's
    rule); since the hash proves the text is the one labelled, a miss means the file was hand-edited
    or the UI is buggy, and an :class:`InputError` says which label — a silently ignored sentence would
    make per-sentence agreement wrong.
    """
    digests = {key: answer_sha256(text) for key, text in answers.items()}
    matched: dict[tuple[str, str], list[Label]] = {}
    stale: list[Label] = []
    unknown: list[Label] = []
    for label in sorted(labels, key=lambda lb: lb.sort_key):
        item = (label.config, label.question_id)
        if item not in digests:
            unknown.append(label)
        elif digests[item] != label.answer_sha256:
            stale.append(label)
        else:
            answer = answers[item]
            for sentence in label.unsupported_sentences:
                if sentence not in answer:
                    raise InputError(
                        f"label {_describe(label.key)}: unsupported sentence {sentence!r} is not an exact "
                        "substring of the answer"
                    )
            matched.setdefault(item, []).append(label)
    return LabelMatch(matched, stale, unknown)


def dumps_labels(labels: Iterable[Label]) -> str:
    """The file text for ``labels``: one sorted-keys JSON object per line, sorted by :attr:`Label.sort_key`.

    Deterministic so that two saves of the same labels are byte-identical and diffs stay readable.
    With a signing key set each label is signed (:func:`~evalgate_lib.signing.sign_json`).
    """
    ordered = sorted(labels, key=lambda lb: lb.sort_key)
    return "".join(json.dumps(sign_json(lb.to_dict()), sort_keys=True, ensure_ascii=False) + "\n" for lb in ordered)


def sign_label_file(path: str | Path) -> int:
    """Sign every label of ``path`` with the team's key (the file rewritten atomically); returns how many.

    ``evalgate sign``: whoever holds the key vouches for labels made without it (by hand, with the static
    labelling page, or before the key was set), so the gate then trusts them. The file is checked as any
    label file is first, and keeps its lines in their order: a label template's rows not labelled yet stay
    as they are (they hold no verdict to vouch for).
    """
    if signing_key() is None:
        raise InputError("evalgate sign needs the team's signing key: --key-file FILE or EVALGATE_SIGNING_KEY")
    load_labels(path)  # the whole file checked first: nothing is signed unless every line is a valid row
    lines, signed = [], 0
    for _, _, obj in read_jsonl(path, "label file"):
        if not is_template_row(obj):
            obj = sign_json(obj)
            signed += 1
        lines.append(json.dumps(obj, sort_keys=True, ensure_ascii=False) + "\n")
    atomic_write(Path(path), "".join(lines))
    return signed


class LabelConflict(InputError):
    """Another reviewer has labelled this answer in this pass: saving would make the file unreadable to the gate.

    Raised by :meth:`LabelStore.put` where the label is made, not only when ``gate`` or ``agreement``
    read the file. ``free_pass`` is the first pass in which nobody else has labelled that answer (the
    choice a reviewer is offered: label it as that pass, an independent second label).
    """

    def __init__(self, message: str, first: Label, free_pass: int) -> None:
        super().__init__(message)
        self.first = first
        self.free_pass = free_pass


def free_pass(labels: Iterable[Label], label: Label) -> int:
    """The first pass (from ``label``'s) in which no reviewer but ``label``'s has labelled ``label``'s answer."""
    taken = {
        lb.pass_number
        for lb in labels
        if (lb.config, lb.question_id, lb.answer_sha256) == (label.config, label.question_id, label.answer_sha256)
        and lb.reviewer != label.reviewer
    }
    number = label.pass_number
    while number in taken:
        number += 1
    return number


class LabelStore:
    """A label file edited one label at a time, each edit saved atomically.

    Every :meth:`put` rewrites the whole file to a temporary file in the same folder and renames it over
    the old one (:func:`evalgate_lib.files.atomic_write`), so a crash or a killed notebook kernel
    leaves either the old or the new file, never half a line. ``put`` re-reads the file first, so labels
    another store instance saved in the meantime are kept; there is no lock, so two writers saving at
    the very same moment can still lose one edit — give each reviewer their own file if that matters.

    ``put`` checks the file as the gate will read it: a label of an answer another reviewer labelled
    in the same pass is refused (:class:`LabelConflict`), and a label that replaces one of the same
    reviewer, answer and pass keeps the earlier one in its ``history``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._labels: dict[LabelKey, Label] = {}
        self.reload()

    def reload(self) -> None:
        """Re-read the file (a missing file is an empty store: the first ``put`` creates it).

        With a signing key set every label already in the file must verify: the next save signs the
        whole file, and must not sign a label someone edited in the meantime. A label template (rows
        not labelled yet) is refused: the store rewrites the file, and would drop them.
        """
        loaded, unfilled = read_label_files([self.path], verify=True) if self.path.exists() else ([], 0)
        if unfilled:
            raise InputError(
                f"{self.path} is a label template ({unfilled} row(s) not labelled yet): fill it in with its labelling "
                "page or by hand; label in notebook 06 into a label file of your own"
            )
        self._labels = {label.key: label for label in loaded}

    def labels(self) -> list[Label]:
        """All labels in file order."""
        return sorted(self._labels.values(), key=lambda lb: lb.sort_key)

    def get(
        self, config: str, question_id: str, answer_sha256: str, reviewer: str, pass_number: int = 1
    ) -> Label | None:
        """The label with this key, or ``None`` if this reviewer has not labelled this answer in this pass."""
        return self._labels.get((config, question_id, answer_sha256, reviewer, pass_number))

    def conflict(self, label: Label) -> LabelConflict | None:
        """Why ``label`` cannot be saved beside the file's labels (another reviewer's label of its answer in its
        pass), or ``None``."""
        for other in self._labels.values():
            same = (other.config, other.question_id, other.answer_sha256, other.pass_number)
            if other.reviewer != label.reviewer and same == label.key[:3] + (label.pass_number,):
                free = free_pass(self._labels.values(), label)
                return LabelConflict(
                    f"{label.config} {label.question_id} (answer {label.answer_sha256[:12]}…) already has a pass-"
                    f"{label.pass_number} label by {other.reviewer!r} in {self.path}: two reviewers' labels of one "
                    f"answer in one pass make 'evalgate gate' and 'evalgate agreement' refuse the file. Label it as "
                    f"pass {free} (an independent second label, for the agreement between reviewers), or label into a "
                    "file of your own",
                    other,
                    free,
                )
        return None

    def put(self, label: Label) -> Label:
        """Save ``label`` (the whole file atomically) and return it as saved.

        A label of the same reviewer, answer and pass already in the file is never replaced silently: the
        saved label's ``history`` holds it (and its own history), oldest first. Saving the very label that
        is already there changes nothing. Raises :class:`LabelConflict` when another reviewer has labelled
        the answer in this pass.
        """
        self.reload()
        problem = self.conflict(label)
        if problem is not None:
            raise problem
        before = self._labels.get(label.key)
        if before is not None:
            if replace(label, history=before.history, source=None) == replace(before, source=None):
                return before
            label = replace(label, history=(*before.history, before.earlier()))
        self._labels[label.key] = label
        atomic_write(self.path, dumps_labels(self._labels.values()))
        return label

    def labelled_keys(self, reviewer: str | None = None, pass_number: int | None = None) -> set[LabelKey]:
        """Keys already labelled (optionally by one reviewer / in one pass), to resume a session where it stopped."""
        return {
            key
            for key in self._labels
            if (reviewer is None or key[3] == reviewer) and (pass_number is None or key[4] == pass_number)
        }
