"""Which answers are correct: the matching rules, each a visible function of strings.

Three containment rules are computed for every answer and recorded side by side
(``matching`` in a row); ``[shared] answer_matching`` picks the one that decides:

* ``token`` (default): an accepted string, case-insensitively, on token boundaries
  (:func:`token_bounded_match`): "3 seats" is not inside "13 seats", "10" not inside "10.5";
* ``raw``: the seed's plain case-insensitive substring rule (:func:`~evalgate_lib.judging.scoring.matched_accept`),
  kept so earlier figures stay reproducible;
* ``normalised``: token-bounded after :func:`~evalgate_lib.judging.normalise.normalise_text`
  (number words, units, money).

Under ``token`` and ``normalised`` two more rules apply, each with its reason:

* **conflicting values** (:func:`conflicting_values`): an answer that states the accepted
  value and also another value of the same unit ("1. 10 GB 2. 20 GB 3. 5 GB") is wrong;
* **bare number** (:func:`bare_number_match`): when the accepted string is a number with a
  unit ("10 seats") and the answer's opening states the number with no unit ("The maximum
  is 10."), it is correct.

Both rules and the token matching read only the answer proper (:func:`answer_part`): the text
before the model starts writing a new "Question:" line of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from evalgate_lib.inputs.config import ANSWER_MATCHING
from evalgate_lib.judging.normalise import match_answer, normalise_text
from evalgate_lib.judging.rows import Matching, MatchVerdict
from evalgate_lib.judging.scoring import Correctness, accept_list, correctness
from evalgate_lib.text.matching import bounded_pattern
from evalgate_lib.text.tokens import sentences_of

_NEW_QUESTION = re.compile(r"^\s*(?:\*\*)?(?:question|q)\s*\d*\s*[:.]", re.IGNORECASE | re.MULTILINE)
_VALUE_UNIT = re.compile(r"^\$?(\d+(?:\.\d+)?) ([a-z%]+)$")


def answer_part(answer: str) -> str:
    """The answer proper: everything before the first line where the model starts a new "Question:"."""
    found = _NEW_QUESTION.search(answer)
    if found is None or not answer[: found.start()].strip():
        return answer
    return answer[: found.start()]


def token_bounded_match(answer: str, accept: Sequence[str]) -> str | None:
    """First accepted string found in ``answer`` case-insensitively with no letter or digit glued to its ends.

    An edge that is itself punctuation (``$10``, ``--no-cache-dir``) needs no boundary there.
    """
    folded = answer.casefold()
    for candidate in accept:
        needle = candidate.casefold().strip()
        if needle and bounded_pattern(needle).search(folded):
            return candidate
    return None


def value_and_unit(accept: str) -> tuple[str, str] | None:
    """``("10", "gb")`` for an accepted string that is one number with one unit ("10 GB", "3 seats"), else ``None``."""
    found = _VALUE_UNIT.match(normalise_text(accept))
    return (found.group(1), found.group(2)) if found else None


def conflicting_values(answer: str, accepted: str) -> tuple[str, ...]:
    """Other values the answer gives in the accepted string's unit ("20 gb", "5 gb" beside "10 gb"); empty if none."""
    parsed = value_and_unit(accepted)
    if parsed is None:
        return ()
    value, unit = parsed
    found = re.findall(r"(?<![\d.])\$?(\d+(?:\.\d+)?) " + re.escape(unit) + r"\b", normalise_text(answer))
    return tuple(dict.fromkeys(f"{v} {unit}" for v in found if v != value))


def bare_number_match(answer: str, accept: Sequence[str]) -> str | None:
    """The first "number + unit" accepted string whose number the answer's first sentence states bare.

    Bare means followed by the end, a full stop, comma, bracket or line end: "The maximum
    number of seats is 10." states 10 for "10 seats"; "10 users" states another unit and does not.
    """
    sentences = sentences_of(answer)
    if not sentences:
        return None
    first = sentences[0]
    for candidate in accept:
        parsed = value_and_unit(candidate)
        if parsed and re.search(rf"(?<![\w.$,]){re.escape(parsed[0])}(?=\s*(?:[.,;)!]|$))", first):
            return candidate
    return None


@dataclass(frozen=True)
class Decision:
    """The deciding verdict and the record of every rule's verdict."""

    verdict: Correctness
    matching: Matching


def decide_correctness(answer: str, answerable: bool, accept: Sequence[str], matching: str) -> Decision:
    """Every matching rule's verdict on ``answer``, and the deciding one (``matching``) with its reason."""
    if matching not in ANSWER_MATCHING:
        raise ValueError(f"matching must be one of {ANSWER_MATCHING}, got {matching!r}")
    raw = correctness(answer, answerable, accept)
    if not answerable:
        record = Matching(matching, MatchVerdict(raw.correct, None), None, raw.reason, None)
        return Decision(raw, record)
    part = answer_part(answer)
    token = token_bounded_match(part, accept)
    normalised = match_answer(part, accept, normalise=True)
    verdicts = {
        "raw": MatchVerdict(raw.correct, raw.matched),
        "token": MatchVerdict(token is not None, token),
        "normalised": MatchVerdict(normalised.correct, normalised.matched),
    }
    if matching == "raw":
        verdict = raw
    else:
        verdict = _apply_rules(part, accept, raw.refused, verdicts[matching], matching)
    record = Matching(matching, verdicts["raw"], verdicts["normalised"], verdict.reason, verdicts["token"])
    return Decision(verdict, record)


def _apply_rules(part: str, accept: Sequence[str], refused: bool, found: MatchVerdict, mode: str) -> Correctness:
    how = "on token boundaries" if mode == "token" else "after normalisation (number words, units, money)"
    if found.matched is not None:
        others = conflicting_values(part, found.matched)
        if others:
            return Correctness(
                False,
                refused,
                found.matched,
                f"the answer gives {found.matched!r} but also {', '.join(others)} for the same quantity "
                "(conflicting values)",
            )
        return Correctness(True, refused, found.matched, f"the answer contains {found.matched!r} {how}")
    if refused:
        return Correctness(False, True, None, "the question is answerable, but the answer is a refusal")
    bare = bare_number_match(part, accept)
    if bare is not None:
        return Correctness(
            True, False, bare, f"the answer's first sentence states the number of {bare!r} without its unit"
        )
    return Correctness(
        False, False, None, f"the answer contains none of the accepted strings ({accept_list(accept)}) {how}"
    )
