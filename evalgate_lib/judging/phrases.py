"""A short accepted phrase found in other words: any order within one clause, negation and contractions read.

Teams write accept lists of short phrases ("not safe", "rejected promise", "does nothing"),
and capable models answer in their own words ("isn't safe", "returns a promise that's
already rejected", "Nothing — it's a no-op"). Containment misses every one of these. This
rule reads a phrase the way a reviewer does, and no further:

* its **content words** (stop words aside, compared by Snowball stem, number words as
  digits) must all stand in **one clause** of the answer (clauses end at ``,`` ``;`` ``:``
  a dash, or "but"), in any order;
* its **negation** must match: "not safe" is found in "it isn't safe" (contractions are
  read as "is not"), never in "it is safe"; "safe" is not found in "not safe";
* a keyword set to a boolean (``allow_redirects=True``) is stated by a clause that names the keyword and
  switches it on (enable, turn on, set to true) or off, with no negation (:func:`setting_found`);
* words joined by hyphens ("character-by-character") are found with spaces or hyphens between them, in order;
* the parts of a code token in the answer (``get_response_params(``, ``os.path``) are not its words;
* a phrase that names an identifier or a value (``--cert``, ``.netrc``, ``10 GB``) is not a
  phrase here: identifiers stay exact and values go through normalisation
  (:mod:`evalgate_lib.judging.normalise`), so this rule never loosens them.

Every step is a written-out function of strings; the verdict says which clause held the phrase.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from evalgate_lib.judging.prose_support import prose_terms
from evalgate_lib.text.tokens import fold

#: At most this many content words make a phrase this rule reads (longer accept strings stay literal).
PHRASE_WORDS = 4

_CONTRACTION = re.compile(r"\b(can|won|shan|ain)'t\b|n't\b", re.IGNORECASE)
_CONTRACTED = {"can": "can not", "won": "will not", "shan": "shall not", "ain": "is not"}
#: What negates a clause: "not" (also from "n't"), "no", "never", "cannot", "without".
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|without|neither|nor)\b")
_CLAUSE_CUT = re.compile(r"\s*(?:[,;:]|\s[\u2013\u2014-]\s|\u2014|\bbut\b|\bhowever\b|\bwhereas\b)\s*", re.IGNORECASE)
#: Any of these makes an accept string an identifier or a value (``--cert``, ``timeout=(``, ``.netrc``, ``10 GB``).
_IDENTIFIER = re.compile(r"[^\w\s'\u2019]|[_\d]")


#: Words joined by hyphens ("character-by-character", "read-only"): a spelling, the same words with spaces.
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")

#: A code token: an identifier joined by ``_`` or ``.``, or a call (``get_response_params(``, ``os.path``). Its parts
#: are not words of the clause: "params" is not stated by ``def get_response_params(``.
_CODE_TOKEN = re.compile(r"[\w$]*_[\w$]*|\w+(?:\.\w+)+|\w+\(")


def expand_contractions(text: str) -> str:
    """``text`` with "n't" read as " not" ("isn't" → "is not", "can't" → "can not", "won't" → "will not")."""

    def spell(found: re.Match[str]) -> str:
        stem = found.group(1)
        return _CONTRACTED[stem.lower()] if stem else " not"

    folded = fold(text)
    return _CONTRACTION.sub(spell, folded) if "'t" in folded else folded


@lru_cache(maxsize=65536)
def _reading(text: str) -> tuple[frozenset[str], bool]:
    """``(content words, negated)`` of a phrase or clause, contractions read."""
    expanded = expand_contractions(text)
    words, _ = prose_terms(_NEGATION.sub(" ", expanded))
    return words, bool(_NEGATION.search(expanded))


def is_phrase(accept: str) -> bool:
    """Whether ``accept`` is a short phrase of words (no identifier or value) that this rule may read."""
    if _IDENTIFIER.search(accept):
        return False
    words, _ = _reading(accept)
    return 0 < len(words) <= PHRASE_WORDS


def clauses(text: str) -> list[str]:
    """The clauses of one sentence (see the module docstring)."""
    return [c for c in _CLAUSE_CUT.split(text) if c and c.strip()]


def phrase_found(sentences: Sequence[str], accept: Sequence[str]) -> tuple[str, str] | None:
    """``(accepted phrase, clause)`` for the first phrase of ``accept`` that one clause of ``sentences``
    states (all its content words, the same negation); ``None`` when none does."""
    for phrase in accept:
        spelled = _HYPHENATED.fullmatch(phrase.strip())
        if spelled:  # "character-by-character" written "character by character": the same words in the same order
            pattern = re.compile(r"(?<![\w-])" + r"[\s-]+".join(map(re.escape, fold(phrase).split("-"))) + r"(?![\w-])")
            for sentence in sentences:
                for clause in clauses(sentence):
                    if pattern.search(fold(clause)):
                        return phrase, clause.strip()
            continue
        if not is_phrase(phrase):
            continue
        words, negated = _reading(phrase)
        for sentence in sentences:
            for clause in clauses(_CODE_TOKEN.sub(" ", sentence)):
                held, clause_negated = _reading(clause)
                if words <= held and clause_negated == negated:
                    return phrase, clause.strip()
    return None


#: An accepted keyword setting to a boolean: ``allow_redirects=True``, ``verify = False``.
_SETTING = re.compile(r"^\s*`?([A-Za-z_][\w.-]*)\s*=\s*(true|false)`?\s*$", re.IGNORECASE)
#: Words that switch a setting on, and off, in an answer's own words.
_SWITCH_ON = re.compile(
    r"\b(?:enabl\w*|turn(?:s|ed|ing)? (?:it )?on|switch(?:es|ed|ing)? (?:it )?on"
    r"|(?:set|pass)\w* (?:it )?(?:to )?true)\b"
)
_SWITCH_OFF = re.compile(
    r"\b(?:disabl\w*|turn(?:s|ed|ing)? (?:it )?off|switch(?:es|ed|ing)? (?:it )?off"
    r"|(?:set|pass)\w* (?:it )?(?:to )?false)\b"
)


def setting_found(sentences: Sequence[str], accept: Sequence[str]) -> tuple[str, str] | None:
    """``(accepted setting, clause)`` for an accepted ``name=True`` / ``name=False`` that a clause states in words:
    it names ``name`` (whole, as an identifier) and switches it on (enable, turn on, set to true) or off, with no
    negation ("use the `allow_redirects` parameter to enable redirects" states ``allow_redirects=True``)."""
    for setting in accept:
        found = _SETTING.match(setting)
        if not found:
            continue
        name = re.compile(r"(?<![\w.$-])" + re.escape(fold(found.group(1))) + r"(?![\w$-])")
        switch = _SWITCH_ON if found.group(2).lower() == "true" else _SWITCH_OFF
        for sentence in sentences:
            for clause in clauses(expand_contractions(sentence)):
                if name.search(clause) and switch.search(clause) and not _NEGATION.search(clause):
                    return setting, clause.strip()
    return None
