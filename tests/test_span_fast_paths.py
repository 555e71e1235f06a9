"""The span scorer's fast paths give exactly what its written-out rules give.

Scoring speed (bench/run_bench.py, "scoring throughput") comes from reading each text
once: one tokenisation gives both a text's words and its exact tokens, a passage's spans
are unions of their lines' words instead of re-read joined texts, and only the spans
that can win are ranked. Each shortcut is checked here against the plain definition it
replaces, on the corpus and on random text full of awkward characters, as
``test_text_fast_paths.py`` does for the tokeniser.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from evalgate_lib.judging.span_support import (
    _EXACT,
    NUMBER_WORDS,
    Span,
    _best_span,
    _canonical_number,
    _passage,
    _requirements,
    claim_part,
    exact_tokens,
    passage_spans,
    stem,
    without_list_markers,
    words_of,
)

from evalgate_lib.text.tokens import content_token_list, fold, sentence_spans

ROOT = Path(__file__).resolve().parents[1]


def plain_words(text: str) -> frozenset[str]:
    return frozenset(NUMBER_WORDS.get(t, stem(t)) for t in content_token_list(without_list_markers(text)))


def plain_exact(text: str) -> frozenset[str]:
    folded = fold(without_list_markers(text))
    found = {_canonical_number(m.group().rstrip(".")) for m in _EXACT.finditer(folded)}
    found |= {NUMBER_WORDS[t] for t in re.findall(r"[a-z]+", folded) if t in NUMBER_WORDS}
    return frozenset(t for t in found if t)


def plain_passage_spans(index: int, title: str, text: str) -> list[Span]:
    """Each span's joined text read whole, as the rule in ``passage_spans`` states it."""
    spans, heading, header, previous = [], "", "", ""
    for start, end in sentence_spans(text):
        unit = text[start:end]
        if re.match(r"^\s*#{1,6}\s+\S", unit):
            heading, header = unit, ""
        elif re.match(r"^\s*\|?\s*:?-{3,}", unit) and re.match(r"^\s*\|", previous):
            header = previous
        else:
            if not re.match(r"^\s*\|", unit):
                header = ""
            piece = "\n".join([*[p for p in (title, heading, header) if p and p != unit], unit])
            spans.append(Span(index, piece, plain_words(piece), plain_exact(piece)))
        previous = unit
    if not spans:
        piece = "\n".join([title, heading]).strip()
        spans.append(Span(index, piece, plain_words(piece), plain_exact(piece)))
    return spans


def corpus() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((ROOT / "corpus").glob("*.md"))]


def random_texts(rnd: random.Random, count: int) -> list[str]:
    alphabet = "aAbZ z 0912١,,..''\u2019\u201c\"-_/$%\n\n\t éİΣ#|*:?()[]1. 2) three one's v2.5 pip.conf --x"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60))) for _ in range(count)]


def test_words_and_exact_tokens_equal_the_plain_definitions() -> None:
    texts = [line for doc in corpus() for line in doc.split("\n")] + random_texts(random.Random(3), 5000)
    texts += ["one's three", "v2.5 notes", "1. 10 GB 2. 20 GB", "PIP_INDEX_URL", "1,000 and 2,5", "--no-cache-dir"]
    for text in texts:
        assert words_of(text) == plain_words(text), text
        assert exact_tokens(text) == plain_exact(text), text


def test_passage_spans_equal_the_spans_read_whole() -> None:
    rnd = random.Random(4)
    titles = ["", "Plans (2026)", "Release v2.5", "pip.conf", "Three seats", "1. Intro", "## Heading"]
    passages = []
    for doc in corpus():
        lines = doc.split("\n")
        for _ in range(15):
            start = rnd.randrange(len(lines))
            passages.append((rnd.choice(titles), "\n".join(lines[start : start + rnd.randint(1, 25)])))
    passages += [(rnd.choice(titles), text) for text in random_texts(rnd, 1000)]
    for title, text in passages:
        assert list(passage_spans(2, title, text)) == plain_passage_spans(2, title, text), (title, text)


def test_only_spans_that_can_win_are_ranked() -> None:
    """``_best_span`` skips spans holding nothing beyond the title; the plain ``max`` over all spans agrees."""
    rnd = random.Random(5)
    docs = corpus()
    titles = ["Plans", "Release v2.5", "Plan 10 and three seats", ""]
    words = [w for doc in docs for w in doc.split()]
    # Lines whose numbers a title like "Release v2.5" holds as a word but not as an exact token.
    lines_with_numbers = ["Ok.", "Upgrades ship in 2.5 now.", "| Free | 10 |", "The cap is three.", "## Limits"]
    checked = 0
    for _ in range(1500):
        context = []
        for _ in range(rnd.randint(1, 4)):
            lines = rnd.choice([*docs, "\n".join(lines_with_numbers)]).split("\n")
            start = rnd.randrange(len(lines))
            context.append((rnd.choice(titles), "\n".join(lines[start : start + rnd.randint(1, 12)])))
        claim_words = [rnd.choice(words) for _ in range(rnd.randint(0, 8))]
        sentence = " ".join(claim_words + rnd.sample(["2.5", "10", "three", "Enterprise", "plan"], rnd.randint(1, 2)))
        question = rnd.choice(["How many seats on the Enterprise plan?", "Which release?", "Is it free?"])
        claim, _ = claim_part(sentence, question)
        if claim is None:
            continue
        need, _ = _requirements(claim, question)
        passages = [_passage(title, text) for title, text in context]
        every_span = [Span(i, *unit) for i, passage in enumerate(passages) for unit in passage.units]
        expected = max(every_span, key=lambda span: need.rank(span.text, span.words, span.exact))
        assert _best_span(need, passages) == expected, (sentence, question, context)
        checked += 1
    assert checked > 1000
