"""The scoring fast paths give exactly what the written-out rules give (issue 5 speed-ups).

``content_tokens`` is built line by line, from distinct tokens, with a memo per line;
``tokenize`` inlines the number normalisation. Both are checked against the plain
definitions on the whole corpus and on random text full of the awkward characters.
"""

from __future__ import annotations

import random
from pathlib import Path

from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import _CURLY, _TOKEN, _normalise_number, content_token_list, content_tokens, tokenize

ROOT = Path(__file__).resolve().parents[1]


def plain_tokens(text: str) -> list[str]:
    return [_normalise_number(t) for t in _TOKEN.findall(text.translate(_CURLY).lower())]


def plain_content_list(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for token in plain_tokens(text):
        if token not in STOPWORDS:
            seen.setdefault(token, None)
    return list(seen)


def samples() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "corpus").glob("*.md"))]
    texts += ["\n\n".join(texts[:4]), "", "\n", "\n\n\n", "1,000\n2,5", "don't\nknow", "ΣΑΣ\nΣ"]
    alphabet = "aAbZ z 0912١٢,,..''\u2019\u2018\u201c\"-$%\n\n\t\r éİΣ"
    rnd = random.Random(5)
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(20000)]
    return texts


def test_fast_paths_equal_the_plain_definitions():
    content_tokens.cache_clear()
    for text in samples():
        assert tokenize(text) == plain_tokens(text), text
        expected = plain_content_list(text)
        assert content_token_list(text) == expected, text
        assert content_tokens(text) == frozenset(expected), text
