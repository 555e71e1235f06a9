"""Typed result rows: what ``results.jsonl`` holds, as frozen dataclasses.

One row per (config, question). Every view (metrics, explorer, plots, report,
gate, agreement) reads these attributes instead of string keys, so a renamed or
missing field is an error at the one place rows are built, not a silent ``None``
in a chart. :meth:`ResultRow.to_json` and :meth:`ResultRow.from_json` are the
only conversion between the objects and the file; ``from_json(row.to_json())``
gives back an equal row, which a test checks on a real run.

Schema history (the row's ``schema`` field):

* 1 (implicit, no field): flags held ``review_reasons`` only; sentences had no reason.
* 2: every flag carries its reasons (``flags.reasons``), the correctness verdict its
  reason (``matching.reason``), every sentence verdict its reason, the supporting
  span and the scorer that judged it; ``review_reasons`` is gone (it is
  ``flags.reasons["review"]``). Every other field and value is unchanged.
* 3: the nine verdict fields (``correct``, ``refused``, ``matched``, ``matching``,
  ``sentences``, ``scorer``, ``groundedness``, ``confidence``, ``flags``) move, unchanged,
  into one ``judgement`` object: the row holds the :class:`Judgement` that
  :func:`~evalgate_lib.judging.answer.judge_answer` returns instead of repeating its fields.
  What was asked and retrieved stays at the top. Every value is unchanged.
* 4: verdicts have three outcomes. Every sentence verdict carries ``undecided`` (``supported`` is then the
  way it leans) instead of the optional ``doubtful``, and the correctness record ``matching`` carries
  ``undecided``. The ``prose`` scorer was version 2 then: it reads answers and passages through their markup,
  and its review queue reads no gold answer (version 3, same schema: an undecided verdict's lean follows
  the rest of its answer).
* 5: every verdict carries its trace. A sentence verdict has its ``role`` in the answer's one reading
  (:mod:`evalgate_lib.judging.reading`), the ``rule`` that decided it and every ``steps`` tried, each with its
  evidence (:class:`~evalgate_lib.judging.rules.Step`); the correctness record ``matching`` the same
  (``rule``, ``steps``); the flags their typed review ``causes``. Reasons are rendered from rule and evidence.
  The ``prose`` scorer is version 4 (the rebuilt judge, docs/judge.md).
* 6: a row is enough to recompute its verdicts: every retrieved chunk carries the ``text`` the prompt showed
  (a logged passage's too, whose ``start``/``end`` are -1 when it is not placed in the corpus), and every sentence
  verdict the number of the ``passage`` its span is in. The ``prose`` scorer is version 5 (claims aligned to the
  clause or cell they are about, their slots compared; rules run as tables).
* 7: the flags hold ``unsupported_claim`` (some sentence is judged unsupported, an undecided one leaning so
  included, whether the answer is right or wrong), its reasons the unsupported sentences, one each. It is read
  from the sentence verdicts the row already held: every other field and value is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from evalgate_lib.judging.rules import Step
from evalgate_lib.text.locate import Assembly

#: Version of the row layout written to ``results.jsonl`` (see the module docstring).
SCHEMA_VERSION = 7

#: The cut-offs at which chunk-level recall is reported.
RECALL_KS = (1, 3, 5, 10)

@dataclass(frozen=True)
class RetrievedChunk:
    """One chunk that went into the prompt: rank (1-based), provenance and cosine similarity.

    ``assembly`` is set only for a logged passage (``evalgate score``) made of spans of one or more
    articles: its pieces and the text that joined them; ``start`` and ``end`` are then -1. It is
    written to the row only when set, so rows of single-span chunks keep their bytes.
    """

    rank: int
    chunk_id: str
    article_id: str
    position: int
    start: int
    end: int
    similarity: float
    assembly: Assembly | None = None
    #: The title and text the prompt showed (``None`` only in a row built without them).
    text: str | None = None
    title: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rank": self.rank,
            "chunk_id": self.chunk_id,
            "article_id": self.article_id,
            "position": self.position,
            "start": self.start,
            "end": self.end,
            "similarity": self.similarity,
        }
        if self.assembly is not None:
            data["assembly"] = self.assembly.to_json()
        if self.title is not None:
            data["title"] = self.title
        if self.text is not None:
            data["text"] = self.text
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RetrievedChunk:
        kept = {k: data[k] for k in cls.__dataclass_fields__ if k not in ("assembly", "text", "title")}
        assembly = data.get("assembly")
        text, title = data.get("text"), data.get("title")
        return cls(
            **kept,
            assembly=None if assembly is None else Assembly.from_json(assembly),
            text=text if isinstance(text, str) else None,
            title=title if isinstance(title, str) else None,
        )

    def text_in(self, bodies: Mapping[str, str]) -> str | None:
        """The chunk's text rebuilt from article bodies (id → body); ``None`` when it cannot be.

        ``None`` when its article is not in ``bodies`` or a logged passage was not placed in it
        (``start`` -1 without an assembly); an assembly is rebuilt piece by piece with its joins.
        """
        if self.text is not None:
            return self.text
        if self.assembly is not None:
            return self.assembly.text(bodies)
        if self.start < 0 or self.article_id not in bodies:
            return None
        return bodies[self.article_id][self.start : self.end]


@dataclass(frozen=True)
class RetrievalScores:
    """Rank-aware retrieval metrics of one answerable question (see :mod:`evalgate_lib.retrieval.metrics`).

    ``recall`` and ``evidence_recall`` map each k of :data:`RECALL_KS` to the hit at k.
    The evidence fields are ``None`` when the gold question gives no evidence spans.
    """

    gold_rank: int | None
    reciprocal_rank: float
    recall: Mapping[int, bool]
    evidence_rank: int | None = None
    evidence_reciprocal_rank: float | None = None
    evidence_recall: Mapping[int, bool | None] = field(default_factory=lambda: {k: None for k in RECALL_KS})
    evidence_hit: bool | None = None
    evidence_coverage: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "gold_rank": self.gold_rank,
            "reciprocal_rank": self.reciprocal_rank,
            **{f"recall@{k}": self.recall[k] for k in RECALL_KS},
            "evidence_rank": self.evidence_rank,
            "evidence_reciprocal_rank": self.evidence_reciprocal_rank,
            **{f"evidence_recall@{k}": self.evidence_recall[k] for k in RECALL_KS},
            "evidence_hit": self.evidence_hit,
            "evidence_coverage": self.evidence_coverage,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RetrievalScores:
        return cls(
            gold_rank=data["gold_rank"],
            reciprocal_rank=data["reciprocal_rank"],
            recall={k: data[f"recall@{k}"] for k in RECALL_KS},
            evidence_rank=data["evidence_rank"],
            evidence_reciprocal_rank=data["evidence_reciprocal_rank"],
            evidence_recall={k: data[f"evidence_recall@{k}"] for k in RECALL_KS},
            evidence_hit=data["evidence_hit"],
            evidence_coverage=data["evidence_coverage"],
        )


@dataclass(frozen=True)
class MatchVerdict:
    """One matching rule's verdict: correct or not, and the accept string it matched (``None`` if none)."""

    correct: bool
    matched: str | None

    def to_json(self) -> dict[str, Any]:
        return {"correct": self.correct, "matched": self.matched}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> MatchVerdict | None:
        return None if data is None else cls(data["correct"], data["matched"])


@dataclass(frozen=True)
class Matching:
    """Every answer-matching rule's verdict, which one decides (``mode``), and why the decision is what it is.

    ``raw`` is EvalGate 0.1's substring rule, ``token`` the token-bounded one, ``normalised`` the
    normalised one (``token`` and ``normalised`` are ``None`` for a no-answer question).
    """

    mode: str
    raw: MatchVerdict
    normalised: MatchVerdict | None
    reason: str
    token: MatchVerdict | None = None
    #: The deciding rule could not decide: the verdict is the way it leans (:class:`Judgement` ``correct``).
    undecided: bool = False
    #: The id of the correctness rule that decided, and every rule tried with its evidence.
    rule: str = ""
    steps: tuple[Step, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "raw": self.raw.to_json(),
            "normalised": None if self.normalised is None else self.normalised.to_json(),
            "token": None if self.token is None else self.token.to_json(),
            "reason": self.reason,
            "undecided": self.undecided,
            "rule": self.rule,
            "steps": [step.to_json() for step in self.steps],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Matching:
        raw = MatchVerdict.from_json(data["raw"])
        assert raw is not None
        return cls(
            data["mode"],
            raw,
            MatchVerdict.from_json(data["normalised"]),
            data["reason"],
            MatchVerdict.from_json(data["token"]),
            bool(data["undecided"]),
            data["rule"],
            tuple(Step.from_json(step) for step in data["steps"]),
        )


@dataclass(frozen=True)
class SentenceVerdict:
    """How well the context supports one answer sentence, as judged by one sentence scorer.

    ``coverage`` is the scorer's support score in [0, 1] (for the lexical scorer, the
    share of the sentence's content tokens found in the context); ``None`` when the
    sentence claims nothing (a refusal, a bare label, only stopwords), in which case
    ``supported`` is ``None`` too. ``tokens`` are the content tokens that were checked,
    ``missing`` those the context lacked, ``span`` the context text that supports the
    sentence best (``None`` for scorers that look at the whole context at once), and
    ``reason`` says in words why the verdict is what it is.
    """

    text: str
    tokens: tuple[str, ...]
    missing: tuple[str, ...]
    coverage: float | None
    supported: bool | None
    refusal: bool = False
    span: str | None = None
    reason: str = ""
    #: The scorer could not decide: ``supported`` is only the way the verdict leans for the headline rates,
    #: and the sentence goes to the review queue (a near-miss paraphrase, a value held apart from its claim).
    undecided: bool = False
    #: The sentence's role in the answer's reading (``claim``, ``decline``, ``code`` …: judging/reading.py).
    role: str = "claim"
    #: The id of the rule that decided the verdict (a role rule for a sentence that claims nothing).
    rule: str = ""
    #: Every rule tried, in order, with its evidence: the last one decided.
    steps: tuple[Step, ...] = ()
    #: The number (1-based, in rank order) of the passage its span is in, when it has one.
    passage: int | None = None

    @property
    def claims(self) -> bool:
        """True when the sentence makes a claim the scorer checked."""
        return self.supported is not None

    @property
    def outcome(self) -> str:
        """The verdict in words, as every view shows it: ``supported``, ``unsupported``, ``undecided, leaning
        supported`` (or ``unsupported``), ``refusal`` or ``no claim``."""
        if self.supported is None:
            return "refusal" if self.refusal else "no claim"
        verdict = "supported" if self.supported else "unsupported"
        return f"undecided, leaning {verdict}" if self.undecided else verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "coverage": self.coverage,
            "supported": self.supported,
            "refusal": self.refusal,
            "tokens": list(self.tokens),
            "missing": list(self.missing),
            "span": self.span,
            "reason": self.reason,
            "undecided": self.undecided,
            "role": self.role,
            "rule": self.rule,
            "steps": [step.to_json() for step in self.steps],
            "passage": self.passage,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SentenceVerdict:
        return cls(
            text=data["text"],
            tokens=tuple(data["tokens"]),
            missing=tuple(data["missing"]),
            coverage=data["coverage"],
            supported=data["supported"],
            refusal=data["refusal"],
            span=data.get("span"),
            reason=data.get("reason", ""),
            undecided=bool(data["undecided"]),
            role=data["role"],
            rule=data["rule"],
            steps=tuple(Step.from_json(step) for step in data["steps"]),
            passage=data.get("passage"),
        )


@dataclass(frozen=True)
class Flags:
    """The five flags of one answer and, for each flag that fired, the reasons it fired.

    ``unsupported_claim`` needs no gold: the answer claims something the passages do not support, right answer
    or wrong (RAGAS's faithfulness counts the same sentences). ``hallucination`` is the wrong answers among them.

    ``reasons`` is the single source every view reads (explorer, plots, report):
    nothing recomputes why a flag fired from the thresholds.
    """

    wrong: bool
    hallucination: bool
    grounded_but_wrong: bool
    review: bool
    reasons: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Why the answer is in the review queue, as typed causes (``undecided``, ``declines_and_answers``,
    #: ``low_confidence``): what the queue's order reads; ``reasons["review"]`` says the same in words.
    causes: tuple[str, ...] = ()
    #: Some sentence is judged unsupported (an undecided one leaning so included); last, so the four older
    #: flags keep their positions.
    unsupported_claim: bool = False

    def fired(self, name: str) -> bool:
        """Whether flag ``name`` (one of :data:`FLAG_NAMES`) fired."""
        if name not in FLAG_NAMES:
            raise ValueError(f"unknown flag {name!r}; flags are {FLAG_NAMES}")
        return bool(getattr(self, name))

    def to_json(self) -> dict[str, Any]:
        return {
            **{name: getattr(self, name) for name in FLAG_NAMES},
            "reasons": {name: list(self.reasons[name]) for name in FLAG_NAMES if name in self.reasons},
            "causes": list(self.causes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Flags:
        return cls(
            **{name: data[name] for name in FLAG_NAMES},
            reasons={name: tuple(v) for name, v in data.get("reasons", {}).items()},
            causes=tuple(data["causes"]),
        )


#: The five flags, in the order every view lists them: the yes/no fields of :class:`Flags`, in their order
#: (``unsupported_claim`` last: it came with schema 7), so a flag is named in one place, its field.
FLAG_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Flags) if f.type in (bool, "bool"))


@dataclass(frozen=True)
class Judgement:
    """Every verdict on one answer, each with its reason: what :func:`~evalgate_lib.judging.answer.judge_answer`
    returns and what a result row holds.

    ``correct``, ``refused`` and ``matched`` are the deciding rule's verdict (``matching.mode``);
    ``matching`` also keeps every other rule's verdict side by side, for comparison.
    """

    correct: bool
    refused: bool
    matched: str | None
    matching: Matching
    sentences: tuple[SentenceVerdict, ...]
    groundedness: float | None
    confidence: float
    flags: Flags
    scorer: str

    @property
    def unsupported_sentences(self) -> list[str]:
        """Text of every sentence the scorer judged unsupported by the context (undecided ones leaning so included)."""
        return [s.text for s in self.sentences if s.supported is False]

    @property
    def correct_decided(self) -> bool:
        """The correctness verdict was decided (not a lean)."""
        return not self.matching.undecided

    @property
    def unsupported_decided(self) -> bool:
        """Whether "has an unsupported claim" was decided: some sentence is decided unsupported (then the
        answer has one, whatever else is undecided), or no claiming sentence is undecided."""
        if any(s.supported is False and not s.undecided for s in self.sentences):
            return True
        return not any(s.undecided for s in self.sentences)

    @property
    def hallucination(self) -> bool:
        return self.flags.hallucination

    @property
    def grounded_but_wrong(self) -> bool:
        return self.flags.grounded_but_wrong

    @property
    def review(self) -> bool:
        return self.flags.review

    @property
    def unsupported_claim(self) -> bool:
        return self.flags.unsupported_claim

    @property
    def reasons(self) -> Mapping[str, tuple[str, ...]]:
        """Why each flag fired (flag name → reasons), plus ``correct``: why the answer counts as (in)correct."""
        return {"correct": (self.matching.reason,), **self.flags.reasons}

    def to_json(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "refused": self.refused,
            "matched": self.matched,
            "matching": self.matching.to_json(),
            "sentences": [s.to_json() for s in self.sentences],
            "scorer": self.scorer,
            "groundedness": self.groundedness,
            "confidence": self.confidence,
            "flags": self.flags.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Judgement:
        return cls(
            correct=data["correct"],
            refused=data["refused"],
            matched=data["matched"],
            matching=Matching.from_json(data["matching"]),
            sentences=tuple(SentenceVerdict.from_json(s) for s in data["sentences"]),
            groundedness=data["groundedness"],
            confidence=data["confidence"],
            flags=Flags.from_json(data["flags"]),
            scorer=data["scorer"],
        )


@dataclass(frozen=True)
class ResultRow:
    """One published result: a (config, question) pair, what was retrieved, the answer and every verdict."""

    config: str
    question_id: str
    question: str
    type: str
    gold_article: str | None
    accept: tuple[str, ...]
    evidence: tuple[str, ...] | None
    answer: str
    prompt_sha256: str
    retrieved: tuple[RetrievedChunk, ...]
    top_similarity: float
    retrieval_hit: bool | None
    retrieval_metrics: RetrievalScores | None
    judgement: Judgement

    @property
    def answerable(self) -> bool:
        return self.type == "answerable"

    # Read-only shortcuts into the judgement, so a view can say ``row.correct``; the row stores each once.
    @property
    def correct(self) -> bool:
        return self.judgement.correct

    @property
    def refused(self) -> bool:
        return self.judgement.refused

    @property
    def matched(self) -> str | None:
        return self.judgement.matched

    @property
    def matching(self) -> Matching:
        return self.judgement.matching

    @property
    def sentences(self) -> tuple[SentenceVerdict, ...]:
        return self.judgement.sentences

    @property
    def groundedness(self) -> float | None:
        return self.judgement.groundedness

    @property
    def confidence(self) -> float:
        return self.judgement.confidence

    @property
    def flags(self) -> Flags:
        return self.judgement.flags

    @property
    def scorer(self) -> str:
        return self.judgement.scorer

    @property
    def unsupported_sentences(self) -> list[str]:
        """Text of every sentence the scorer judged unsupported."""
        return self.judgement.unsupported_sentences

    def to_json(self) -> dict[str, Any]:
        """The row as ``results.jsonl`` stores it (keys are sorted when written)."""
        return {
            "schema": SCHEMA_VERSION,
            "config": self.config,
            "question_id": self.question_id,
            "question": self.question,
            "type": self.type,
            "gold_article": self.gold_article,
            "accept": list(self.accept),
            "evidence": None if self.evidence is None else list(self.evidence),
            "answer": self.answer,
            "prompt_sha256": self.prompt_sha256,
            "retrieved": [r.to_json() for r in self.retrieved],
            "top_similarity": self.top_similarity,
            "retrieval_hit": self.retrieval_hit,
            "retrieval_metrics": None if self.retrieval_metrics is None else self.retrieval_metrics.to_json(),
            "judgement": self.judgement.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResultRow:
        """A row read back from ``results.jsonl``; refuses a schema this version does not know."""
        schema = data.get("schema")
        if schema != SCHEMA_VERSION:
            raise ValueError(
                f"result row schema {schema!r} is not {SCHEMA_VERSION}: rerun `evalgate run` with this version "
                "(the cache makes it fast) to rewrite the results folder"
            )
        metrics = data["retrieval_metrics"]
        return cls(
            config=data["config"],
            question_id=data["question_id"],
            question=data["question"],
            type=data["type"],
            gold_article=data["gold_article"],
            accept=tuple(data["accept"]),
            evidence=None if data["evidence"] is None else tuple(data["evidence"]),
            answer=data["answer"],
            prompt_sha256=data["prompt_sha256"],
            retrieved=tuple(RetrievedChunk.from_json(r) for r in data["retrieved"]),
            top_similarity=data["top_similarity"],
            retrieval_hit=data["retrieval_hit"],
            retrieval_metrics=None if metrics is None else RetrievalScores.from_json(metrics),
            judgement=Judgement.from_json(data["judgement"]),
        )


def row_passages(row: ResultRow) -> tuple[tuple[str, str], ...]:
    """The ``(title, text)`` of every passage the row's prompt showed, in rank order, from the row alone (schema 6):
    what its verdicts were judged against."""
    return tuple((chunk.title or chunk.chunk_id, chunk.text or "") for chunk in row.retrieved)
