"""The prose scorer: the span rule, read the way a reviewer reads a capable model's fluent answer.

The ``span`` scorer (:mod:`evalgate_lib.judging.span_support`) was written from a small
model's answers: pasted lists, copied headings, repetition. A capable generator writes
prose, and a reviewer following the labelling guide reads prose differently in exactly
these ways, each a rule here:

1. **Not every sentence is a claim** (:mod:`evalgate_lib.judging.discourse`). Declines,
   statements of what the context does not say, courtesy and closing source lists claim
   nothing. A frame such as "According to the documentation," or "The context only
   gives …" is removed and the rest is judged. Citation marks ("[2]") are removed before
   anything is compared: their digits are references, not numbers.
   A sentence that declines one part and claims another ("The context doesn't give
   the euro price, but Business costs $18") is judged on the claiming part only.
2. **A paraphrase of one local span is supported.** A span is a sentence or line of a
   passage with its labels (title, heading, table header), or two adjacent ones joined
   (:data:`ADJACENT_UNITS`): fluent writers merge neighbouring sentences. Words are
   compared after Snowball stemming ("validity" = "valid", "requires" = "requirement"),
   with number words as digits; function words and the discourse words fluent writers add
   without adding a fact (:data:`FILLER_WORDS`: "e.g.", "simply", "typically", …) do not
   count; word order does not matter. The span must hold at least half
   (:data:`PROSE_FLOOR`) of the claim's remaining words: a paraphrase keeps most of what
   it restates, while its facts are held by rule 3. A long sentence may instead be held
   clause by clause, each clause by a span of its own (:func:`clauses_of`).
3. **Numbers, versions, options, paths and identifiers stay exact**: every one the claim
   states must be in that span (``95.0%`` = ``95%``, ``1,000`` = ``1000``, nothing looser).
   Names the question asks about must be in it too (the Free plan's row does not support a
   claim about Enterprise). An answer that restates the question must find half of the
   question's words and half of what it adds in the same span, so its value is tied to
   what was asked ("the maximum upload size on mobile is 150 MB" is not held by a span
   about desktop uploads that mentions 150 MB).
4. **A command or code line** (inside a fenced block, or a shell/REPL line) is an example
   assembled from the context's parts: supported when every option, path, identifier and
   number in it occurs somewhere in the context, and its words do too (:data:`PROSE_FLOOR`).
5. Answer fragments, yes/no answers and negations follow the ``span`` scorer's rules.

Everything is a function of strings (no model); the verdict names the span and what it
lacks, so a reader can check it by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import snowballstemmer

from evalgate_lib.judging.binding import bound_value
from evalgate_lib.judging.discourse import (
    FENCE,
    POLAR,
    coverage_topics,
    declining_clauses,
    is_about_the_answer,
    is_advice,
    is_courtesy,
    is_decline,
    is_sources_line,
    without_citations,
    without_source_frame,
)
from evalgate_lib.judging.normalise import normalise_text
from evalgate_lib.judging.quantities import read_quantities, unheld_quantity
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.sentence_scorers import ScoringContext
from evalgate_lib.judging.span_support import (
    _EXACT,
    _FRAME,
    _IDENTIFIER_HINT,
    _LABEL,
    _NEGATION,
    FRAGMENT_WORDS,
    NUMBER_WORDS,
    POLAR_FLOOR,
    QUESTION_FLOOR,
    _squash,
    key_terms,
    without_list_markers,
)
from evalgate_lib.judging.substitution import swapped_name
from evalgate_lib.text.markup import iter_sentences_of_blocks, read_blocks, read_inline
from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import content_token_list, distinct_tokens, fold

#: Share of a claim's counted words that its span must hold (also of the question's words an answer
#: restates, and of the words it adds). Chosen, like the defaults, by the worst labelled set: on
#: fluent answers most of the claims that hold every exact token but only half to three quarters of
#: their words are faithful paraphrases (docs/methodology.md has the figures).
PROSE_FLOOR = 0.55

#: A verdict whose span holds less than this share of the claim's words (and every exact token) is at the
#: edge of the word rule, supported or not: the review queue asks a person to confirm it.
CLEAR_SHARE = 0.6


#: A short direct answer may frame its value with this many words of its own that its span lacks
#: ("The command you're looking for is `pip cache purge`").
SHORT_ANSWER_WORDS = 3

#: A claim with at most this many counted words may miss one of them when its span holds all its exact tokens.
SHORT_CLAIM_WORDS = 4

#: Under this share (a third) of its words, a claim is unsupported however its numbers and names stand;
#: from it up to :data:`PROSE_FLOOR` it is a near miss (undecided, leaning unsupported).
NEAR_MISS_SHARE = 0.34

#: Which way an undecided negative claim leans when its span holds its words but says nothing negative.
NEGATION_LEAN = False

#: Share of the question's words (those the context has) that a restatement's span must hold for its value
#: to be bound to what was asked, rather than only near it.
BINDING_SHARE = 0.75

#: The question's words that ask rather than name what is asked about ("how many", "since when"), as stemmed.
QUESTION_WORDS = frozenset(
    {"mani", "much", "long", "often", "number", "what", "which", "when", "where", "who", "how", "sinc", "els"}
)

#: Which way each undecided kind leans for the headline rates, chosen by the worst labelled set (docs/methodology.md):
#: a name the span lacks but its passage uses elsewhere leans unsupported (the value may be another subject's); a
#: value bound to the question by only some of its words leans supported (fluent writers restate questions in
#: their own words); a span that gives a second value of the same kind leans supported (tables state several).
LEANS = {"keys": False, "binding": True, "rival": True}


def _lean(name: str) -> bool:
    return LEANS[name]


_VALUE = re.compile(r"(?<![\w.$])(\$?\d+(?:\.\d+)?) ([a-z%]+)")


@lru_cache(maxsize=65536)
def _values(text: str) -> frozenset[tuple[str, str]]:
    """The values ``text`` states with their unit, normalised ("10 GB" → ``("10", "gb")``, "$18" → ``("18", "$")``)."""
    out = set()
    for number, unit in _VALUE.findall(normalise_text(text)):
        if number.startswith("$"):
            out.add((number[1:], "$"))
        elif unit not in STOPWORDS:
            out.add((number, unit))
    return frozenset(out)


def _rival_value(claim: str, span: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """``(the claim's value, another of its unit)`` that the span gives and the claim does not (("50", "gb"),
    ("5", "gb")); ``None`` when there is none.

    A span that gives two values of one kind binds the claim's value to its subject only if the
    claim's words sit by the right one (:func:`evalgate_lib.judging.binding.bound_value` reads where).
    """
    stated = _values(claim)
    if not stated:
        return None
    given = _values(span)
    rivals = sorted(v for v in given - stated if v[1] in {unit for _, unit in stated})
    if not rivals:
        return None
    own = sorted(v for v in stated if v[1] == rivals[0][1] and v in given)
    return (own[0] if own else sorted(v for v in stated if v[1] == rivals[0][1])[0]), rivals[0]


def _said(value: tuple[str, str]) -> str:
    return f"${value[0]}" if value[1] == "$" else f"{value[0]} {value[1]}"


#: How many neighbouring units of one passage may form one span (a sentence and the next).
ADJACENT_UNITS = 2

#: Words a fluent writer adds without adding a fact: discourse markers, hedges, illustration
#: and emphasis. They are left out of the comparison on both sides, like stopwords. Words that
#: carry a condition of their own ("default", "only", "automatically", "never") are not here.
FILLER_WORDS: frozenset[str] = frozenset(
    """
    e g eg ie i.e etc example examples instance instances note noted notice please simply just basically actually
    essentially specifically generally typically usually normally commonly also additionally furthermore moreover
    therefore thus hence well overall really quite rather certain particular particularly way ways able
    sure help helps helpful want wants wanted like mean means meaning thing things
    specific specifically exactly precisely directly important importantly worth case
    answer answers question questions asked ask you'll you'd let lets go going
    nice great good handy bonus benefit comparison practice versus vs bit
    """.split()
)

_STEMMER = snowballstemmer.stemmer("english")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+|\d{1,2}[.)]\s+)")
#: A shell or REPL line: a prompt, an assignment, or a command word followed by an option, a path, a
#: subcommand and its argument ("pip install -e .", "git clone URL"), never prose that starts with "pip".
_SHELL_LINE = re.compile(
    r"^\s*(?:\$|>>>|\.\.\.|#!|[a-z_][\w.-]*\s*=\s*\S|"
    r"(?:pip|python|python3|py|git|export|set|npm|node|cmake|curl)\s+(?:\S+\s+)?(?:-{1,2}\w|[\w.~]*[/=]|\S+\s*$))"
)
#: What makes a span negative for a negative claim: a negation, or a word that says the same
#: in other terms ("disabled", "False", "without", "only", "no longer").
_NEGATIVE_SPAN = re.compile(
    r"\b(?:no|not|never|none|nothing|cannot|can't|won't|n't|without|false|disabled?|off|except|only|"
    r"no longer|neither|nor|unless|instead|rather than|prevent|avoid|lacks?|unsupported|removed|dropped)\b|n't\b",
    re.IGNORECASE,
)
#: Conditional and relative clauses ("if you don't want …", "users who can't migrate") and "not only":
#: a negation there is not the claim's own.
_CONDITION = re.compile(
    r"\b(?:if|unless|when|whether|who|that|which)\b[^,;.]*|\bnot only\b|\bno matter\b", re.IGNORECASE
)
#: Where a long sentence may be cut into clauses, each to be held by a span of its own.
_CLAUSE = re.compile(
    r"\s*(?:;|:\s|,\s*(?:and|but|so|which|while|whereas|although|though|since|because|plus)\b|\s\((?=[^)]{12,}\))|"
    r"\)\s|\s[\u2013\u2014-]\s)\s*",
    re.IGNORECASE,
)
#: A clause with fewer counted words than this is read together with the one before it.
CLAUSE_WORDS = 3


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    """One compared word: number words as digits, then the Snowball English stem (memoised per token)."""
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    if token[0].isdigit():
        return token
    return _STEMMER.stemWord(token)


def _canonical(token: str) -> str:
    """A number as compared: thousands separators dropped, an all-zero fraction dropped (``95.0`` = ``95``)."""
    if not token or not token[0].isdigit():
        return token
    token = token.replace(",", "")
    if re.fullmatch(r"\d+\.0+", token):
        return token.split(".")[0]
    return token


_MENU_STEPS = re.compile(r"[^\s>][^>\n]*?(?:\s*>\s*[^\s>][^>\n]*?)+(?=[.,;:)!?]*(?:\s|$))")


def menu_paths(text: str) -> frozenset[str]:
    """The menu or breadcrumb paths of ``text`` ("Admin console > Billing > Add-ons"), each one exact name.

    Steps are compared in order; the first step is read as its last word and the last step as its
    first word plus the capitalised words after it, so the sentence around a path never becomes
    part of it ("Open Settings > Security > 2FA and click Save" → ``settings > security > 2fa``).
    """
    out = set()
    for found in _MENU_STEPS.finditer(text):
        steps = [step.strip(" *_`'\"") for step in found.group().split(">")]
        if len(steps) < 2 or not all(steps):
            continue
        first = steps[0].split()[-1]
        words = steps[-1].split()
        last = [words[0]] + [w for w in words[1:3] if w[:1].isupper() or w[:1].isdigit()][: len(words) - 1]
        for i in range(1, len(words)):
            if not (words[i][:1].isupper() or words[i][:1].isdigit()):
                last = words[:i]
                break
        else:
            last = words[:3]
        shown = [first, *steps[1:-1], " ".join(last)]
        if all(re.search(r"[A-Za-z]", step) for step in shown):
            out.add(" > ".join(fold(step) for step in shown))
    return frozenset(out)


@lru_cache(maxsize=65536)
def prose_terms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(words, exact)`` of ``text``: counted words (stemmed, no stop or filler words) and exact tokens.

    Exact tokens are numbers (canonical), options, dotted/slashed/underscored names; they are
    compared as written, case-folded. Numbers are counted among the words too.
    """
    unnumbered = without_list_markers(text)
    tokens = distinct_tokens(unnumbered)
    words = frozenset(_stem(t) for t in tokens - STOPWORDS - FILLER_WORDS if len(t) > 1 or t.isdigit())
    folded = fold(unnumbered)
    if _IDENTIFIER_HINT.search(folded):
        exact = {_canonical(m.rstrip(".")) for m in _EXACT.findall(folded)}
    else:
        exact = {_canonical(t) for t in tokens if t[0].isdigit()}
    if ">" in folded:  # a menu path is one name, its steps in order: "settings > security > 2fa"
        exact.update(menu_paths(unnumbered))
    runs = tokens if "'" not in folded else {run for t in tokens for run in t.split("'")}
    # "one" is a pronoun far more often than a count ("a different one", "one of the two"): a word, not a number
    exact.update(NUMBER_WORDS[t] for t in runs if t in NUMBER_WORDS and t != "one")
    exact.discard("")
    return frozenset(_canonical(w) if w[0].isdigit() else w for w in words), frozenset(exact)


@dataclass(frozen=True)
class _Unit:
    """One candidate span: its text, its counted words and exact tokens (labels included), and its plain tokens.

    ``tokens`` are the span's tokens as written (case-folded, unstemmed, single letters kept) and the
    code identifiers it shows, so an identifier a claim writes in backticks (``C``, ``crlfDelay``) is
    found whether or not the documentation marked it as code.
    """

    passage: int
    text: str
    words: frozenset[str]
    exact: frozenset[str]
    tokens: frozenset[str] = frozenset()


#: A code span that names one thing: an identifier, a dotted or namespaced name, a call without arguments,
#: or a quoted word (``crlfDelay``, ``os.homedir()``, ``'ipv4first'``, ``Content-Type``, ``C``).
_CODE_NAME = re.compile(r"^(['\"]?)([A-Za-z_$][\w$+-]*(?:(?:\.|::?|->)[A-Za-z_$][\w$+-]*)*)(?:\(\))?\1$")


def code_terms(code: tuple[str, ...]) -> frozenset[str]:
    """The names among code spans (:data:`_CODE_NAME`), case-folded, without quotes or a call's ``()``.

    A span of several words (a command) or with values in it (``verify=False``) adds nothing here:
    its options, paths and numbers are exact tokens anyway, and its words are words.
    """
    out = set()
    for span in code:
        found = _CODE_NAME.match(span.strip())
        if found and len(found.group(2)) <= 60:
            out.add(fold(found.group(2)))
    return frozenset(out)


#: A name as written, letters and digits together ("urllib3", "ipv4first", "requests.get"): the plain
#: tokens split "urllib3" into "urllib" and "3", but an identifier a claim names is found whole.
_IDENTIFIER = re.compile(r"(?<![\w$])[a-z_$][\w$]*(?:(?:\.|::?|-)[a-z_$][\w$]*)*")


def _unit_tokens(text: str, code: tuple[str, ...]) -> frozenset[str]:
    folded = fold(text)
    return distinct_tokens(text) | code_terms(code) | frozenset(_IDENTIFIER.findall(folded))


#: Labels a unit carries: the passage title and the block's nearest labels (its section heading or
#: API signature, the sentence that leads into its list or table, and a table row's header). More
#: distant headings name the page, not the unit.
UNIT_LABELS = 3

#: A list or table of at most this many units may be read as one span, with the sentence that leads
#: into it: an answer that enumerates it ("SOC 2, ISO 27001 and ISO 27018") restates one place.
GROUP_UNITS = 12


#: A line of an interactive Python session (``>>> token_hex(16)``): what it passes is the example's own data.
_PROMPT_LINE = re.compile(r"^\s*>>>\s")
_BARE_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


#: What a version note (reStructuredText's ``versionadded``, ``versionchanged``, ``deprecated`` as they render) says
#: in the words a writer restates it with ("available since", "added in", "introduced in"), as stemmed words.
_VERSION_NOTES = (
    (re.compile(r"\bnew in version\b", re.IGNORECASE), frozenset({"avail", "sinc", "add", "introduc", "new"})),
    (re.compile(r"\bchanged in version\b", re.IGNORECASE), frozenset({"chang", "sinc"})),
    (re.compile(r"\bdeprecated since version\b", re.IGNORECASE), frozenset({"deprec", "sinc"})),
)


@lru_cache(maxsize=4096)
def prose_spans(index: int, title: str, text: str) -> tuple[_Unit, ...]:
    """The spans of one passage, from its markup reading (:func:`evalgate_lib.text.markup.read_blocks`).

    Every sentence (of a paragraph or list item), table row, code line and API signature is a unit,
    with its labels: the passage title, the nearest section heading or signature and, for a table
    row, the table's header row. They name what a unit is about, never another fact. Spans are the
    units (first, in order) and each pair of adjacent units: a fluent writer merges neighbouring
    sentences, but a claim still cannot take its number from one end of a passage and its subject from
    the other. A whole list or table is a span only for a claim that enumerates it (:func:`group_spans`).
    """
    title = read_inline(title).text if title else title  # ":mod:`shutil` --- High-level file operations"
    title_terms = prose_terms(title)
    units: list[tuple[str, frozenset[str], frozenset[str], frozenset[str]]] = []
    sections: list[tuple[str, ...]] = []  # the labels that place each unit: adjacent units of one place join
    kinds: list[tuple[str, tuple[str, ...]]] = []  # each unit's block kind and labels
    for block, sentence in iter_sentences_of_blocks(read_blocks(text)):
        if block.kind in ("heading", "header"):
            continue
        labels = [label for label in block.labels[-UNIT_LABELS:] if label and label != sentence]
        words, exact = prose_terms(sentence)
        exact = exact | frozenset().union(*(prose_terms(link)[1] for link in block.links))
        code = tuple(c for c in block.code if c in sentence) if block.kind != "code" else block.code
        tokens = _unit_tokens(sentence, code)
        exact = exact | (code_terms(code) if block.kind != "code" else frozenset())
        if _PROMPT_LINE.match(sentence):
            # an example's numbers are its data (``>>> token_hex(16)``), never the documented value of anything
            exact = frozenset(t for t in exact if not _BARE_NUMBER.match(t))
            tokens = frozenset(t for t in tokens if not _BARE_NUMBER.match(t))
        for label in labels:
            label_words, label_exact = prose_terms(label)
            words, exact = words | label_words, exact | label_exact
            tokens = tokens | _unit_tokens(label, (label,) if block.kind in ("row",) else ())
        for note, meaning in _VERSION_NOTES:  # "New in version 20.1." says "available since 20.1"
            if note.search(sentence) or any(note.search(label) for label in labels):
                words = words | meaning
        shown = "\n".join(dict.fromkeys([*(p for p in (title, *labels) if p), sentence]))
        units.append((shown, words | title_terms[0], exact | title_terms[1], tokens | distinct_tokens(title)))
        # Where a unit stands: sentences (of paragraphs and list items) of one section may join; a table row
        # or a code line is a record of its own: two rows never make one span.
        sections.append(block.labels if block.kind in ("paragraph", "item") else (*block.labels, f"#{id(block)}"))
        kinds.append((block.kind, block.labels))
    if not units:
        words, exact = title_terms
        return (_Unit(index, title, words, exact, distinct_tokens(title)),)
    spans = [_Unit(index, *u) for u in units]

    def joined(group: list[tuple[str, frozenset[str], frozenset[str], frozenset[str]]]) -> _Unit:
        lines = list(dict.fromkeys(line for u in group for line in u[0].split("\n")))
        return _Unit(index, "\n".join(lines), *(frozenset().union(*(u[k] for u in group)) for k in (1, 2, 3)))

    for width in range(2, ADJACENT_UNITS + 1):
        for i in range(len(units) - width + 1):
            if len(set(sections[i : i + width])) == 1:  # never across a heading or a signature
                spans.append(joined(units[i : i + width]))
    # an example's line and the sentence that leads into it or explains it, under one heading, are one span:
    # "Here, Requests waits up to 3.05 seconds …" restates "timeout=(3.05, 27)" with its lead-in's words
    for i in range(len(units) - 1):
        (one, placed), (two, next_placed) = kinds[i], kinds[i + 1]
        if placed == next_placed and {one, two} in ({"code", "paragraph"}, {"code", "item"}):
            spans.append(joined(units[i : i + 2]))
    return tuple(spans)


@lru_cache(maxsize=4096)
def group_spans(index: int, title: str, text: str) -> tuple[_Unit, ...]:
    """Each list or table of the passage with at most :data:`GROUP_UNITS` units, read as one span together with
    the sentence that leads into it: what an answer that enumerates the list restates in one sentence."""
    units = [
        (block, sentence)
        for block, sentence in iter_sentences_of_blocks(read_blocks(text))
        if block.kind not in ("heading", "header")
    ]
    spans = prose_spans(index, title, text)[: len(units)] if units else ()
    groups: dict[int, list[int]] = {}
    for i, (block, _) in enumerate(units):
        if block.group >= 0:
            groups.setdefault(block.group, []).append(i)
    out = []
    for members in groups.values():
        if 2 < len(members) <= GROUP_UNITS:
            first = members[0]
            lead = [first - 1] if first > 0 and units[first - 1][0].group != units[first][0].group else []
            group = [spans[i] for i in lead + members]
            lines = list(dict.fromkeys(line for u in group for line in u.text.split("\n")))
            out.append(
                _Unit(
                    index,
                    "\n".join(lines),
                    *(frozenset().union(*(getattr(u, k) for u in group)) for k in ("words", "exact", "tokens")),
                )
            )
    return tuple(out)


@lru_cache(maxsize=4096)
def _context_exact(passages: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """Every exact token of the whole context, its code identifiers included (a command may be assembled
    from all of its parts)."""
    return frozenset().union(
        *(u.exact for i, (title, text) in enumerate(passages) for u in prose_spans(i, title, text))
    )


@lru_cache(maxsize=4096)
def _vocabulary(passages: tuple[tuple[str, str], ...]) -> dict[int, frozenset[str]]:
    """Every word of each passage (its units' words), by passage index."""
    return {
        i: frozenset().union(*(u.words for u in prose_spans(i, title, text)))
        for i, (title, text) in enumerate(passages)
    }


@lru_cache(maxsize=4096)
def _everywhere(passages: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """Every exact token and plain token of the whole context: what "the context never gives" is checked against."""
    return frozenset().union(*(u.exact | u.tokens for i, (t, x) in enumerate(passages) for u in prose_spans(i, t, x)))


@lru_cache(maxsize=4096)
def _squashed_passage(title: str, text: str) -> str:
    """A passage as the verbatim rule compares it, raw and as read (memoised: every claim of every answer asks
    for it)."""
    plain = "\n".join(block.text for block in read_blocks(text))
    return _squash(f"{title}\n{text}\n{plain}")


_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|cf|vs)\.?,?(?=\s|$)", re.IGNORECASE)


def _plain(sentence: str) -> str:
    """The sentence as compared: read through its markup (:func:`~evalgate_lib.text.markup.read_inline`),
    without citation marks, "e.g."/"i.e." or a list bullet."""
    text = _ABBREVIATION.sub("", read_inline(without_citations(sentence)).text)
    return _BULLET.sub("", text, count=1).strip()


def _sentence_code(sentence: str) -> frozenset[str]:
    """The code identifiers a sentence writes (:func:`code_terms` of its code spans)."""
    return code_terms(read_inline(without_citations(sentence)).code)


def _claiming_clauses(text: str) -> str | None:
    """``text`` without the clauses that decline or say what the context lacks; ``None`` if nothing else is left."""
    if not is_decline(text):
        return text
    declining, other = declining_clauses(text)
    return " ".join(other).strip() or None if declining else text


@dataclass(frozen=True)
class _Need:
    """What one claim requires of its span."""

    words: frozenset[str]
    exact: frozenset[str]
    question: frozenset[str]  # question words the span must also hold ...
    question_share: float  # ... at least this share of them
    keys: frozenset[str]  # the question's names: all must be in the span
    added: frozenset[str]  # words the answer adds to the question: PROSE_FLOOR of them must be in the span
    negated: bool
    kind: str

    def rank(self, unit: _Unit) -> tuple[int, int, int]:
        asked = len(self.question & unit.words) + 2 * len(self.keys & unit.words)
        return (
            len(_held_exact(self.exact, unit.exact | unit.tokens)),
            len(self.words & unit.words) + asked,
            -len(unit.text),
        )


def _need(
    claim: str, question: str, whole: bool = True, code: frozenset[str] = frozenset(), lead: bool = False
) -> _Need:
    """What ``claim`` requires of its span; a clause of a longer sentence (``whole=False``) is always a plain claim.

    ``code`` are the sentence's code identifiers: those the claim writes are exact tokens too.
    """
    words, exact = prose_terms(claim)
    folded_claim = fold(claim)
    exact = exact | frozenset(c for c in code if c in folded_claim)
    asked = prose_terms(question)[0] - QUESTION_WORDS
    own = words - exact
    names = frozenset(w for name in key_terms(question) for w in prose_terms(name)[0])
    keys = names - words
    negated = bool(_NEGATION.search(_CONDITION.sub("", claim)))
    if whole and POLAR.match(claim):
        return _Need(words, exact, asked - words, POLAR_FLOOR, keys, frozenset(), negated, "a yes/no answer")
    if whole and len(own) <= FRAGMENT_WORDS:
        return _Need(words, exact, asked - words, QUESTION_FLOOR, keys, frozenset(), negated, "an answer fragment")
    if whole and (len(own & asked) * 2 >= len(own) or lead and exact and len(own) <= 2 * FRAGMENT_WORDS):
        # The question's words in it tie the value to what was asked ("the maximum size ... is
        # 150 MB"): the span must hold PROSE_FLOOR of them, as of any claim, the question's names,
        # and PROSE_FLOOR of what the answer adds; the grace for a short anchored claim applies
        # to the added words only.
        echoed = words & asked
        return _Need(
            words - echoed, exact, echoed, PROSE_FLOOR, names, words - asked, negated, "an answer to the question"
        )
    return _Need(words, exact, frozenset(), 0.0, frozenset(), frozenset(), negated, "a claim")


def _held_exact(need: frozenset[str], held: frozenset[str]) -> frozenset[str]:
    """The exact tokens of ``need`` that ``held`` holds. An identifier on a short local variable
    (``r.json``, ``s.mount``, ``fd.write``) is held by the same attribute on a named object
    (``Response.json``): an example's variable stands for the object the documentation names. A qualified
    name is held when its last part is and the context names its qualifier (``json.dumps`` on the page of
    the ``json`` module that documents ``dumps``). A file name is held by a path that ends in it or passes
    through it (``pip.conf`` by ``~/.config/pip/pip.conf``)."""
    found = set(need & held)
    if found == need:
        return frozenset(found)
    tails = {t.rsplit(".", 1)[1] for t in held if "." in t and "/" not in t}
    parts = {part for t in held if "/" in t for part in t.split("/") if part}
    for token in need - held:
        head, dot, tail = token.rpartition(".")
        named = tail in tails or tail in held
        if (
            dot
            and "/" not in token
            and named
            and len(tail) >= 3
            and (len(head) <= 2 or all(part in held for part in head.split(".")))
        ):
            # a local variable's attribute (``r.json``), or a qualified name whose qualifier the context
            # names too (``functools.cmp_to_key`` where the page on functools documents ``cmp_to_key``)
            found.add(token)
        elif "/" not in token and token in parts:  # "pip.conf" in "$HOME/.config/pip/pip.conf"
            found.add(token)
    return frozenset(found)


@lru_cache(maxsize=4096)
def _question_names(question: str) -> frozenset[str]:
    """The exact tokens (names, identifiers, numbers) the question itself writes, read as a claim's are."""
    words, exact = prose_terms(question)
    names = exact | frozenset(_IDENTIFIER.findall(fold(question))) - words
    return names | frozenset(n.rsplit(".", 1)[1] for n in names if "." in n.strip("."))  # base64.b64decode → b64decode


def _share(need: frozenset[str], held: frozenset[str]) -> float:
    return len(need & held) / len(need) if need else 1.0


@dataclass(frozen=True)
class _Check:
    """One claim (or clause) checked against its best span.

    ``outcome`` is ``supported``, ``unsupported`` or ``undecided``; an undecided check leans one way
    (``lean``: supported or not) for the headline rates and goes to the review queue. ``figure`` is the
    one support figure of the verdict: the share of the claim's counted words the span holds, the
    number its reason quotes and every view shows.
    """

    need: _Need
    best: _Unit
    outcome: str
    lean: bool
    reason: str
    missing: tuple[str, ...]
    figure: float

    @property
    def supported(self) -> bool:
        return self.outcome == "supported"


def _words_held(need: frozenset[str], held: frozenset[str]) -> str:
    """``k/n words (0.67)``, naming the missing ones: the figure a reason quotes."""
    missing = sorted(need - held)
    figure = f"{len(need) - len(missing)}/{len(need)} words ({_share(need, held):.2f})"
    return figure + (f", lacking {', '.join(missing[:6])}{' …' if len(missing) > 6 else ''}" if missing else "")


def _check(
    claim: str,
    question: str,
    units: list[_Unit],
    whole: bool = True,
    code: frozenset[str] = frozenset(),
    vocabulary: dict[int, frozenset[str]] | None = None,
    everywhere: frozenset[str] = frozenset(),
    lead: bool = False,
) -> _Check:
    """The best span for ``claim`` and the verdict it gives (rules 2 and 3 of the module docstring).

    ``vocabulary`` holds every word of each passage, ``everywhere`` every exact token and plain token
    of the whole context. Decided unsupported: a number or identifier the context never gives, a name
    the span's passage distinguishes by and the span lacks, or under a third of the words. Decided
    supported: every number, identifier and name held, and :data:`CLEAR_SHARE` of the words (or a
    short claim missing one word at most). In between, undecided: leaning supported from
    :data:`PROSE_FLOOR` of the words up, unsupported below it or when the value stands in the context
    but not in one span with the rest of the claim.
    """
    need = _need(claim, question, whole, code, lead)
    if read_quantities(claim)[0]:  # among spans that hold as many exact tokens, one that gives its units first
        best = max(units, key=lambda u: (need.rank(u)[0], unheld_quantity(claim, u.text) is None, *need.rank(u)[1:]))
    else:
        best = max(units, key=need.rank)
    held_terms = best.words | best.exact
    missing_exact = tuple(sorted(need.exact - _held_exact(need.exact, best.exact | best.tokens)))
    # a name the question gives and the context never writes is the question's premise, not the claim's addition
    # ("`b64decode()` raises …" asked about b64decode, its passage cut below the signature that names it)
    premise = _question_names(question) - everywhere
    missing_exact = tuple(t for t in missing_exact if t not in premise)
    # A name must be in the span when its passage names it anywhere (the passage tells its subjects
    # apart by it: "Enterprise" in a table of plans); a passage that never writes it is about it implicitly.
    named = vocabulary.get(best.passage, best.words) if vocabulary is not None else need.keys
    missing_keys = tuple(sorted((need.keys & named) - best.words))
    share = _share(need.words, held_terms)
    added_share = _share(need.added, held_terms)
    asked_share = _share(need.question, best.words) if need.question else 1.0
    negation_ok = not need.negated or bool(_NEGATIVE_SPAN.search(best.text))
    anchored = bool(need.exact) and not missing_exact
    where = f"passage [{best.passage + 1}]"
    held = _words_held(need.words, held_terms)
    short = anchored and len(need.words) <= SHORT_CLAIM_WORDS and len(need.words - held_terms) <= 1
    missing = tuple(dict.fromkeys(missing_exact + tuple(sorted(need.words - held_terms)) + missing_keys))

    def verdict(outcome: str, lean: bool, why: str) -> _Check:
        return _Check(need, best, outcome, lean, f"{need.kind}: {why}", missing, share)

    if missing_exact:
        absent = [t for t in missing_exact if t not in everywhere]
        if absent:
            return verdict("unsupported", False, f"the context never gives {', '.join(absent)} ({where}: {held})")
        return verdict(
            "undecided",
            False,
            f"{', '.join(missing_exact)} is in the context, but no span holds it with the rest of the claim "
            f"(best: {where}, {held})",
        )
    unheld = unheld_quantity(claim, best.text) if read_quantities(claim)[0] else None
    if unheld:
        # "locked for 10 days" beside "10 wrong password attempts": the number is there, the quantity is not
        return verdict("unsupported", False, f"a number without its unit: {unheld} ({where}: {held})")
    swap = swapped_name(claim, best.text)
    if swap:
        # "select Generate SSO token" against "select Generate SCIM token": the span's own sentence, another name
        said, written = swap
        what = (
            f"says {written!r} where the claim says {said!r}"
            if said and written
            else f"says {written!r} where the claim has no negation"
            if written
            else f"has no {said!r} where the claim says it"
        )
        return verdict("unsupported", False, f"the span ({where}) {what}")
    if missing_keys:
        return verdict(
            "undecided",
            _lean("keys"),
            f"the span holding it ({where}) may be about something else (lacks {', '.join(missing_keys)})",
        )
    bound = asked_share >= need.question_share
    unit_words = {_stem(unit) for _, unit in _values(claim)} | {unit for _, unit in _values(claim)}
    framing = need.words - held_terms
    if (
        anchored
        and need.kind != "a claim"
        and bound
        and len(framing) <= SHORT_ANSWER_WORDS
        and not framing & unit_words  # "lasted 1 year": the unit is part of the value, not its frame
    ):
        # A short direct answer ("Use the `crlfDelay` option.", "It falls back to `CURL_CA_BUNDLE`."): its
        # values and identifiers stand with the question's terms in one span; its other words frame it.
        short = True
    elif share < NEAR_MISS_SHARE and not short:
        if not need.exact and len(need.words) <= SHORT_CLAIM_WORDS:
            return verdict("undecided", False, f"a short claim the best span ({where}) barely holds: {held}")
        return verdict("unsupported", False, f"the best span ({where}) holds only {held} < {NEAR_MISS_SHARE:.2f}")
    if need.added and added_share < NEAR_MISS_SHARE and not short:
        lacking = ", ".join(sorted(need.added - held_terms))
        return verdict(
            "unsupported", False, f"the span ({where}) lacks what the answer adds to the question: {lacking}"
        )
    if asked_share < need.question_share:
        return verdict("undecided", False, f"the span holding it ({where}) is not clearly about the question ({held})")
    if not negation_ok:
        return verdict(
            "undecided",
            NEGATION_LEAN,
            f"a negative claim, but the span holding its words ({where}) says nothing negative",
        )
    if need.kind != "a claim" and len(need.added) <= 2 and vocabulary is not None:
        # A restatement of the question with a value: the value is bound to what was asked only by the
        # question's words that stand beside it, so a span holding only some of them binds it loosely.
        asked = (prose_terms(question)[0] - QUESTION_WORDS) & frozenset().union(*vocabulary.values())
        if asked and _share(asked, best.words) < BINDING_SHARE:
            return verdict(
                "undecided",
                _lean("binding"),
                f"the value stands in a span ({where}) that holds only "
                f"{_words_held(asked, best.words)} of the question",
            )
    rival = _rival_value(claim, best.text)
    if rival:
        bound = bound_value(claim, best.text, *rival, words=lambda text: prose_terms(text)[0], values=_values)
        if bound == "rival":  # "$18 … with annual billing" where the Annual billing column says $15
            return verdict(
                "unsupported",
                False,
                f"the claim's words stand by {_said(rival[1])} in the span ({where}), not by {_said(rival[0])}",
            )
        if bound is None:
            why = f"the span ({where}) also gives {_said(rival[1])} for the same kind of value"
            return verdict("undecided", _lean("rival"), why)
    enough = short or (share >= PROSE_FLOOR and (not need.added or added_share >= PROSE_FLOOR))
    if not enough:
        return verdict("undecided", False, f"a near miss: the best span ({where}) holds {held} < {PROSE_FLOOR:.2f}")
    if share < CLEAR_SHARE and not short:
        return verdict(
            "undecided", True, f"a span of {where} holds {held} and every number and identifier (< {CLEAR_SHARE:.2f})"
        )
    return verdict("supported", True, f"a span of {where} holds {held} and every number and identifier")


def clauses_of(claim: str) -> list[str]:
    """``claim`` cut at clause boundaries (";", ", and", ", which", a parenthesis, a dash …).

    A piece with fewer than :data:`CLAUSE_WORDS` counted words and no exact token of its own
    is read with the piece before it, so "until you reach 10" never stands alone.
    """
    pieces = [p.strip(" ,;:()") for p in _CLAUSE.split(claim)]
    clauses: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        words, exact = prose_terms(piece)
        if clauses and len(words) < CLAUSE_WORDS:
            clauses[-1] = f"{clauses[-1]}, {piece}"
        else:
            clauses.append(piece)
    if len(clauses) > 1 and len(prose_terms(clauses[0])[0]) < CLAUSE_WORDS:
        clauses[1] = f"{clauses[0]}, {clauses[1]}"
        clauses.pop(0)
    return clauses


#: Values an example uses to illustrate, never a claim of the documentation: reserved example domains
#: (RFC 2606), ``path/to`` paths, ``<placeholders>``, loopback addresses. A concrete path of the writer's
#: own (``~/my-sources``) is not one: it adds a path the context does not give.
_PLACEHOLDER = re.compile(
    r"\bexample\.(?:com|org|net)\b|(?:^|/)path/to(?:/|$)|<[^>]*>|\blocalhost\b|127\.0\.0\.1|"
    r"(?:^|/)path/[\w.-]+\.(?:pem|crt|cert|key)$"
)
_URL = re.compile(r"^(?:[a-z][\w+.-]*://)?([\w-]+(?:\.[\w-]+)+)(/.*)?$")
#: A string literal of an example ("data.txt", 'café'): the data it passes, not a name the documentation gives.
#: A URL in quotes stays (its host is checked).
_STRING_LITERAL = re.compile(r"""(["'])(?![a-z][\w+.-]*://)(?:(?!\1).){0,200}\1""")


def _code_needs(line: str) -> frozenset[str]:
    """What a code line claims the context has: its options, keyword names, API names and paths.

    An example's own plumbing is left out: numbers and string literals (its example values and data),
    placeholders (:data:`_PLACEHOLDER`), attributes of a local variable (``fd.write``, ``r.text``), and
    the page a URL points to on a host the context names (the host is what is checked).
    """
    _, exact = prose_terms(_STRING_LITERAL.sub('""', line))  # the data an example passes is its own
    needs = set()
    for token in exact:
        if token[0].isdigit() and "." not in token.strip("."):
            continue
        if _PLACEHOLDER.search(token):
            continue
        head, dot, _ = token.partition(".")
        if dot and "/" not in token and len(head) <= 2:
            continue
        url = _URL.match(token)
        needs.add(url.group(1) if url and "/" in token and "." in url.group(1) else token)
    for keyword in re.findall(r"[(,]\s*([a-z_]\w*)\s*=(?!=)", fold(line)):
        needs.add(keyword)
    return frozenset(needs)


def _judge_code(sentence: str, tokens: tuple[str, ...], context: ScoringContext) -> SentenceVerdict:
    """A command or code line: the options, keyword names, API names and paths it uses must occur in the context.

    Its words (keywords, variable names, a package being installed) and its illustrations
    (:func:`_code_needs`) are the example's own plumbing and are not compared; an option or path the
    context never shows is unsupported.
    """
    line = _BULLET.sub("", without_citations(sentence), count=1).strip().strip("`")
    needs = _code_needs(line)
    if not needs:
        return SentenceVerdict(
            sentence, tokens, (), None, None, reason="a code line with no option, name or path to check"
        )
    held = _context_exact(context.passages) | _everywhere(context.passages)
    missing = tuple(sorted(needs - _held_exact(needs, held)))
    figure = round((len(needs) - len(missing)) / len(needs), 6)
    if not missing:
        reason = "a command or code line: every option, name and path it uses occurs in the context"
        return SentenceVerdict(sentence, tokens, (), figure, True, reason=reason)
    reason = f"a command or code line with {', '.join(missing)}, which the context does not have"
    return SentenceVerdict(sentence, tokens, missing, figure, False, reason=reason)


def judge_prose(sentence: str, context: ScoringContext) -> SentenceVerdict:
    """The prose scorer's verdict on one sentence (rules in the module docstring)."""
    tokens = tuple(content_token_list(sentence))

    def nothing(why: str, refusal: bool = False) -> SentenceVerdict:
        return SentenceVerdict(sentence, tokens, (), None, None, refusal=refusal, reason=why)

    text = _plain(sentence)
    if not text or FENCE.match(text) or is_sources_line(text) or is_sources_line(sentence.strip()):
        return nothing("a code fence or a list of sources: claims nothing")
    if is_courtesy(text):
        return nothing("courtesy or an offer of help: claims nothing")
    if is_about_the_answer(text):
        return nothing("a statement about the answer itself: claims nothing about the context")
    if sentence.strip() in context.code or _SHELL_LINE.match(text) or text.startswith("`") and text.endswith("`"):
        if any(prose_terms(text)):
            return _judge_code(sentence, tokens, context)
    claiming = _claiming_clauses(text)
    if claiming is None:
        return nothing("a decline, or a statement of what the context does not say: claims nothing", refusal=True)
    topics = coverage_topics(claiming)
    claim = without_source_frame(claiming).strip()
    unnumbered = without_list_markers(claim).strip()
    raw = without_list_markers(sentence.strip()).strip()
    if _FRAME.match(unnumbered) or _FRAME.match(raw) or claim.rstrip("*_ ").endswith("?"):
        return nothing("a question, heading or framing line: claims nothing")
    if claim.rstrip("*_ ").endswith(":"):
        return nothing("a lead-in line ending with ':': claims nothing by itself")
    claim = _LABEL.sub("", claim, count=1).strip()
    if POLAR.match(claim):
        rest = POLAR.sub("", claim, count=1).strip(" ,;:.!\u2014-")
        rest_words, rest_exact = prose_terms(rest)
        if not rest_words and not rest_exact:
            return nothing("a bare yes/no: the answer's other sentences carry what it claims")
        if rest_words - prose_terms(context.question)[0]:
            claim = rest  # "No, Starter includes 3 seats": the statement after the yes/no is the claim
    words, exact = prose_terms(claim)
    polar = bool(POLAR.match(claim) or _NEGATION.search(claim))
    asked_words, asked_exact = prose_terms(context.question)
    if not words and not exact and not polar:
        return nothing("no content words: claims nothing")
    premise = polar and not POLAR.match(claim) and bool(_NEGATION.search(context.question))
    if words <= asked_words and exact <= asked_exact and (not polar or premise):  # "… with no charset", as asked
        return nothing("repeats the question: claims nothing new")
    if not exact and is_advice(claim):
        known = frozenset().union(*_vocabulary(context.passages).values()) | asked_words
        named = frozenset().union(*(prose_terms(m)[0] for m in _DIRECTED.findall(fold(claim))))
        if not named - known:
            return nothing("advice or opinion naming nothing the context lacks: claims no checkable fact")
        # advice that sends the reader to a thing the context never mentions ("check the help center",
        # "contact your account manager") claims that it exists and helps: judged as a claim
    squashed = _squash(claim).rstrip(".")
    if len(squashed) >= 12 and any(squashed in _squashed_passage(t, x) for t, x in context.passages):
        return SentenceVerdict(sentence, tokens, (), 1.0, True, span=claim, reason="copied verbatim from the context")
    if not context.passages:
        return SentenceVerdict(sentence, tokens, tuple(sorted(words)), 0.0, False, reason="no context to check")
    units = [u for i, (title, body) in enumerate(context.passages) for u in prose_spans(i, title, body)]
    code = _sentence_code(sentence)
    vocabulary = _vocabulary(context.passages)
    everywhere = _everywhere(context.passages)

    lead = bool(context.lead) and sentence == context.lead

    def check(text: str, among: list[_Unit], whole: bool = True) -> _Check:
        return _check(text, context.question, among, whole, code, vocabulary, everywhere, lead)

    def result(c: _Check, reason: str | None = None, span: str | None = None) -> SentenceVerdict:
        return SentenceVerdict(
            sentence,
            tokens,
            () if c.outcome == "supported" else c.missing,
            round(c.figure, 6),
            c.lean,
            span=span or c.best.text,
            reason=reason or c.reason,
            undecided=c.outcome == "undecided",
        )

    if topics is not None:
        return _judge_coverage(topics, sentence, tokens, check, units, result)
    whole = check(claim, units)
    if whole.outcome == "supported":
        return result(whole)
    parts = clauses_of(claim)
    if len(parts) > 1:
        claims = [part for part in parts if prose_terms(part)[1] or not is_advice(part)]
        checks = [check(part, units, whole=False) for part in claims]
        if (
            checks
            and all(c.outcome != "unsupported" for c in checks)
            and (whole.outcome == "unsupported" or all(c.supported for c in checks))
        ):
            weakest = min(checks, key=lambda c: (c.supported, c.lean, c.figure))
            where = ", ".join(f"[{c.best.passage + 1}]" for c in checks)
            how = "each held by one span" if weakest.supported else "each held or nearly held by one span"
            reason = f"{len(checks)} clauses (of {len(parts)}), {how} (passages {where}); weakest: {weakest.reason}"
            spans = "\n".join(dict.fromkeys(c.best.text for c in checks))
            return result(weakest, reason, spans)
    if len(_ITEM_SEPARATOR.split(claim)) >= 3:
        lists = [u for i, (title, body) in enumerate(context.passages) for u in group_spans(i, title, body)]
        listed = check(claim, lists) if lists else None
        if listed is not None and listed.supported:
            reason = f"an enumeration: one list or table of passage [{listed.best.passage + 1}] holds all of it"
            return result(listed, reason)
    return result(whole)


#: Where advice sends the reader: the object of "check", "contact", "visit", "ask", "use", "look at" … up to
#: the end of its phrase ("checking the Nimbus help center", "contacting your account manager").
_DIRECTED = re.compile(
    r"\b(?:check(?:ing)?|contact(?:ing)?|visit(?:ing)?|consult(?:ing)?|ask(?:ing)?|reach(?:ing)? out to|"
    r"look(?:ing)? (?:at|for|into)|go(?:ing)? to|see|read(?:ing)?|use|using|tr(?:y|ying)|keep(?:ing)? an eye on)"
    r"\s+((?:[\w'-]+\s*){1,6}?)(?=[,.;:!?)]|\s(?:and|or|to|for|if|when|before|after|since|because|instead)\b|$)"
)


def _judge_coverage(
    topics: str, sentence: str, tokens: tuple[str, ...], check: Any, units: list[_Unit], result: Any
) -> SentenceVerdict:
    """A statement of what the context covers: each topic is looked for on its own, anywhere in the context.

    Supported when every topic is held by some span; unsupported when a topic names a number or
    identifier the context never gives; otherwise undecided, leaning supported (the statement is
    about the context, and the topics it names are mostly the context's own words).
    """
    items = [item.strip(" .") for item in _ITEM_SEPARATOR.split(topics) if prose_terms(item.strip(" ."))[0]]
    checks = [check(item, units, whole=False) for item in items] or [check(topics, units, whole=False)]
    where = ", ".join(f"[{c.best.passage + 1}]" for c in checks)
    if all(c.supported for c in checks):
        reason = f"a statement of what the context covers: each of its {len(checks)} topic(s) stands in it ({where})"
        return result(checks[0], reason, "\n".join(dict.fromkeys(c.best.text for c in checks)))
    decided = [c for c in checks if c.outcome == "unsupported" and "never gives" in c.reason]
    if decided:
        return result(decided[0], f"a statement of what the context covers, with {decided[0].reason}")
    weakest = min(checks, key=lambda c: (c.supported, c.figure))
    undecided = _Check(weakest.need, weakest.best, "undecided", True, weakest.reason, weakest.missing, weakest.figure)
    reason = f"a statement of what the context covers, a topic only loosely found ({where}): {weakest.reason}"
    return result(undecided, reason)


#: Where the items of an enumeration part ("SOC 2, ISO 27001 and ISO 27018").
_ITEM_SEPARATOR = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


class ProseSupportScorer:
    """Registered as ``prose``: the span rule for fluent answers (claims only, paraphrase of one local span)."""

    name = "prose"
    #: 3: an undecided verdict's lean follows the rest of its answer (:mod:`evalgate_lib.judging.answer_lean`).
    version = "3"
    floor = PROSE_FLOOR  # the share of a claim's words its span must hold
    marks_undecided = True  # its verdicts say when it could not decide: the review queue reads that

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        return judge_prose(sentence, context)
