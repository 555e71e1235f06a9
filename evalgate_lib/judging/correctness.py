"""Which answers are correct: the matching rules, each a visible function of strings.

Three containment rules are computed for every answer and recorded side by side
(``matching`` in a row); ``[shared] answer_matching`` picks the one that decides, or the
``claim`` rule below (the default), which reads the answer proper as a reviewer does:

* ``token``: an accepted string, case-insensitively, on token boundaries
  (:func:`token_bounded_match`): "3 seats" is not inside "13 seats", "10" not inside "10.5";
* ``raw``: EvalGate 0.1's plain case-insensitive substring rule (:func:`matched_accept`),
  kept so earlier figures stay reproducible;
* ``normalised``: token-bounded after :func:`~evalgate_lib.judging.normalise.normalise_text`
  (number words, units, money);
* ``claim``: reads the answer the way the labelling guide does for fluent prose
  (:func:`decide_claim`): declines are found in the wording capable models use, the
  accepted value must be stated outside any decline, and only a *competing* value given as
  the answer makes a correct answer wrong, not other values mentioned around it (for an accepted
  name or version, another name or version offered in its place: :func:`competing_values`).

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
from typing import Literal, Sequence

from evalgate_lib.inputs.config import ANSWER_MATCHING
from evalgate_lib.judging.discourse import (
    POLAR,
    coverage_topics,
    declining_clauses,
    is_background,
    is_courtesy,
    is_decline,
    is_sources_line,
    without_citations,
    without_source_frame,
)
from evalgate_lib.judging.normalise import normalise_text, ungroup_digits
from evalgate_lib.judging.phrases import phrase_found, setting_found
from evalgate_lib.judging.prose_support import QUESTION_WORDS, prose_terms
from evalgate_lib.judging.quantities import asked_unit, read_quantities
from evalgate_lib.judging.rows import Matching, MatchVerdict
from evalgate_lib.text.markup import read_inline
from evalgate_lib.text.matching import bounded_pattern
from evalgate_lib.text.tokens import answer_sentences

_NEW_QUESTION = re.compile(r"^\s*(?:\*\*)?(?:question|q)\s*\d*\s*[:.]", re.IGNORECASE | re.MULTILINE)
_VALUE_UNIT = re.compile(r"^\$?(\d+(?:\.\d+)?) ([a-z%]+)$")


def matched_accept(answer: str, accept: Sequence[str]) -> str | None:
    """First accepted string contained in ``answer``, case-insensitively (``casefold``); ``None`` if none is.

    An empty accept string never matches: it is contained in everything.
    """
    folded = answer.casefold()
    for candidate in accept:
        if candidate and candidate.casefold() in folded:
            return candidate
    return None


@dataclass(frozen=True)
class Correctness:
    """A correctness verdict and the reason for it, in words a reader can check against the answer."""

    correct: bool
    refused: bool
    matched: str | None
    reason: str = ""
    #: Undecided: ``correct`` is only the way the verdict leans (a decline that also answers, competing
    #: values, a match found only after normalisation ...); a person should confirm it.
    undecided: bool = False


def accept_list(accept: Sequence[str]) -> str:
    """The accepted strings as a verdict's reason quotes them."""
    return ", ".join(repr(a) for a in accept) or "(none)"


def correctness(
    answer: str, answerable: bool, accept: Sequence[str], refused: bool | None = None, question: str = ""
) -> Correctness:
    """Answerable: correct iff an accepted string is contained. No-answer: correct iff the answer declines.

    Containment is literal: "three seats" does not contain "3 seats". That limit is
    documented and visible; the ``normalised`` rule (:func:`match_answer`) reads numbers, units and money.
    Whether the answer declines is the one decline reading every rule shares (:func:`answer_declines`);
    ``refused`` passes it in when the caller has it already.
    """
    if refused is None:
        refused = answer_declines(answer, question)[0]
    if answerable:
        matched = matched_accept(answer, accept)
        if matched is not None:
            return Correctness(True, refused, matched, f"the answer contains the accepted string {matched!r}")
        if refused:
            return Correctness(False, True, None, "the question is answerable, but the answer is a refusal")
        reason = (
            f"the answer contains none of the accepted strings ({accept_list(accept)}); "
            "containment is literal and case-insensitive"
        )
        return Correctness(False, False, None, reason)
    if refused:
        return Correctness(True, True, None, "a no-answer question, and the answer is a refusal")
    return Correctness(
        False, False, None, "the question has no answer in the knowledge base, and the answer is not a refusal"
    )


@dataclass(frozen=True)
class MatchResult:
    """Verdict of :func:`match_answer`.

    ``matched`` is the original accept string (not its normalised form) that
    matched, or ``None``; ``mode`` says which rule decided, so raw and normalised
    verdicts are never confused in a report.
    """

    correct: bool
    matched: str | None
    mode: Literal["raw", "normalised"]


def _contains_tokens(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` on token boundaries (both normalised).

    Left boundary: start, a space or ``$`` (so ``12`` matches ``$12``); right
    boundary: end or a space (so ``3 seat`` is not inside ``13 seat`` and ``20`` is
    not inside ``20%``).
    """
    return re.search(r"(?:^|(?<=[ $]))" + re.escape(needle) + r"(?= |$)", haystack) is not None


def match_answer(answer: str, accept: Sequence[str], normalise: bool) -> MatchResult:
    """Is one of the ``accept`` strings in ``answer``? First match in ``accept`` order wins.

    * raw mode (``normalise=False``): case-insensitive substring containment, the
      methodology's rule (``str.casefold`` on both sides, no token boundaries).
    * normalised mode: ``normalise_text(accept)`` must occur in
      ``normalise_text(answer)`` on token boundaries, see :func:`_contains_tokens`.

    Accept strings that are empty (or normalise to nothing) never match: an empty
    string is contained in everything and would mark every answer correct.
    """
    if normalise:
        norm_answer = normalise_text(answer)
        for candidate in accept:
            norm = normalise_text(candidate)
            if norm and _contains_tokens(norm_answer, norm):
                return MatchResult(True, candidate, "normalised")
        return MatchResult(False, None, "normalised")
    matched = matched_accept(answer, accept)
    return MatchResult(matched is not None, matched, "raw")


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
    Thousands separators are read as the accepted string's are: "is 100,000." states "100,000 events".
    """
    sentences = answer_sentences(answer)
    if not sentences:
        return None
    first = ungroup_digits(sentences[0])  # as value_and_unit reads the accepted one ("100,000")
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


def decide_correctness(
    answer: str, answerable: bool, accept: Sequence[str], matching: str, question: str = ""
) -> Decision:
    """Every matching rule's verdict on ``answer``, and the deciding one (``matching``) with its reason.

    Every rule reads the answer proper (:func:`answer_part`) through its markup (:func:`read_answer`:
    "`C` and `CXX`" is "C and CXX"), and every rule takes whether the answer declines from the one
    decline reading (:func:`answer_declines`). ``question`` tells an answer from background there.
    """
    if matching not in ANSWER_MATCHING:
        raise ValueError(f"matching must be one of {ANSWER_MATCHING}, got {matching!r}")
    part = answer_part(answer)
    plain = read_answer(part)
    refused, why = answer_declines(part, question)
    raw = correctness(read_answer(answer), answerable, accept, refused)  # EvalGate 0.1's: anywhere in the answer
    if not answerable:
        verdict = decide_claim(part, (), question, answerable=False) if matching == "claim" else raw
        record = Matching(matching, MatchVerdict(raw.correct, None), None, verdict.reason, None, verdict.undecided)
        return Decision(verdict, record)
    token = token_bounded_match(plain, accept)
    normalised = match_answer(plain, accept, normalise=True)
    verdicts = {
        "raw": MatchVerdict(raw.correct, raw.matched),
        "token": MatchVerdict(token is not None, token),
        "normalised": MatchVerdict(normalised.correct, normalised.matched),
    }
    if matching == "raw":
        verdict = raw
    elif matching == "claim":
        verdict = decide_claim(part, accept, question)
    else:
        verdict = _apply_rules(plain, accept, refused, verdicts[matching], matching)
    record = Matching(
        matching, verdicts["raw"], verdicts["normalised"], verdict.reason, verdicts["token"], verdict.undecided
    )
    return Decision(verdict, record)


def read_answer(part: str) -> str:
    """The answer as every correctness rule reads it: each sentence through its markup, one per line."""
    return "\n".join(_plain_sentence(s) for s in answer_sentences(part))


def _plain_sentence(sentence: str) -> str:
    return read_inline(without_citations(sentence)).text.strip()


def answer_declines(part: str, question: str = "") -> tuple[bool, str]:
    """``(declines, why)``: the one decline reading, shared by every correctness rule and the sentence scorer's
    notion of a refusal (:func:`claim_refusal` over the answer's substantive sentences)."""
    return claim_refusal(_substantive(part), question)


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


# ---------------------------------------------------------------------------------------------
# The ``claim`` rule: correctness read from a fluent answer's claim about what was asked.

#: Share of the question's words a sentence must hold to read as (another) answer to it.
RESTATES_QUESTION = 0.75
#: Share of the question's words a sentence stating a value must hold to give that value as the answer.
VALUE_ABOUT_QUESTION = 0.5


#: Hedges that mark a sentence as background rather than the answer ("Typically, …", "It may …").
_HEDGE = re.compile(
    r"\b(?:typically|usually|generally|often|commonly|normally|in general|most|many|some|might|may|could|"
    r"probably|likely|possibly|perhaps|sometimes|depending|depends|if you|you can|you could|i'?d|i would|"
    r"recommend|suggest|check|contact|reach out|ask|consult|look (?:at|into|for)|visit|elsewhere|other)\b",
    re.IGNORECASE,
)


def _substantive(part: str) -> list[str]:
    """The answer's sentences that say something, read through their markup: courtesy, fences and source
    lists left out, citations removed."""
    out = []
    for sentence in answer_sentences(part):
        if sentence.lstrip().startswith(("```", "~~~")):
            continue
        plain = _plain_sentence(sentence).strip(" *_")
        if plain and not is_courtesy(plain) and not is_sources_line(plain):
            out.append(plain)
    return out


def answers_question(sentence: str, question: str, share: float = RESTATES_QUESTION, hedged_ok: bool = False) -> bool:
    """Is ``sentence`` phrased as the answer to ``question``, not hedged and not a decline?

    True for a yes/no opening, or when it restates the question: it holds :data:`RESTATES_QUESTION`
    of the question's words ("The Starter plan includes 5 seats" for "How many seats does the
    Starter plan include?", but not "A workspace can have up to 10 seats"), with no hedge (:data:`_HEDGE`).
    """
    if is_decline(sentence) or not hedged_ok and _HEDGE.search(sentence) or without_source_frame(sentence) != sentence:
        return False  # a decline, a hedge, or a report of what the context says ("It only explains that …")
    if POLAR.match(sentence):
        return True
    words, _ = prose_terms(sentence)
    asked = prose_terms(question)[0] - QUESTION_WORDS
    return bool(asked) and len(words & asked) >= share * len(asked)


def gives_value(sentence: str, question: str) -> bool:
    """Does ``sentence`` state a value (a number or identifier) about what was asked, as an answer?

    After a decline this is what turns "background" into "an answer given as the answer": a
    value, in a sentence about the question's subject (half its words), not a report of the context.
    """
    if not prose_terms(sentence)[1]:
        return False
    return answers_question(sentence, question, share=VALUE_ABOUT_QUESTION, hedged_ok=True)


def _reported_items(sentences: Sequence[str]) -> frozenset[int]:
    """The list items under a lead-in that reports the context ("They only mention that:"): reports too."""
    out: set[int] = set()
    reporting = False
    for i, sentence in enumerate(sentences):
        if _BULLET_MARK.match(sentence):
            if reporting:
                out.add(i)
            continue
        stripped = sentence.rstrip()
        reporting = stripped.endswith(":") and without_source_frame(stripped) != stripped
    return frozenset(out)


def claim_refusal(sentences: Sequence[str], question: str) -> tuple[bool, str]:
    """``(refused, why)``: does the answer decline, by the guide's reading of fluent answers?

    It declines when one of its sentences is a decline (:func:`~evalgate_lib.judging.discourse.is_decline`)
    and no sentence gives an answer as the answer (:func:`answers_question`): "I couldn't find it
    in the context. Usually …" declines; "The context doesn't say, but it is 5." does not.
    """
    declines = [i for i, s in enumerate(sentences) if is_decline(s)]
    if not declines:
        return False, "no sentence declines"
    # a decline's own clauses may answer too: "The context doesn't say, but it is 5 retries."
    pieces = [c for i in declines for c in declining_clauses(sentences[i])[1]]
    pieces += [s for i, s in enumerate(sentences) if i not in declines and i not in _reported_items(sentences)]
    # advice ("… would be your best bet") and general knowledge ("Many systems cap …") are background
    pieces = [s for s in pieces if not is_background(s)]
    unit = asked_unit(question)
    if unit is not None:  # "How much … in euros?": a value in euros answers it, one only in dollars does not
        units = {s: {u for _, u in read_quantities(s)[0]} for s in pieces}
        answered = [s for s in pieces if unit in units[s]]
        pieces = [s for s in pieces if not units[s]]
    else:
        answered = []
    answered += [s for s in pieces if answers_question(s, question) or gives_value(s, question)]
    if answered:
        return False, f"it declines, but also gives an answer: {answered[0]!r}"
    return True, f"it declines ({sentences[declines[0]]!r}) and gives no answer of its own"


#: A name a question asks for (an identifier with ``_``, a digit, an inner dot or capital: ``fix_sentence_endings``,
#: ``uuid4``, ``os.curdir``, ``HTTPDigestAuth``) and a version number (``3.8``); plain words are not names.
_NAME = re.compile(r"(?<![\w.$-])(?=[\w.]*(?:_|\d|[a-z][A-Z]|\w\.\w))[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?![\w$-])")
_WORD_NAME = r"\w+(?:\.\w+)*"
_BULLET_MARK = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")
_VERSION_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.])")


def _name_shape(text: str) -> re.Pattern[str] | None:
    """The pattern of the accepted string's kind when it is one name or one version number, else ``None``."""
    text = text.strip()
    for shape in (_VERSION_NUMBER, _NAME):
        if shape.fullmatch(text):
            return shape
    return None


def _competing_names(
    sentences: Sequence[str], shape: re.Pattern[str], accept: Sequence[str], question: str
) -> tuple[str, ...]:
    """Other names (or versions) of the accepted one's kind that the answer gives *as the answer*: a list
    item that is only names ("- uuid1" beside "- uuid4"), an alternative joined to it ("`uuid4` or
    `uuid1`"), or the same sentence again with another name in its place ("The option … is
    `break_long_words`." beside "The option … is `fix_sentence_endings`."). Names mentioned around the
    answer (an example's calls, a base class, the module it lives in) are not: a fluent answer names many.
    The question's own names, every accepted string, and a name that is part of an accepted one or holds it
    (``requests.auth.HTTPDigestAuth`` beside ``HTTPDigestAuth``) are never rivals."""
    folded_accept = [a.casefold().strip() for a in accept]
    asked = {m.casefold() for m in shape.findall(question)} | {m.casefold() for m in _NAME.findall(question)}

    def rival(name: str) -> bool:
        low = name.casefold()
        return low not in asked and not any(low in a or a in low for a in folded_accept)

    def frame(sentence: str) -> str:
        return re.sub(r"\s+", " ", shape.sub("#", _BULLET_MARK.sub("", sentence))).strip(" .:;").casefold()

    holding = [s for s in sentences if token_bounded_match(s, accept) is not None]
    frames: dict[str, set[str]] = {}  # a holding sentence's frame → the names it gives
    for s in holding:
        frames.setdefault(frame(s), set()).update(shape.findall(s))
    joined = [  # "uuid4 or uuid1", "`uuid1` or `uuid4`": a name offered beside the accepted one
        re.compile(
            rf"{re.escape(a)}\W{{0,3}}\s(?:or|and/or)\s\W{{0,3}}({_WORD_NAME})"
            rf"|({_WORD_NAME})\W{{0,3}}\sor\s\W{{0,3}}{re.escape(a)}",
            re.I,
        )
        for a in folded_accept
    ]
    found: list[str] = []
    for sentence in sentences:
        others = [n for n in shape.findall(sentence) if rival(n)]
        if not others:
            continue
        if sentence in holding:
            alternatives = {g for pattern in joined for m in pattern.finditer(sentence) for g in m.groups() if g}
            found += [n for n in others if n in alternatives]
            continue
        bare_item = bool(_BULLET_MARK.match(sentence)) and not (
            prose_terms(sentence)[0] - {w for n in shape.findall(sentence) for w in prose_terms(n)[0]}
        )
        if bare_item and any(_BULLET_MARK.match(s) for s in holding):
            found += others
        elif frame(sentence) in frames:  # the same sentence with another name where the accepted one stands
            found += [n for n in others if n not in frames[frame(sentence)]]
    return tuple(dict.fromkeys(found))


def competing_values(
    sentences: Sequence[str], accepted: str, question: str, accept: Sequence[str] = ()
) -> tuple[str, ...]:
    """Other values of the accepted string's unit that the answer gives *as the answer*.

    A value counts as competing when it stands in a bare list item or fragment (at most two
    words of its own: "2. 20 GB"), when it is offered as an alternative in the sentence that
    states the accepted value ("10 GB or 20 GB"), or when it stands in a sentence phrased as the
    answer to the question (:func:`answers_question`) that does not state the accepted value.
    Values mentioned around the answer ("3 seats are included; up to 10 in total") are not.
    When the accepted string is a name or a version (``uuid4``, ``3.8``), its rivals are other names or
    versions read as :func:`_competing_names` reads them; ``accept`` lists every accepted string, none a rival.
    """
    parsed = value_and_unit(accepted)
    money = re.fullmatch(r"\$(\d+(?:\.\d+)?)", normalise_text(accepted))
    shape = _name_shape(accepted) if parsed is None and money is None else None
    if shape is not None:
        return _competing_names(sentences, shape, accept or (accepted,), question)
    if parsed is not None:
        value, unit = parsed
        pattern = re.compile(r"(?<![\d.])\$?(\d+(?:\.\d+)?) " + re.escape(unit) + r"\b")
    elif money is not None:  # "$18": other dollar amounts are its rivals
        value, unit = money.group(1), "dollars"
        pattern = re.compile(r"\$(\d+(?:\.\d+)?)(?![\d.])")
    else:
        return ()
    asked, _ = prose_terms(question)
    unit_words = set(prose_terms(unit)[0])

    def subject(sentence: str) -> frozenset[str]:
        # the question's own words a fragment is labelled by ("| Business | 180 days |" → busi), not its unit
        words, exact = prose_terms(sentence)
        return frozenset((words - exact - unit_words) & asked)

    def own_words(sentence: str) -> int:
        words, exact = prose_terms(sentence)
        return len(words - exact)

    # a table or list of values per subject: when the accepted value's row names the question's subject,
    # a row that names none of the question's words is another subject's value, not a rival answer
    by_subject = any(
        value in pattern.findall(normalise_text(s)) and own_words(s) <= 3 and subject(s) for s in sentences
    )
    found: list[str] = []
    for sentence in sentences:
        normal = normalise_text(sentence)
        others = [v for v in pattern.findall(normal) if v != value]
        if not others:
            continue
        holds_accepted = value in pattern.findall(normal)
        words, exact = prose_terms(sentence)
        fragment = len(words - exact) <= 2 and not (by_subject and not holds_accepted and not subject(sentence))
        alternative = holds_accepted and re.search(r"\b(?:or|either)\b|/", sentence, re.IGNORECASE)
        rival = not holds_accepted and answers_question(sentence, question)
        if fragment or alternative or rival:
            found += [f"{v} {unit}" for v in others]
    return tuple(dict.fromkeys(found))


def decide_claim(part: str, accept: Sequence[str], question: str, answerable: bool = True) -> Correctness:
    """The ``claim`` rule's verdict on the answer proper ``part`` (see :func:`claim_refusal`, :func:`competing_values`).

    Answerable: correct when an accepted string (token-bounded, else after normalisation) is stated
    in a sentence that is not a decline, and no competing value is given as the answer; a decline
    with no accepted value is a refusal, hence wrong. No-answer: correct only when the answer declines.
    """
    sentences = _substantive(part)
    refused, why = claim_refusal(sentences, question)
    if not answerable:
        mixed = refused is False and why.startswith("it declines, but")
        if refused:
            # A decline followed by claims of its own (not statements of what the context says): the reviewer
            # must tell background from an answer given anyway ("… but you can use requests-unixsocket").
            claims = [
                t for t in sentences if not is_decline(t) and without_source_frame(t) == t and not coverage_topics(t)
            ]
            if claims:
                return Correctness(
                    True,
                    True,
                    None,
                    f"a no-answer question, and the answer declines: {why}; then it goes on ({claims[0]!r}): "
                    "background or an answer given anyway",
                    undecided=True,
                )
            return Correctness(True, True, None, f"a no-answer question, and the answer declines: {why}")
        return Correctness(
            False, False, None, f"the question has no answer in the knowledge base, and {why}", undecided=mixed
        )
    stated = "\n".join(s for s in sentences if not is_decline(s))
    found = token_bounded_match(stated, accept)
    how = "on token boundaries"
    if found is None:
        # normalisation is for values ("three seats" for "3 seats", "$18.00" for "$18"); an identifier
        # (".netrc", "[freeze]", "--python") stays exact: stripping its punctuation would change it
        values = [a for a in accept if re.search(r"\d", normalise_text(a))]
        normalised = match_answer(stated, values, normalise=True)
        found, how = normalised.matched, "after normalisation (number words, units, money)"
    if found is None:
        said = [s for s in sentences if not is_decline(s)]
        phrase = phrase_found(said, accept) or setting_found(said, accept)
        if phrase is not None:
            found, how = (
                phrase[0],
                f"in other words, in one clause ({phrase[1]!r}: every word of it, the same negation)",
            )
    if found is not None:
        rivals = competing_values(sentences, found, question, accept)
        if rivals:
            return Correctness(
                False,
                refused,
                found,
                f"the answer states {found!r} but also gives {', '.join(rivals)} as the answer (competing values)",
                undecided=True,
            )
        loose = refused or how.startswith("after normalisation")
        reason = f"the answer states {found!r} {how}, outside any decline"
        return Correctness(True, refused, found, reason, undecided=loose)
    if refused:
        return Correctness(False, True, None, f"the question is answerable, but the answer declines: {why}")
    bare = bare_number_match(stated, accept)
    if bare is not None:
        return Correctness(
            True,
            False,
            bare,
            f"the answer's first sentence states the number of {bare!r} without its unit",
            undecided=True,
        )
    return Correctness(
        False, False, None, f"the answer states none of the accepted strings ({accept_list(accept)}) outside a decline"
    )
