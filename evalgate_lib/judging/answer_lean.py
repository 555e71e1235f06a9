"""Which way an answer's undecided sentence verdicts lean, read from the rest of the answer.

A sentence scorer leaves a verdict *undecided* when its rules cannot tell (a near-miss paraphrase,
a value held apart from the rest of its claim); the verdict then leans one way for the headline
rates, and the sentence goes to the review queue either way. Each kind leans unsupported by
default. That lean is right for a generator that assembles claims from the context's words in a
wrong relation, and wrong for a writer whose other claims all check out: measured on the labelled
sets, the undecided sentences of fluent answers are mostly supported, those of the demo model's
looping or cut-off answers mostly not (docs/methodology.md has the figures).

So an answer's undecided verdicts lean *supported* when the answer itself is evidence that its
writer paraphrases faithfully, from what a production log holds (no gold answer, no label):

* no sentence of it is decided unsupported;
* at least :data:`TRACK_RECORD` of its claims in its own words are decided supported (a verbatim
  copy, a code line or a bare answer fragment shows nothing about paraphrasing);
* those outnumber, or equal, its undecided verdicts leaning unsupported;
* it reads as one coherent generation: no sentence repeated or nearly repeated
  (:data:`NEAR_REPEAT` of its words inside another sentence's), and not cut off mid-sentence.

Only the lean changes: the verdicts stay undecided, keep their reasons (with the lean's reason
added) and go to the review queue as before.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from evalgate_lib.judging.rows import SentenceVerdict

#: How many claims in its own words an answer must have decided supported before its undecided ones lean supported.
TRACK_RECORD = 2

#: A sentence with this share of its words inside another sentence of the same answer repeats it (a looping generation).
NEAR_REPEAT = 0.85

#: Sentences shorter than this (in words) are not compared for repetition: list items and labels repeat by design.
REPEAT_WORDS = 5

#: Supporting reasons that show nothing about how faithfully the writer paraphrases.
_NOT_OWN_WORDS = ("copied verbatim", "a command or code line", "an answer fragment")

#: How a complete answer ends: a sentence end, a closing bracket, quote, code fence or table row, or a colon.
_COMPLETE_END = re.compile(r"""[.!?)\]}"'`*|:]\s*$""")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
_WORD = re.compile(r"[a-z0-9]+")


def degenerate(sentences: Sequence[SentenceVerdict], answer: str) -> str | None:
    """Why ``answer`` does not read as one coherent generation, or ``None`` when it does."""
    if answer.strip() and not _COMPLETE_END.search(answer.rstrip()):
        return "the answer is cut off mid-sentence"
    words = [set(_WORD.findall(_BULLET.sub("", s.text).lower())) for s in sentences]
    words = [w for w in words if len(w) >= REPEAT_WORDS]
    for i, one in enumerate(words):
        for j, other in enumerate(words):
            if i != j and len(one & other) >= NEAR_REPEAT * len(one):
                return "a sentence repeats another"
    return None


def lean_by_answer(sentences: Sequence[SentenceVerdict], answer: str) -> tuple[SentenceVerdict, ...]:
    """``sentences`` with their undecided verdicts leaning supported when the rest of the answer vouches for them
    (the rules of the module docstring); otherwise unchanged."""
    if any(s.supported is False and not s.undecided for s in sentences):
        return tuple(sentences)
    leaning = [s for s in sentences if s.undecided and s.supported is False]
    own = [s for s in sentences if s.supported is True and not s.undecided and not s.reason.startswith(_NOT_OWN_WORDS)]
    if not leaning or len(own) < TRACK_RECORD or len(leaning) > len(own) or degenerate(sentences, answer):
        return tuple(sentences)
    why = (
        f"; leans supported: {len(own)} other claims of this answer in its own words are decided supported, "
        "none is decided unsupported, and it reads as one coherent generation"
    )
    flip = {id(s) for s in leaning}
    return tuple(
        dataclasses.replace(s, supported=True, reason=s.reason + why) if id(s) in flip else s for s in sentences
    )
