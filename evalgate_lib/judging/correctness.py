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
from functools import cached_property
from typing import Callable, Mapping, Sequence

from evalgate_lib.inputs.config import ANSWER_MATCHING
from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.context import name_words
from evalgate_lib.judging.normalise import normalise_text, ungroup_digits
from evalgate_lib.judging.question import ABOUT_QUESTION, RESTATES_QUESTION, read_question
from evalgate_lib.judging.reading import AnswerReading, Clause, Sentence, read_answer
from evalgate_lib.judging.rows import Matching, MatchVerdict
from evalgate_lib.judging.rules import Example, Rule, Step, by_id, render, run_rules, share
from evalgate_lib.judging.terms import quantities, terms_of
from evalgate_lib.text.matching import bounded_pattern
from evalgate_lib.text.tokens import fold

# The rule tables are at the end of the module, after the checks they run.


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


def qualified_match(text: str, accept: Sequence[str]) -> str | None:
    """First accepted identifier that ``text`` states as the last part of a qualified name (``base64.urlsafe_b64encode``
    states ``urlsafe_b64encode``): the same name, given with its module."""
    folded = fold(text)
    for candidate in accept:
        needle = fold(candidate).strip()
        qualified = rf"(?<![\w])(?:[a-z_]\w*\.)+{re.escape(needle)}(?![\w])"
        if re.fullmatch(r"[a-z_][\w]*", needle) and re.search(qualified, folded):
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


# --------------------------------------------------------------------------------------------- conflicting values

_BOOLEAN = {"true": "false", "false": "true", "yes": "no", "no": "yes", "enabled": "disabled", "disabled": "enabled"}
_BARE = re.compile(r"^\d+(?:\.\d+)?$")


def conflicting(reading: AnswerReading, accepted: str, accept: Sequence[str]) -> tuple[str, ...]:
    """Values that conflict with ``accepted`` for the same question, which the answer states besides it: for an
    accepted bare number ("4"), another bare number in a clause about the question ("the default depth is 2 …
    menu_depth: 4"); for an accepted boolean ("true", "enabled", "yes"), its opposite stated as a value. The
    labelling guide: a right value beside a conflicting one for the same question is wrong."""
    question = reading.question
    wanted = fold(accepted).strip().strip("`'\"")
    stating = [s for s in _stating(reading) if s.repeats is None]
    clauses = [(s, c) for s in stating for c in s.clauses if c.role in ("claim", "polar")]
    found: list[str] = []
    if _BARE.match(wanted):
        read = read_question(question)
        asked = read.asked - name_words(frozenset(read.premise))  # what is asked, not the words inside its names
        lead = reading.lead
        for sentence, clause in clauses:
            # the lead gives another value for what is asked ("The default depth is 2."), or a clause restates the
            # question with one; a value mentioned around the answer ("in pip 21.3, pip stopped …"), denied ("2.7 is
            # no longer supported") or approximated ("about 10 million") is not a second answer
            about = share(terms_of(clause.text).words & asked, asked) if asked else 0.0
            tokens = lx.reading_tokens(clause.text)
            if about < (ABOUT_QUESTION if sentence is lead else RESTATES_QUESTION) or lx.NEGATIONS & set(tokens):
                continue
            if clause.background or clause.conclusion:
                continue
            found += [n for n in _stated_numbers(tokens) if n != wanted and all(n != fold(a).strip() for a in accept)]
    elif wanted in _BOOLEAN:
        opposite = re.compile(rf"(?<![\w-]){re.escape(_BOOLEAN[wanted])}(?![\w-])")
        for _, clause in clauses:
            if opposite.search(fold(clause.text)) and not lx.NEGATIONS & set(lx.reading_tokens(clause.text)):
                found.append(_BOOLEAN[wanted])
    return tuple(dict.fromkeys(found))


def _stated_numbers(tokens: Sequence[str]) -> list[str]:
    """The numbers a clause gives as values: not one marked approximate ("about 10") or scaled ("10 million")."""
    out = []
    for i, token in enumerate(tokens):
        if not _BARE.match(token):
            continue
        if i and tokens[i - 1] in lx.APPROXIMATIONS or i + 1 < len(tokens) and tokens[i + 1] in lx.NUMBER_SCALES:
            continue
        out.append(token)
    return out


def _identifier(accepted: str) -> bool:
    """An accepted string that is or holds an identifier (``mkdocs[i18n]``, ``--no-cache-dir``, ``i18n``): its
    punctuation and digits are part of a name, so no normalisation may join it to other words."""
    names = {t for t in terms_of(accepted).exact if not t[:1].isdigit()}
    return bool(names) or bool(re.search(r"[\w][\[\]_./:=-]+[\w]", accepted) and re.search(r"[A-Za-z]", accepted))


# --------------------------------------------------------------------------------------------- the case and the checks


@dataclass
class AnswerCase:
    """One answer as every correctness rule reads it: its reading, the accepted strings, whether the question has an
    answer, and what the rules share, computed once (its decline reading, the accepted string it states and how)."""

    reading: AnswerReading
    accept: Sequence[str]
    answerable: bool
    disabled: frozenset[str] = frozenset()

    @cached_property
    def decline(self) -> Declining:
        return declining(self.reading)

    @cached_property
    def refused(self) -> bool:
        return self.decline.refused if "C.declines" not in self.disabled else False

    @cached_property
    def answer_given(self) -> str:
        """The first clause that gives an answer as the answer (:func:`answers`), declining or not."""
        clauses = [c for s in self.reading.proper if s.repeats is None for c in s.clauses]
        return next((c.text for c in clauses if answers(c, self.reading.question)), "")

    @cached_property
    def texts(self) -> list[str]:
        return [_stated_text(s) for s in _stating(self.reading)]

    @cached_property
    def stated(self) -> tuple[str | None, str, dict[str, object]]:
        """``(accepted string, the rule that finds it, evidence)``: the first of C.stated, C.normalised and C.phrase
        (each unless switched off) that finds an accepted string in what the answer states."""
        if not self.answerable:
            return None, "", {}
        text = "\n".join(self.texts)
        if "C.stated" not in self.disabled:
            found = token_bounded_match(text, self.accept)
            if found is not None:
                return found, "C.stated", {}
            found = qualified_match(text, self.accept)
            if found is not None:  # "base64.urlsafe_b64encode(s)" states urlsafe_b64encode
                return found, "C.stated", {"qualified": True}
        if "C.normalised" not in self.disabled:
            values = [a for a in self.accept if re.search(r"\d", normalise_text(a)) and not _identifier(a)]
            found = normalised_match(text, values)
            if found is not None:
                return found, "C.normalised", {}
        if "C.phrase" not in self.disabled:
            phrase = _phrase(self.texts, self.accept)
            if phrase is not None:
                return phrase[0], "C.phrase", {"clause": phrase[1]}
        return None, "", {}

    @property
    def found(self) -> str | None:
        return self.stated[0]


def _check_answers(case: AnswerCase) -> Step | None:
    if case.answerable or not case.answer_given:
        return None
    return Step("C.answers", "wrong", None, {"answer": case.answer_given, "declines": case.decline.declines})


def _check_declines(case: AnswerCase) -> Step | None:
    if not case.refused:
        return None
    if not case.answerable:
        return Step("C.declines", "correct", None, {"decline": case.decline.decline, "verdict": "correct"})
    if case.found is None:
        return Step("C.declines", "wrong", None, {"decline": case.decline.decline, "verdict": "wrong"})
    return None


def _check_polarity(case: AnswerCase) -> Step | None:
    if case.found is None:
        return None
    flipped = _polarity_clash(case.reading, case.found)
    if flipped is None:
        return None
    return Step("C.polarity", "wrong", None, {"matched": case.found, "answer": flipped[0], "accepted": flipped[1]})


def _check_competing(case: AnswerCase) -> Step | None:
    if case.found is None:
        return None
    rivals = competing(case.reading, case.found, case.accept)
    return Step("C.competing", "wrong", None, {"matched": case.found, "rivals": list(rivals)}) if rivals else None


def _check_conflict(case: AnswerCase) -> Step | None:
    if case.found is None:
        return None
    values = conflicting(case.reading, case.found, case.accept)
    return Step("C.conflict", "wrong", None, {"matched": case.found, "conflicting": list(values)}) if values else None


def _found_by(rule: str) -> Callable[[AnswerCase], Step | None]:
    def check(case: AnswerCase) -> Step | None:
        found, how, evidence = case.stated
        if found is None or how != rule:
            return None
        return Step(rule, "correct", None, {"matched": found, **evidence, "refused": case.refused})

    return check


def _check_bare(case: AnswerCase) -> Step | None:
    lead = case.reading.lead
    if not case.answerable or lead is None:
        return None
    bare = bare_number(lead.text, case.accept)
    return Step("C.bare", "correct", None, {"matched": bare}) if bare is not None else None


def _check_none(case: AnswerCase) -> Step:
    if not case.answerable:
        return Step("C.none", "wrong", None, {"accept": "(none: no-answer question)"})
    return Step("C.none", "wrong", None, {"accept": accept_list(case.accept)})


#: The deciding rules whose verdict a person should confirm (the correctness verdict is then ``undecided``).
_UNDECIDED = frozenset({"C.normalised", "C.bare", "C.polarity", "C.competing"})


def decide_claim(
    reading: AnswerReading, accept: Sequence[str], answerable: bool, disabled: frozenset[str] = frozenset()
) -> Correctness:
    """The ``claim`` rule's verdict: :data:`CORRECTNESS_TABLE` run in order by the one loop, on the answer's
    reading; the first rule that decides gives the verdict."""
    case = AnswerCase(reading, accept, answerable, disabled)
    steps = run_rules(CORRECTNESS_TABLE, case, disabled)
    last = steps[-1]
    undecided = last.rule in _UNDECIDED or bool(last.evidence.get("refused")) or bool(last.evidence.get("declines"))
    matched = last.evidence.get("matched")
    refused = case.refused if answerable or last.rule != "C.answers" else False
    return Correctness(
        last.outcome == "correct",
        refused,
        matched if isinstance(matched, str) else None,
        last.rule,
        steps,
        undecided=undecided,
    )


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


# --------------------------------------------------------------------------------------------- the tables

_SEATS = ("Plans", "Starter includes 3 seats. Business requires at least 5 seats.")

#: The ``claim`` rule's table, in the order :func:`decide_claim` runs it (docs/judge.md is generated from it).
CORRECTNESS_TABLE: tuple[Rule, ...] = (
    Rule(
        "C.answers",
        "an answer to a no-answer question that gives an answer as the answer is wrong, whether or not it also "
        "declines",
        Example("The context doesn't say, but Starter includes 5 seats.", (_SEATS,),
                question="How many seats does Starter include on the Free plan?", answerable=False, expected="wrong"),
        "the question has no answer in the knowledge base, and the answer gives one: {answer!r}",
        "question.RESTATES_QUESTION, question.ABOUT_QUESTION",
        check=_check_answers,
    ),
    Rule(
        "C.declines",
        "an answer that declines and gives no answer of its own is a refusal: correct only for a no-answer question",
        Example("I couldn't find that in the context.", (_SEATS,), question="How many seats does Free include?",
                answerable=False, expected="correct"),
        "{verdict}: it declines ({decline!r}) and gives no answer of its own",
        check=_check_declines,
    ),
    Rule(
        "C.polarity",
        "a yes/no answer opening on the opposite of what its accepted string says is wrong, undecided",
        Example("Yes, Business does not support SSO.", (), question="Does Business support SSO?",
                accept=("does not support SSO",), expected="wrong"),
        "the answer states {matched!r} but opens on {answer!r} where the accepted answer is {accepted!r}",
        check=_check_polarity,
    ),
    Rule(
        "C.competing",
        "an answer that states an accepted value but gives another of its kind as the answer is wrong, undecided",
        Example("1. 10 GB\n2. 20 GB", (), question="How much storage?", accept=("10 GB",), expected="wrong"),
        "the answer states {matched!r} but also gives {rivals} as the answer (competing values)",
        check=_check_competing,
    ),
    Rule(
        "C.conflict",
        "an answer that states an accepted bare value or boolean and, for the same question, a conflicting one is "
        "wrong, with both as evidence",
        Example("The default depth is 2. Set `menu_depth: 4` in the file.", (),
                question="What is the default menu depth?", accept=("4",), expected="wrong"),
        "the answer states {matched!r} but also {conflicting} for the same question",
        check=_check_conflict,
    ),
    Rule(
        "C.stated",
        "an accepted string stated on token boundaries, outside any decline, makes it correct",
        Example("Starter includes 3 seats.", (_SEATS,), question="How many seats does Starter include?",
                accept=("3 seats",), expected="correct"),
        "the answer states {matched!r} on token boundaries, outside any decline",
        check=_found_by("C.stated"),
    ),
    Rule(
        "C.normalised",
        "an accepted value stated after normalisation (number words, units, money) makes it correct, undecided; an "
        "identifier is never normalised",
        Example("Starter includes three seats.", (_SEATS,), question="How many seats does Starter include?",
                accept=("3 seats",), expected="correct"),
        "the answer states {matched!r} after normalisation (number words, units, money)",
        check=_found_by("C.normalised"),
    ),
    Rule(
        "C.phrase",
        "a short accepted phrase stated in other words in one clause (every word, the same negation), or a keyword "
        "setting stated in words, makes it correct",
        Example("No, it isn't safe to share the link.", (), question="Is it safe to share the link?",
                accept=("not safe",), expected="correct"),
        "the answer states {matched!r} in other words, in one clause ({clause!r})",
        check=_found_by("C.phrase"),
    ),
    Rule(
        "C.bare",
        "the lead sentence stating an accepted number with no unit makes it correct, undecided",
        Example("The minimum is 5.", (_SEATS,), question="What is the minimum for Business?", accept=("5 seats",),
                expected="correct"),
        "the answer's lead states the number of {matched!r} without its unit",
        check=_check_bare,
    ),
    Rule(
        "C.none",
        "an answer that states no accepted string is wrong",
        Example("Starter includes 5 seats.", (_SEATS,), question="How many seats does Starter include?",
                accept=("3 seats",), expected="wrong"),
        "the answer states none of the accepted strings ({accept}) outside a decline",
        check=_check_none,
    ),
)

#: The simple matching rules a run can choose instead (``[shared] answer_matching``): each decides alone.
MATCHING_TABLE: tuple[Rule, ...] = tuple(
    Rule(f"M.{name}", f"the {name} matching rule alone, when a run chooses it: {what}", example, "{why}")
    for name, what, example in (
        (
            "raw",
            "an accepted string contained anywhere, case-insensitively (EvalGate 0.1)",
            Example("Pro includes 13 seats.", accept=("3 seats",), expected="correct"),
        ),
        (
            "token",
            "an accepted string on token boundaries in what the answer states, outside its declines",
            Example("Starter includes 3 seats.", accept=("3 seats",), expected="correct"),
        ),
        (
            "normalised",
            "the same after normalising number words, units and money",
            Example("Starter includes three seats.", accept=("3 seats",), expected="correct"),
        ),
    )
)

#: Every correctness rule by id: the claim table, then the matching rules.
CLAIM_RULES: Mapping[str, Rule] = by_id((*CORRECTNESS_TABLE, *MATCHING_TABLE))
