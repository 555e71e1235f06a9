"""One reading of the question: what it asks about, what it names, and how a sentence relates to it.

Support and correctness both ask how an answer's sentence stands to the question: does it restate it, is it
about it, does it answer it in the unit asked for? They read the question here, once, by the same rules:

* its **asked words** — its counted words less the words that ask (the lexicon's ``question_words``);
* its **subjects** — the names it gives with a capital inside the sentence ("Business", "Enterprise");
* its **premise** — its exact tokens (the names and values it takes for granted, ``os.homedir()``);
* whether it is a **yes/no question** (it opens on an auxiliary: "Does …", "Can I …");
* the **unit** it asks its answer in ("in euros", "how many days").

A sentence holding :data:`ABOUT_QUESTION` of the asked words is about the question; one holding
:data:`RESTATES_QUESTION` of them restates it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.normalise import normalise_text
from evalgate_lib.judging.rules import share
from evalgate_lib.judging.terms import stem, terms_of
from evalgate_lib.text.tokens import fold

#: Share of the question's asked words a sentence must hold to be about the question: to give a value as the
#: answer to it (correctness), or to restate it so that its subject is the question's (support).
ABOUT_QUESTION = 0.5
#: Share of the question's asked words a sentence must hold to restate it: to answer it in its own terms, or to
#: assert or deny a yes/no question.
RESTATES_QUESTION = 0.75

_CAPITALISED = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]\w*")


@dataclass(frozen=True)
class Question:
    """The question as read (module docstring)."""

    text: str
    asked: frozenset[str]
    subjects: frozenset[str]
    premise: frozenset[str]
    polar: bool
    unit: str | None

    def about(self, words: frozenset[str]) -> float:
        """The share of the asked words that ``words`` hold."""
        return share(words & self.asked, self.asked) if self.asked else 0.0


def _asked_unit(text: str) -> str | None:
    tokens = normalise_text(text.replace("€", " euro "), number_words=False).split()
    for i, token in enumerate(tokens[:-1]):
        following = tokens[i + 1]
        if token == "in" and following in lx.UNITS:
            return following
        if token == "in" and following == "us" and i + 2 < len(tokens) and tokens[i + 2] in lx.UNITS:
            return tokens[i + 2]
        if token == "many" and i and tokens[i - 1] == "how" and following in lx.UNITS:
            return following
    return None


@lru_cache(maxsize=4096)
def read_question(text: str) -> Question:
    """The one reading of a question (module docstring)."""
    terms = terms_of(text)
    asking = {stem(w) for w in lx.QUESTION_WORDS}
    asked = frozenset(w for w in terms.words if w not in asking)
    subjects = frozenset(stem(fold(w)) for w in _CAPITALISED.findall(text)) - asking
    premise = terms.exact | frozenset(e.rsplit(".", 1)[1] for e in terms.exact if "." in e.strip("."))
    first = lx.reading_tokens(text)[:1]
    return Question(text, asked, subjects, premise, bool(first) and first[0] in lx.AUXILIARIES, _asked_unit(text))
