"""Which answers are correct: four matching rules, one per name, each a visible function of strings.

``[shared] answer_matching`` picks the rule that decides; every row records all four verdicts side by side
(``matching``), each computed by the same function that decides when its name is chosen, so a recorded
verdict always equals what that rule decides:

* ``raw`` — EvalGate 0.1's rule, kept so earlier figures stay reproducible: an accepted string contained
  anywhere in the answer, case-insensitively; a no-answer question is correct when the answer declines.
* ``token`` — an accepted string on token boundaries ("3 seats" is not inside "13 seats") in what the answer
  states: the answer proper (before a "Question:" the model starts itself), read through its markup, outside
  its declines.
* ``normalised`` — the same after :func:`~evalgate_lib.judging.normalise.normalise_text` (number words, units,
  money): "three seats" states "3 seats".
* ``claim`` (the default) — the answer read as the labelling guide reads it, an ordered table of named rules
  (:data:`CLAIM_RULES`): does it decline or give an answer; is an accepted string stated in it, in its own
  words, or as a bare number; does it give a competing value as the answer.

Whether an answer declines, and whether it also gives an answer, is read from the answer's one reading
(:mod:`evalgate_lib.judging.reading`) with the question and nothing else: the review queue reads the same
decision without the gold answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from evalgate_lib.inputs.config import ANSWER_MATCHING
from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.normalise import normalise_text, ungroup_digits
from evalgate_lib.judging.question import ABOUT_QUESTION, RESTATES_QUESTION, read_question
from evalgate_lib.judging.reading import AnswerReading, Clause, Sentence, read_answer
from evalgate_lib.judging.rows import Matching, MatchVerdict
from evalgate_lib.judging.rules import ABSTAINS, Rule, Step, render, share
from evalgate_lib.judging.terms import quantities, terms_of
from evalgate_lib.text.matching import bounded_pattern
from evalgate_lib.text.tokens import fold

CLAIM_RULES: Mapping[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule(
            "C.declines",
            "an answer that declines and gives no answer of its own is a refusal: correct only "
            "for a no-answer question",
            "I couldn't find that in the context. The sections cover A and B.",
            "{verdict}: it declines ({decline!r}) and gives no answer of its own",
        ),
        Rule(
            "C.answers",
            "an answer to a no-answer question that gives an answer as the answer is wrong, "
            "whether or not it also declines",
            "The context doesn't say, but it is 5 retries.",
            "the question has no answer in the knowledge base, and the answer gives one: {answer!r}",
            "question.RESTATES_QUESTION, question.ABOUT_QUESTION",
        ),
        Rule(
            "C.stated",
            "an accepted string stated on token boundaries, outside any decline, makes it correct",
            "'Starter includes 3 seats.' for '3 seats'",
            "the answer states {matched!r} on token boundaries, outside any decline",
        ),
        Rule(
            "C.normalised",
            "an accepted value stated after normalisation (number words, units, money) makes it correct, undecided",
            "'three seats' for '3 seats'",
            "the answer states {matched!r} after normalisation (number words, units, money)",
        ),
        Rule(
            "C.phrase",
            "a short accepted phrase stated in other words in one clause (every word, the same "
            "negation), or a keyword setting stated in words, makes it correct",
            "'it isn't safe' for 'not safe'; 'use allow_redirects to enable redirects' for 'allow_redirects=True'",
            "the answer states {matched!r} in other words, in one clause ({clause!r})",
        ),
        Rule(
            "C.bare",
            "the lead sentence stating an accepted number with no unit makes it correct, undecided",
            "'The maximum is 10.' for '10 seats'",
            "the answer's lead states the number of {matched!r} without its unit",
        ),
        Rule(
            "C.polarity",
            "a yes/no answer opening on the opposite of what its accepted string says is wrong, undecided",
            "'No, …' where the accepted string is 'yes' or negates nothing it should",
            "the answer states {matched!r} but opens on {answer!r} where the accepted answer is {accepted!r}",
        ),
        Rule(
            "C.competing",
            "an answer that states an accepted value but gives another of its kind as the answer is wrong, undecided",
            "'1. 10 GB 2. 20 GB' for '10 GB'",
            "the answer states {matched!r} but also gives {rivals} as the answer (competing values)",
        ),
        *(
            Rule(f"M.{name}", f"the {name} matching rule alone, when a run chooses it: {what}", example, "{why}")
            for name, what, example in (
                (
                    "raw",
                    "an accepted string contained anywhere, case-insensitively (EvalGate 0.1)",
                    "'Pro includes 13 seats.' contains '3 seats'",
                ),
                (
                    "token",
                    "an accepted string on token boundaries in what the answer states, outside its declines",
                    "'Starter includes 3 seats.' for '3 seats'",
                ),
                (
                    "normalised",
                    "the same after normalising number words, units and money",
                    "'three seats' for '3 seats'",
                ),
            )
        ),
        Rule(
            "C.none",
            "an answer that states no accepted string is wrong",
            "'Starter includes 5 seats.' for '3 seats'",
            "the answer states none of the accepted strings ({accept}) outside a decline",
        ),
    )
}


@dataclass(frozen=True)
class Correctness:
    """A correctness verdict, the rule that decided it and its steps; ``undecided``: a person should confirm it."""

    correct: bool
    refused: bool
    matched: str | None
    rule: str
    steps: tuple[Step, ...]
    undecided: bool = False

    @property
    def reason(self) -> str:
        return render(CLAIM_RULES, self.steps[-1]) if self.steps else ""


def accept_list(accept: Sequence[str]) -> str:
    """The accepted strings as a verdict's reason quotes them."""
    return ", ".join(repr(a) for a in accept) or "(none)"


def matched_accept(answer: str, accept: Sequence[str]) -> str | None:
    """First accepted string contained in ``answer``, case-insensitively; ``None`` if none is (an empty one never)."""
    folded = answer.casefold()
    return next((a for a in accept if a and a.casefold() in folded), None)


def token_bounded_match(text: str, accept: Sequence[str]) -> str | None:
    """First accepted string found in ``text`` case-insensitively with no letter or digit glued to its ends."""
    folded = fold(text)
    for candidate in accept:
        needle = fold(candidate).strip()
        if needle and bounded_pattern(needle).search(folded):
            return candidate
    return None


def normalised_match(text: str, accept: Sequence[str]) -> str | None:
    """First accepted string whose normalised form occurs in ``text``'s on token boundaries (``$`` a left one)."""
    normal = normalise_text(text)
    for candidate in accept:
        needle = normalise_text(candidate)
        if needle and re.search(r"(?:^|(?<=[ $]))" + re.escape(needle) + r"(?= |$)", normal):
            return candidate
    return None


# --------------------------------------------------------------------------------------------- does it answer?


def answers(clause: Clause, question: str) -> bool:
    """Does ``clause`` give an answer to ``question`` as the answer (no gold read)?

    A claiming clause that is not background (a hedge, a referral, a condition) and does not report what the
    context says answers when it asserts or denies a yes/no question (a yes/no opening, or
    :data:`~evalgate_lib.judging.question.RESTATES_QUESTION` of its words), restates the question with something
    added, states a value or name the question does not give in a clause about it
    (:data:`~evalgate_lib.judging.question.ABOUT_QUESTION` of its words), or draws a conclusion about it ("so X is
    not supported"). When the question asks for a unit ("in euros"), a value in that unit answers it and a value
    only in another unit does not. A clause the writer offers from its own knowledge ("From my general knowledge,
    pip has a separate --client-cert option for this") answers when it names something: it is given in the
    context's place, whether or not it repeats the question's words.
    """
    if clause.role not in ("claim", "polar") or clause.reported or clause.background and not clause.conclusion:
        return False
    if clause.own_knowledge:
        named = terms_of(clause.text)
        return bool(named.exact or named.quantities)
    asked = read_question(question)
    if clause.role == "polar":
        return asked.polar
    if not asked.asked:
        return False
    said = terms_of(clause.text)
    if asked.unit is not None and said.quantities:
        return any(u == asked.unit for _, u in said.quantities)
    held = asked.about(said.words)
    first = lx.reading_tokens(clause.text)[:1]
    if asked.polar and (first and first[0] in lx.POLAR or held >= RESTATES_QUESTION):
        return True
    if held >= RESTATES_QUESTION and said.words - asked.asked:
        return True
    new = (said.exact | {n for n, _ in said.quantities}) - asked.premise
    return held >= ABOUT_QUESTION and (bool(new) or clause.conclusion)


@dataclass(frozen=True)
class Declining:
    """The one decline reading: whether the answer declines, the decline, and the clause that answers anyway."""

    declines: bool
    decline: str
    answer: str

    @property
    def refused(self) -> bool:
        return self.declines and not self.answer

    @property
    def mixed(self) -> bool:
        """It declines and answers in one breath: the review queue reads this (no gold)."""
        return self.declines and bool(self.answer)


def declining(reading: AnswerReading) -> Declining:
    """Whether the answer proper declines and whether it also gives an answer (:func:`answers`)."""
    clauses = [c for s in reading.proper if s.repeats is None for c in s.clauses]
    decline = next((c.text for c in clauses if c.role == "decline"), "")
    if not decline:
        return Declining(False, "", "")
    answer = next((c.text for c in clauses if answers(c, reading.question)), "")
    return Declining(True, decline, answer)


# --------------------------------------------------------------------------------------------- stated values


def _stating(reading: AnswerReading) -> list[Sentence]:
    """The sentences that can state an answer: the answer proper, less what claims nothing of the world."""
    quiet = {"decline", "question", "sources", "self", "courtesy"}
    return [s for s in reading.proper if s.role not in quiet]


def _stated_text(sentence: Sentence) -> str:
    return " ".join(c.text for c in sentence.clauses if c.role not in ("decline", "courtesy")) or sentence.text


_SETTING = re.compile(r"^\s*`?([A-Za-z_][\w.-]*)\s*=\s*(true|false)`?\s*$", re.IGNORECASE)
_CODE_TOKEN = re.compile(r"[\w$]*_[\w$]*|\w+(?:\.\w+)+|\w+\(")


def _phrase(texts: Sequence[str], accept: Sequence[str]) -> tuple[str, str] | None:
    """``(accepted, clause)`` for an accepted phrase of two words or more (no identifier or value) whose words all
    stand in one clause with the same negation, or for ``name=True`` stated in words ("enable `name`")."""
    for candidate in accept:
        setting = _SETTING.match(candidate)
        if setting:
            name = re.compile(r"(?<![\w.$-])" + re.escape(fold(setting.group(1))) + r"(?![\w$-])")
            switch = lx.SWITCH_ON if setting.group(2).lower() == "true" else lx.SWITCH_OFF
            for text in texts:
                for clause in _clauses(text):
                    tokens = lx.reading_tokens(clause)
                    if name.search(fold(clause)) and switch.find(tokens) and not lx.NEGATIONS & set(tokens):
                        return candidate, clause
            continue
        hyphenated = re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)+", candidate.strip())
        if hyphenated:  # "character-by-character" written with spaces: the same words in the same order
            pattern = re.compile(
                r"(?<![\w-])" + r"[\s-]+".join(map(re.escape, fold(candidate).split("-"))) + r"(?![\w-])"
            )
            for text in texts:
                found = next((c for c in _clauses(text) if pattern.search(fold(c))), None)
                if found:
                    return candidate, found
            continue
        if re.search(r"[^\w\s'\u2019]|[_\d]", candidate):
            continue
        words, negated = _phrase_reading(candidate)
        if len(lx.reading_tokens(candidate)) < 2 or not words:
            continue  # one word is a name ("commenters"): it stays exact
        for text in texts:
            for clause in _clauses(_CODE_TOKEN.sub(" ", text)):
                held, clause_negated = _phrase_reading(clause)
                if words <= held and clause_negated == negated:
                    return candidate, clause
    return None


def _phrase_reading(text: str) -> tuple[frozenset[str], bool]:
    tokens = lx.reading_tokens(text)
    negated = bool(lx.NEGATIONS & set(tokens))
    return terms_of(" ".join(t for t in tokens if t not in lx.NEGATIONS)).words, negated


def _clauses(text: str) -> list[str]:
    return [
        c
        for c in re.split(r"\s*(?:[,;:]|\s[\u2013\u2014-]\s|\u2014|\bbut\b|\bhowever\b|\bwhereas\b)\s*", text)
        if c and c.strip()
    ]


_VALUE_UNIT = re.compile(r"^\$?(\d+(?:\.\d+)?) ([a-z%]+)$")


def value_and_unit(accept: str) -> tuple[str, str] | None:
    """``("10", "gb")`` for an accepted string that is one number with one unit ("10 GB", "3 seats"), else ``None``."""
    found = _VALUE_UNIT.match(normalise_text(accept))
    return (found.group(1), found.group(2)) if found else None


def bare_number(lead: str, accept: Sequence[str]) -> str | None:
    """The first "number + unit" accepted string whose number ``lead`` states bare (then a full stop, comma, bracket
    or the end): "The maximum is 10." states 10 for "10 seats"; "10 users" states another unit and does not."""
    text = ungroup_digits(lead)
    for candidate in accept:
        parsed = value_and_unit(candidate)
        if parsed and re.search(rf"(?<![\w.$,]){re.escape(parsed[0])}(?=\s*(?:[.,;)!]|$))", text):
            return candidate
    return None


# --------------------------------------------------------------------------------------------- competing values

_NAME = re.compile(r"(?<![\w.$-])(?=[\w.]*(?:_|\d|[a-z][A-Z]|\w\.\w))[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?![\w$-])")
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.])")
_ITEM_MARK = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")


def competing(reading: AnswerReading, accepted: str, accept: Sequence[str]) -> tuple[str, ...]:
    """Other values of the accepted string's kind that the answer gives *as the answer*.

    A value competes when it stands in a bare list item or fragment (at most two words of its own), when it is
    offered as an alternative in the clause that states the accepted value ("10 GB or 20 GB"), or when it stands
    in a clause that answers the question (:func:`answers`) more closely than any clause holding the accepted
    value (the value given in the role the question asks for: the default, not the raisable maximum). Values
    mentioned around the answer ("3 seats are included; up to 10 in total") do not. For an accepted name or
    version, its rivals are other names of its shape in a bare list item beside it, joined to it by "or", or in
    the same sentence in its place. A table of values per subject whose accepted row names the question's
    subject: the rows naming none of the question's words are other subjects', not rivals.
    """
    question = reading.question
    sentences = [s for s in _stating(reading) if s.repeats is None]
    folded_accept = [fold(a).strip() for a in accept]
    parsed = value_and_unit(accepted)
    money = re.fullmatch(r"\$(\d+(?:\.\d+)?)", normalise_text(accepted))
    if parsed is None and money is None:
        shape = (
            _VERSION if _VERSION.fullmatch(accepted.strip()) else _NAME if _NAME.fullmatch(accepted.strip()) else None
        )
        return _competing_names(sentences, shape, folded_accept, question) if shape else ()
    value, unit = parsed if parsed else (money.group(1), "$")  # type: ignore[union-attr]
    asked = read_question(question).asked

    def values(text: str) -> list[str]:
        if unit == "$":
            return [n for n, u in quantities(text) if u == "$"]
        return re.findall(r"(?<![\d.])\$?(\d+(?:\.\d+)?) " + re.escape(unit) + r"\b", normalise_text(text))

    def closeness(text: str) -> float:
        return share(terms_of(text).words & asked, asked) if asked else 0.0

    texts = [_stated_text(s) for s in sentences]
    own_words = [len(terms_of(t).own_words - terms_of(unit).words) for t in texts]
    subject = [bool(terms_of(t).words & asked - terms_of(unit).words) for t in texts]
    by_subject = any(value in values(t) and w <= 3 and sub for t, w, sub in zip(texts, own_words, subject, strict=True))
    holding = [closeness(t) for t in texts if value in values(t)]
    found: list[str] = []
    unit_words = terms_of(unit).words
    for sentence, text, words, sub in zip(sentences, texts, own_words, subject, strict=True):
        others = [v for v in values(text) if v != value]
        if not others:
            continue
        holds = value in values(text)
        # a bare item or fragment names no other subject than the question's ("2. 20 GB", not "On Enterprise, 365 days")
        elsewhere = terms_of(text).own_words - asked - unit_words
        fragment = words <= 2 and not elsewhere and not (by_subject and not holds and not sub)
        alternative = holds and any(_adjacent(text, value, other) for other in others)
        rival = (
            not holds
            and any(answers(c, question) for c in sentence.clauses)
            and (not holding or closeness(text) > max(holding))
        )
        if fragment or alternative or rival:
            found += [f"{v} {unit}" for v in others]
    return tuple(dict.fromkeys(found))


def _adjacent(text: str, value: str, other: str) -> bool:
    """``value`` and ``other`` offered as alternatives: joined by "or", "/" or "either … or" with at most three words
    between them ("10 GB or 20 GB", "$15/$18"), not each with its own condition."""
    normal = normalise_text(text)
    for a, b in ((value, other), (other, value)):
        if re.search(
            rf"(?<![\d.]){re.escape(a)}\b(?:\s+\S+){{0,2}}?\s*(?:\bor\b|/)\s*\$?{re.escape(b)}(?![\d.])", normal
        ):
            return True
    return False


def _competing_names(
    sentences: Sequence[Sentence], shape: re.Pattern[str], accept: list[str], question: str
) -> tuple[str, ...]:
    asked = {fold(m) for m in shape.findall(question)} | {fold(m) for m in _NAME.findall(question)}

    def rival(name: str) -> bool:
        low = fold(name)
        return low not in asked and not any(low in a or a in low for a in accept)

    def frame(text: str) -> str:
        return re.sub(r"\s+", " ", shape.sub("#", _ITEM_MARK.sub("", text))).strip(" .:;").casefold()

    texts = [(s, s.text) for s in sentences]
    holding = [(s, t) for s, t in texts if token_bounded_match(t, accept) is not None]
    frames: dict[str, set[str]] = {}
    for _, t in holding:
        frames.setdefault(frame(t), set()).update(shape.findall(t))
    joined = [
        re.compile(
            rf"{re.escape(a)}\W{{0,3}}\s(?:or|and/or)\s\W{{0,3}}(\w+(?:\.\w+)*)|(\w+(?:\.\w+)*)\W{{0,3}}\sor\s"
            rf"\W{{0,3}}{re.escape(a)}",
            re.I,
        )
        for a in accept
    ]
    found: list[str] = []
    listed = any(s.block == "item" for s, _ in holding)
    for sentence, text in texts:
        others = [n for n in shape.findall(text) if rival(n)]
        if not others:
            continue
        if any(sentence is s for s, _ in holding):
            alternatives = {g for p in joined for m in p.finditer(text) for g in m.groups() if g}
            found += [n for n in others if n in alternatives]
            continue
        names = frozenset().union(*(terms_of(n).words for n in shape.findall(text)))
        bare = sentence.block == "item" and not (terms_of(text).words - names)
        if bare and listed:
            found += others
        elif frame(text) in frames:
            found += [n for n in others if n not in frames[frame(text)]]
    return tuple(dict.fromkeys(found))


# --------------------------------------------------------------------------------------------- the rules


def _polarity(tokens: Sequence[str]) -> str | None:
    if not tokens:
        return None
    if tokens[0] in ("yes", "yep"):
        return "yes"
    if tokens[0] in ("no", "nope") or lx.NEGATIONS & set(tokens):
        return "no"
    return None


def _polarity_clash(reading: AnswerReading, accepted: str) -> tuple[str, str] | None:
    """``(the answer's yes/no, the accepted string's)`` when a yes/no question's answer opens on the opposite of
    what its accepted string says ("No, …" where the accepted string is "yes" or a plain "supports X"; "Yes, …" where
    it negates), else ``None``. An accepted string that neither opens on yes/no nor negates says no polarity."""
    if not read_question(reading.question).polar or reading.lead is None:
        return None
    said = lx.reading_tokens(reading.lead.text)[:1]
    answer = "yes" if said and said[0] in ("yes", "yep") else "no" if said and said[0] in ("no", "nope") else None
    tokens = lx.reading_tokens(accepted)
    wanted = _polarity(tokens)
    if wanted is None and tokens and answer == "no" and not lx.NEGATIONS & set(tokens):
        wanted = None  # an accepted name or value ("PIP_DEFAULT_TIMEOUT") says nothing about yes or no
    if answer is None or wanted is None or answer == wanted:
        return None
    return answer, wanted


def decide_claim(
    reading: AnswerReading, accept: Sequence[str], answerable: bool, disabled: frozenset[str] = frozenset()
) -> Correctness:
    """The ``claim`` rule's verdict: the rules of :data:`CLAIM_RULES`, in order, on the answer's reading."""
    steps: list[Step] = []
    reading_decline = declining(reading)
    refused = reading_decline.refused if "C.declines" not in disabled else False
    if not answerable:
        if reading_decline.answer and "C.answers" not in disabled:
            step = Step("C.answers", "wrong", None, {"answer": reading_decline.answer})
            return Correctness(False, False, None, "C.answers", (step,), undecided=reading_decline.declines)
        if refused:
            step = Step("C.declines", "correct", None, {"decline": reading_decline.decline, "verdict": "correct"})
            return Correctness(True, True, None, "C.declines", (step,))
        step = Step("C.none", "wrong", None, {"accept": "(none: no-answer question)"})
        return Correctness(False, False, None, "C.none", (Step("C.declines", ABSTAINS), step))
    sentences = _stating(reading)
    texts = [_stated_text(s) for s in sentences]
    stated = "\n".join(texts)
    found: str | None = None
    how = ""
    evidence: dict[str, object] = {}
    if "C.stated" not in disabled:
        found, how = token_bounded_match(stated, accept), "C.stated"
        steps.append(Step("C.stated", "found" if found else ABSTAINS, None, {"matched": found} if found else {}))
    if found is None and "C.normalised" not in disabled:
        values = [a for a in accept if re.search(r"\d", normalise_text(a))]  # an identifier stays exact
        found, how = normalised_match(stated, values), "C.normalised"
        steps.append(Step("C.normalised", "found" if found else ABSTAINS, None, {"matched": found} if found else {}))
    if found is None and "C.phrase" not in disabled:
        phrase = _phrase(texts, accept)
        if phrase:
            found, how = phrase[0], "C.phrase"
            evidence = {"clause": phrase[1]}
        steps.append(
            Step("C.phrase", "found" if found else ABSTAINS, None, {"matched": found, **evidence} if found else {})
        )
    if found is not None and "C.polarity" not in disabled:
        flipped = _polarity_clash(reading, found)
        if flipped is not None:
            step = Step("C.polarity", "wrong", None, {"matched": found, "answer": flipped[0], "accepted": flipped[1]})
            return Correctness(False, refused, found, "C.polarity", (*steps, step), undecided=True)
    if found is not None:
        rivals = competing(reading, found, accept) if "C.competing" not in disabled else ()
        if rivals:
            step = Step("C.competing", "wrong", None, {"matched": found, "rivals": list(rivals)})
            return Correctness(False, refused, found, "C.competing", (*steps, step), undecided=True)
        steps[-1] = Step(how, "correct", None, {"matched": found, **evidence})
        return Correctness(True, refused, found, how, tuple(steps), undecided=refused or how == "C.normalised")
    if refused:
        step = Step("C.declines", "wrong", None, {"decline": reading_decline.decline, "verdict": "wrong"})
        return Correctness(False, True, None, "C.declines", (*steps, step))
    lead = reading.lead
    bare = bare_number(lead.text, accept) if lead is not None and "C.bare" not in disabled else None
    if bare is not None:
        step = Step("C.bare", "correct", None, {"matched": bare})
        return Correctness(True, False, bare, "C.bare", (*steps, step), undecided=True)
    step = Step("C.none", "wrong", None, {"accept": accept_list(accept)})
    return Correctness(False, False, None, "C.none", (*steps, step))


def _simple(rule: str, reading: AnswerReading, accept: Sequence[str], answerable: bool) -> MatchVerdict:
    """The ``raw``, ``token`` or ``normalised`` rule's verdict (module docstring)."""
    refused = declining(reading).refused
    if not answerable:
        return MatchVerdict(refused, None)
    if rule == "raw":
        found = matched_accept(" ".join(s.text for s in reading.sentences), accept)
        return MatchVerdict(found is not None, found)
    stated = "\n".join(_stated_text(s) for s in _stating(reading))
    found = token_bounded_match(stated, accept) if rule == "token" else normalised_match(stated, accept)
    return MatchVerdict(found is not None, found)


_SIMPLE_REASONS = {
    "raw": "the answer contains {matched!r} (case-insensitive containment)",
    "token": "the answer states {matched!r} on token boundaries, outside any decline",
    "normalised": "the answer states {matched!r} after normalisation (number words, units, money)",
}


@dataclass(frozen=True)
class Decision:
    """The deciding verdict and the record of every rule's verdict."""

    verdict: Correctness
    matching: Matching


def decide_correctness(
    reading: AnswerReading,
    answerable: bool,
    accept: Sequence[str],
    matching: str,
    disabled: frozenset[str] = frozenset(),
) -> Decision:
    """Every matching rule's verdict on the answer (one function each), and the deciding one (``matching``)."""
    if matching not in ANSWER_MATCHING:
        raise ValueError(f"matching must be one of {ANSWER_MATCHING}, got {matching!r}")
    record = {rule: _simple(rule, reading, accept, answerable) for rule in ("raw", "token", "normalised")}
    claim = decide_claim(reading, accept, answerable, disabled)
    if matching == "claim":
        verdict = claim
    else:
        chosen = record[matching]
        refused = declining(reading).refused
        if not answerable:
            why = f"a no-answer question, and the answer {'declines' if refused else 'does not decline'}"
        elif chosen.correct:
            why = _SIMPLE_REASONS[matching].format(matched=chosen.matched)
        elif refused:
            why = "the question is answerable, but the answer declines"
        else:
            why = f"the answer states none of the accepted strings ({accept_list(accept)}) by the {matching} rule"
        step = Step(f"M.{matching}", "correct" if chosen.correct else "wrong", None, {"why": why})
        verdict = Correctness(chosen.correct, refused, chosen.matched, step.rule, (step,))
    record_matching = Matching(
        matching,
        record["raw"],
        record["normalised"] if answerable else None,
        verdict.reason,
        record["token"] if answerable else None,
        verdict.undecided,
        verdict.rule,
        verdict.steps,
    )
    return Decision(verdict, record_matching)


def judge_correctness(answer: str, question: str, answerable: bool, accept: Sequence[str], matching: str) -> Decision:
    """:func:`decide_correctness` on ``answer`` read once (:func:`~evalgate_lib.judging.reading.read_answer`)."""
    return decide_correctness(read_answer(answer, question), answerable, accept, matching)
