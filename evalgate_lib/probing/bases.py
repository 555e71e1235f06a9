"""Faithful answers to edit, built from a team's own documents and gold questions: no model, no labels.

For each answerable gold question with evidence, the **answer** is its gold evidence as a reader sees it (its
markup read, code spans kept in backticks, a table row written out with its column headings), and the
**passages** are what a good retriever returns for it: the chunk of the gold article that holds the evidence,
then its neighbours in that article (where the values and names of *other* subjects stand, which a swapped
edit takes), then the chunk of another article that shares most words with the question (a distractor), up to
``top_k``. The evidence is in the context by construction, so the unedited answer is faithful and every edit's
label is its construction. Sentences of the articles outside the passages are what a baseless addition draws on.

A probe built this way measures the judge on edits of the documentation's own sentences, in the team's own
domain — not on their model's answers, which read differently.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from evalgate_lib.chunks.chunking import Chunk, chunk_corpus
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.probing.edits import Base
from evalgate_lib.retrieval.metrics import locate_evidence
from evalgate_lib.text.markup import Block, iter_sentences_of_blocks, read_blocks

#: The chunking a probe cuts the corpus with, unless told otherwise: the shipped candidate's.
PROBE_CHUNKING: Mapping[str, object] = {"method": "markdown", "max_words": 250}
#: How many passages each faithful answer is given, as a run gives its prompt.
PROBE_TOP_K = 4

_WORD = re.compile(r"[a-z]{3,}")


def _with_code(block: Block, sentence: str) -> str:
    """``sentence`` of ``block`` with its code spans back in backticks, as a writer quoting the docs shows them."""
    out = sentence
    for code in sorted(set(block.code), key=len, reverse=True):
        if code and code in out and f"`{code}`" not in out:
            out = re.sub(rf"(?<![`\w]){re.escape(code)}(?![`\w])", lambda _, c=code: f"`{c}`", out, count=1)
    return out


def evidence_answer(evidence: Sequence[str]) -> str:
    """The gold evidence as a faithful answer: its sentences as read, a table row with its header written out
    ("Business — Seats: minimum 5, up to 500; Storage: 2 TB per seat"), code lines left out."""
    parts: list[str] = []
    for text in evidence:
        for block, sentence in iter_sentences_of_blocks(read_blocks(text)):
            if block.kind in ("code", "heading", "header", "signature") or not sentence.strip():
                continue
            if block.kind == "row":
                cells = [c.strip() for c in sentence.split(" | ")]
                header = [h.strip() for h in block.labels[-1].split(" | ")] if block.labels else []
                if len(header) == len(cells) and len(cells) > 1:
                    shown = "; ".join(f"{h}: {c}" for h, c in zip(header[1:], cells[1:], strict=True) if c)
                    parts.append(f"{cells[0]} — {shown}.")
                    continue
            parts.append(_with_code(block, sentence.strip()))
    return " ".join(p if p.endswith((".", "!", "?", ":")) else p + "." for p in parts)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _passages(
    question: GoldQuestion, spans: Sequence[tuple[int, int]], chunks: Sequence[Chunk], top_k: int
) -> list[Chunk]:
    own = [c for c in chunks if c.article_id == question.article]
    holding = [c for c in own if any(c.start < e and s < c.end for s, e in spans)]
    if not holding:
        return []
    picked = list(dict.fromkeys(holding))[:top_k]
    positions = {c.position for c in picked}
    by_position = {c.position: c for c in own}
    step = 1
    while len(picked) < top_k - 1 and step < len(own):
        for position in sorted(positions):
            for near in (position - step, position + step):
                chunk = by_position.get(near)
                if chunk is not None and chunk not in picked and len(picked) < top_k - 1:
                    picked.append(chunk)
        step += 1
    asked = _words(question.question)
    others = [c for c in chunks if c.article_id != question.article]
    if others and len(picked) < top_k:
        picked.append(max(others, key=lambda c: (len(asked & _words(c.text)), -c.position, c.article_id)))
    return picked


def article_sentences(article: Article) -> list[str]:
    """The sentences of an article's paragraphs (its tables and code aside), code spans in backticks: what a
    baseless addition is drawn from."""
    out = []
    for block, sentence in iter_sentences_of_blocks(read_blocks(article.body)):
        if block.kind == "paragraph" and sentence.rstrip().endswith(".") and "|" not in sentence:
            out.append(_with_code(block, sentence.strip()))
    return out


def evidence_bases(
    articles: Sequence[Article],
    questions: Sequence[GoldQuestion],
    *,
    chunking: Mapping[str, object] = PROBE_CHUNKING,
    top_k: int = PROBE_TOP_K,
    where: str = "gold",
) -> list[Base]:
    """One faithful answer per answerable gold question with evidence (module docstring), in gold order."""
    chunks = chunk_corpus(articles, chunking)
    bodies = {a.id: a.body for a in articles}
    sentences = {a.id: article_sentences(a) for a in articles}
    out = []
    for q in questions:
        if not q.answerable or not q.evidence or q.article not in bodies:
            continue
        spans = locate_evidence(bodies[q.article], q.evidence, where=f"{where}: question {q.id}")
        answer = evidence_answer(q.evidence)
        passages = _passages(q, spans, chunks, top_k)
        if not answer or not passages:
            continue
        used = {c.article_id for c in passages}
        elsewhere = tuple(s for article_id, found in sentences.items() if article_id not in used for s in found)
        out.append(
            Base(
                key=q.id,
                question=q.question,
                answer=answer,
                passages=tuple((c.title, c.text) for c in passages),
                accept=tuple(q.accept),
                elsewhere=elsewhere,
                source="evidence",
            )
        )
    return out
