"""One reading of the context an answer was given: its passages cut into the spans a claim may be held by.

A reviewer checks a claim against one place of the context, not against the context's words scattered
over several places. So each passage is read through its markup (:func:`evalgate_lib.text.markup.read_blocks`)
into **units** — each sentence of a paragraph or list item, each table row, each code line, each API
signature — and each unit carries its **labels**: the passage title and the labels of its block (its section
headings or API signature, the sentence that leads into its list, a table row's header row).
Labels name what a unit is about, never another fact.

The spans a claim is compared with are:

* each unit with its labels;
* each two adjacent units of one place (:data:`ADJACENT_UNITS`; never across a heading or a signature,
  and never two table rows or two code lines: each is a record of its own): fluent writers merge
  neighbouring sentences;
* an example's line with the sentence that leads into it or explains it, under one heading;
* for a claim that enumerates, each list or table (three units or more) with its lead-in
  (:attr:`ContextReading.groups`).

Everything is memoised per passage: the same passages recur in many answers.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.terms import Terms, canonical_number, code_names, stem, terms_of
from evalgate_lib.text.markup import iter_sentences_of_blocks, read_blocks, read_inline
from evalgate_lib.text.tokens import distinct_tokens, fold

#: How many neighbouring units of one passage may form one span (a sentence and the next).
ADJACENT_UNITS = 2

#: A name as written, letters and digits together ("urllib3", "requests.get"), found whole among a span's tokens.
_IDENTIFIER = re.compile(r"(?<![\w$])[a-z_$][\w$]*(?:(?:\.|::?|-)[a-z_$][\w$]*)*")
_PROMPT_LINE = re.compile(r"^\s*>>>\s")


@dataclass(frozen=True)
class Span:
    """One place of the context a claim may be held by: its passage (0-based), the text shown, and its terms.

    ``tokens`` are its plain tokens and the identifiers it writes, so a name a claim writes in backticks
    (``C``, ``crlfDelay``) is found whether or not the documentation marked it as code.
    """

    passage: int
    text: str
    terms: Terms
    tokens: frozenset[str]
    #: ``unit``, ``pair``, ``example`` (a code line with its lead-in) or ``group`` (a whole list or table).
    kind: str = "unit"


@dataclass(frozen=True)
class Place:
    """The smallest place a value of the context is bound to: a clause of a sentence, or one cell of a table row.

    A claim's number, name, polarity or qualifier is compared with the place its words are about
    (:mod:`evalgate_lib.judging.slots`). A place's ``words`` are its own counted words with those of what
    binds it: for a cell, its row's first cell and its column's heading; for a clause, the headings and lead-in
    above it. Its values (``numbers``, ``quantities``, ``names``) are its own only: the number in the Storage
    cell of the Business row is the Storage column's, not the Seats column's.
    """

    passage: int
    #: The clause or cell as read, and the same with what binds it (row label, column heading), as a trace shows it.
    text: str
    shown: str
    words: frozenset[str]
    numbers: frozenset[str]
    quantities: frozenset[tuple[str, str]]
    names: frozenset[str]
    negated: bool
    #: The restrictive words it states ("only", "unless", "disabled" …: :func:`restrictive_words`).
    restrictives: frozenset[str]
    qualifiers: frozenset[tuple[str, ...]]
    #: It refers back ("You can raise this to 50 GB"): it does not name its subject, and its words include those of
    #: the place before it.
    anaphoric: bool
    #: A line of code: its names are an example's, never a rival's, and it states no polarity.
    code: bool = False
    #: Its own words: those of the clause (a cell: with its row label and column heading), without the headings above
    #: it or the words of a place it refers back to. A polarity, a qualifier or a name is compared on these.
    own: frozenset[str] = frozenset()
    #: It states a condition ("if you need that header set and you don't want …"), not a fact.
    condition: bool = False
    #: The words its negations negate ("cannot be extended" → extend): what its polarity is about.
    negated_words: frozenset[str] = frozenset()
    #: The proper names it holds (stemmed): a plan, role or product it is about; a cell's row label and heading too.
    proper: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ContextReading:
    """The passages read once: their spans, their groups, and what the whole context holds."""

    passages: tuple[tuple[str, str], ...]
    spans: tuple[Span, ...]
    groups: tuple[Span, ...]
    #: Every counted word of each passage, by passage index.
    vocabulary: tuple[frozenset[str], ...]
    #: Every exact token and plain token of the whole context: what "the context never gives" is checked against.
    everything: frozenset[str]
    #: Each passage as the verbatim rule compares it (raw and as read, squashed).
    squashed: tuple[str, ...]
    #: The words of the passages' titles: the domain every passage is about, never a subject that tells them apart.
    titles: frozenset[str] = frozenset()
    #: Every exact token of the context (names, numbers, options, paths), without its plain words.
    names: frozenset[str] = frozenset()
    #: Every clause and table cell of every passage (:class:`Place`), in order.
    places: tuple[Place, ...] = ()
    #: The proper names of the domain, each with those it is named beside in one line (a list, a table's header,
    #: "Business and Enterprise"): names of one kind, which one can be swapped for another. A capitalised word the
    #: context also writes in lower case ("Requests", "False") is not a name.
    classmates: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: Every number with its unit that a place of the context gives: what a claim joining two facts is checked on.
    quantities: frozenset[tuple[str, str]] = frozenset()


def squash(text: str) -> str:
    """``text`` folded, its markup characters dropped and its whitespace collapsed: what a verbatim copy compares."""
    return " ".join(re.sub(r"[*_`#|>\[\]]", " ", fold(text)).split())


def _union(parts: list[Terms]) -> Terms:
    return Terms(
        frozenset().union(*(t.words for t in parts)),
        frozenset().union(*(t.exact for t in parts)),
        frozenset().union(*(t.quantities for t in parts)),
        any(t.negated for t in parts),
    )


def _tokens_of(text: str, code: tuple[str, ...]) -> frozenset[str]:
    return distinct_tokens(text) | code_names(code) | frozenset(_IDENTIFIER.findall(fold(text)))


@dataclass(frozen=True)
class _Unit:
    text: str
    terms: Terms
    tokens: frozenset[str]
    place: tuple[str, ...]  # units of one place may join
    kind: str  # the block kind
    group: int
    labels: tuple[str, ...]  # the block's labels (headings, signature)


def _version_words(text: str) -> frozenset[str]:
    """What a version note says in the words writers restate it with ("New in version 20.1" → available, since …)."""
    tokens = lx.reading_tokens(text)
    if any(notes.find(tokens) is not None for notes in lx.VERSION_NOTES):
        return frozenset(stem(w) for w in lx.VERSION_RESTATED)
    return frozenset()


def _signature_words(kind: str, text: str) -> frozenset[str]:
    """What a signature line says in words ("copytree(src, dst, symlinks=False)": the parameters copytree takes,
    symlinks defaulting to False), for a claim that restates it; nothing for any other block."""
    if kind != "signature":
        return frozenset()
    said = lx.SIGNATURE_RESTATED | (lx.SIGNATURE_DEFAULTS if "=" in text else frozenset())
    return frozenset(stem(w) for w in said)


@lru_cache(maxsize=4096)
def _units(title: str, text: str) -> tuple[_Unit, ...]:
    title = read_inline(title).text if title else ""
    title_terms = terms_of(title)
    out: list[_Unit] = []
    for block, sentence in iter_sentences_of_blocks(read_blocks(text)):
        if block.kind in ("heading", "header"):
            continue
        labels = [label for label in block.labels if label and label != sentence]
        code = tuple(c for c in block.code if c in sentence) if block.kind != "code" else ()
        own = terms_of(sentence, code)
        tokens = _tokens_of(sentence, code)
        if _PROMPT_LINE.match(sentence):  # an interactive example's numbers are its data, never a documented value
            digits = re.compile(r"^\d+(?:\.\d+)?$")
            own = Terms(own.words, frozenset(t for t in own.exact if not digits.match(t)), own.quantities, own.negated)
            tokens = frozenset(t for t in tokens if not digits.match(t))
        link_terms = [terms_of(link) for link in block.links]
        label_terms = [terms_of(label, (label,) if block.kind == "row" else ()) for label in labels]
        terms = _union([own, title_terms, *label_terms, *link_terms])
        notes = _version_words(" ".join([sentence, *labels])) | _signature_words(block.kind, sentence)
        if notes:
            terms = Terms(terms.words | notes, terms.exact, terms.quantities, terms.negated)
        tokens = tokens | distinct_tokens(title) | frozenset().union(*(_tokens_of(label, ()) for label in labels))
        tokens = tokens | frozenset().union(*(_tokens_of(link, ()) for link in block.links))
        shown = "\n".join(dict.fromkeys([*(p for p in (title, *labels) if p), sentence]))
        place = block.labels if block.kind in ("paragraph", "item") else (*block.labels, f"#{len(out)}")
        out.append(_Unit(shown, terms, tokens, place, block.kind, block.group, block.labels))
    if not out:
        out.append(_Unit(title, title_terms, distinct_tokens(title), (), "title", -1, ()))
    return tuple(out)


def _joined(index: int, units: list[_Unit], kind: str) -> Span:
    lines = list(dict.fromkeys(line for u in units for line in u.text.split("\n")))
    return Span(
        index, "\n".join(lines), _union([u.terms for u in units]), frozenset().union(*(u.tokens for u in units)), kind
    )


@lru_cache(maxsize=4096)
def passage_spans(index: int, title: str, text: str) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """``(spans, groups)`` of one passage (module docstring): units first, in order, then the joined spans."""
    units = _units(title, text)
    spans = [Span(index, u.text, u.terms, u.tokens) for u in units]
    for width in range(2, ADJACENT_UNITS + 1):
        for i in range(len(units) - width + 1):
            if len({u.place for u in units[i : i + width]}) == 1:  # never across a heading, a row or a code line
                spans.append(_joined(index, list(units[i : i + width]), "pair"))
    for one, two in zip(units, units[1:], strict=False):
        if one.labels == two.labels and {one.kind, two.kind} in ({"code", "paragraph"}, {"code", "item"}):
            spans.append(_joined(index, [one, two], "example"))
    groups: dict[int, list[int]] = {}
    for i, unit in enumerate(units):
        if unit.group >= 0:
            groups.setdefault(unit.group, []).append(i)
    grouped = []
    for members in groups.values():
        if len(members) > 2:
            first = members[0]
            lead = [first - 1] if first > 0 and units[first - 1].group != units[first].group else []
            grouped.append(_joined(index, [units[i] for i in lead + members], "group"))
    return tuple(spans), tuple(grouped)


#: Where a sentence is cut into the clauses whose values are compared: at ";", ":", a dash, brackets, the end of a
#: sentence, ", and" / ", or", "and" / "or" before a second verb ("expires after 7 days and cannot be extended"), and
#: before each word of the lexicon's ``clause_cuts`` ("because", "if", "which" …).
_CLAUSE_CUT = re.compile(
    r"\s*(?:[;()\[\]]|:\s|[.!?](?=\s)|\s[\u2013\u2014-]\s|,\s+(?=(?:and|or)\b))\s*|(?<!\bonly),?\s+(?=(?:"
    + "|".join(sorted(lx.CLAUSE_CUTS, key=len, reverse=True))
    + r")\b)|\s+(?=(?:and|or)\s+(?:"
    + "|".join(sorted((lx.AUXILIARIES | lx.CLAUSE_NEGATIONS) - {"be", "been", "being"}, key=len, reverse=True))
    + r"|can't|cannot|won't|doesn't|don't|isn't|aren't)\b)",
    re.IGNORECASE,
)


def clause_texts(sentence: str) -> list[str]:
    """The clauses of one sentence, as both a claim and its context are cut (:data:`_CLAUSE_CUT`)."""
    flat = " ".join(sentence.split())  # a hard-wrapped line is not a clause boundary
    out: list[str] = []
    lead = ""
    for piece in _CLAUSE_CUT.split(flat):
        text = piece.strip(" ,") if piece else ""
        if not text:
            continue
        if lead:
            text, lead = f"{lead} {text}", ""
        if len(text.split()) == 1 and text[-1:].isalpha():
            lead = text  # one word is no clause: "Only | when configured, …" keeps its "Only"
            continue
        out.append(text)
    if lead:
        out.append(lead)
    return out


#: A capitalised word inside a sentence ("the Business plan", "an Admin"): a proper name of the domain (a plan, a
#: role, a product) when the context writes it so too.
_PROPER = re.compile(r"(?<![.?!:]\s)(?<!^)(?<![\w'’-])[A-Z][a-z]{2,}(?![\w'’-])")


def proper_names(text: str, first: bool = False) -> frozenset[str]:
    """The capitalised words of ``text`` past its first word (folded and stemmed, as words are); ``first``: the first
    word too (a table cell or a heading is a name, not a sentence)."""
    found = set(_PROPER.findall(text))
    if first:
        found |= {m.group(1) for m in re.finditer(r"^\s*([A-Z][a-z]{2,})(?![\w'’-])", text)}
    return frozenset(stem(w.lower()) for w in found)


@lru_cache(maxsize=65536)
def line_names(text: str) -> frozenset[str]:
    """The proper names of each line of ``text``: a table cell is a name from its first word ("Business | 18"), a
    sentence's first word is not ("Note that …")."""
    out: set[str] = set()
    for line in text.splitlines():
        cells = line.split("|")
        out.update(n for cell in cells for n in proper_names(cell, len(cells) > 1))
    return frozenset(out)


#: Every capitalised word, removed to leave the words a text writes in lower case.
_LOWER_ONLY = re.compile(r"\b[A-Z]\w*|`[^`]*`")


def name_words(names: frozenset[str]) -> frozenset[str]:
    """The words inside names (``raise_for_status`` → rais, status): a name's, never the text's own."""
    return frozenset().union(*(terms_of(name).words for name in names)) if names else frozenset()


def refers_back(text: str) -> bool:
    """A clause that refers back to the one before it: it opens on a relative pronoun ("which supports 500 seats")
    or holds a pronoun that points back ("You can raise this to 50 GB"; "that" is as often a conjunction: not it)."""
    return _opens_relative(text) or bool((lx.ANAPHORA - {"that"}) & set(lx.reading_tokens(text)))


def _opens_relative(text: str) -> bool:
    tokens = lx.reading_tokens(text)
    return bool(tokens) and tokens[0] in lx.RELATIVES


_DIGITS = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")


def digit_numbers(text: str) -> frozenset[str]:
    """The numbers ``text`` writes in digits, as compared (``1,000`` = ``1000``, ``95.0`` = ``95``): the values a
    slot compares. A number word ("one of two values") is a count of the sentence's own, never a rival value."""
    return frozenset(canonical_number(m.rstrip(".,")) for m in _DIGITS.findall(text))


@lru_cache(maxsize=65536)
def restrictive_words(text: str) -> frozenset[str]:
    """The restrictive words ``text`` states (the lexicon's ``restrictives``: "only", "unless", "disabled" …). A
    place says a negative claim in other terms only with a restrictive word the claim does not state itself: in
    "accounts are not deleted after 180 days unless reactivated" against "accounts are deleted after 180 days unless
    reactivated", the shared "unless" restricts both alike, and the negation is what differs."""
    return frozenset(lx.RESTRICTIVES & set(lx.reading_tokens(text)))


def _place(
    index: int,
    text: str,
    shown: str,
    labels: frozenset[str],
    code: tuple[str, ...],
    data: bool,
    bound: frozenset[str] = frozenset(),
    proper: frozenset[str] = frozenset(),
    binding: str = "",
) -> Place:
    terms = terms_of(text, code)
    tokens = lx.reading_tokens(text)
    numbers = frozenset() if data else digit_numbers(text) & terms.exact
    names = frozenset(t for t in terms.exact if not t[:1].isdigit())
    # a name's parts are not words of the place ("raise_for_status" says nothing about raising), as in a claim
    own = terms.words - name_words(names) | bound
    negated = tuple(stem(w) for w in lx.negated_words(tokens))
    return Place(
        index,
        text,
        shown,
        own | labels,
        numbers,
        frozenset() if data else terms.quantities,
        names,
        bool(lx.CLAUSE_NEGATIONS & set(tokens)),
        restrictive_words(text),
        lx.qualifiers(tokens) | lx.qualifiers(lx.reading_tokens(binding)),
        refers_back(text),
        data,
        own,
        bool(tokens) and tokens[0] in lx.CONDITIONS,
        frozenset(negated),
        proper_names(text, True) | proper,
    )


def _referring_back(places: list[Place]) -> list[Place]:
    """A place that refers back ("You can raise this to 50 GB", "…, which holds 500 seats") is about what the place
    before it names: it takes that place's words and proper names too, and a relative clause that names no code of
    its own that place's names of code ("cg_diff is a simple program | which reads two profile files …": what the
    clause says, it says of cg_diff)."""
    out: list[Place] = []
    for place in places:
        if place.anaphoric and out and out[-1].passage == place.passage and not place.code:
            place = dataclasses.replace(
                place,
                words=place.words | out[-1].own,
                proper=place.proper | out[-1].proper,
                names=place.names or (out[-1].names if _opens_relative(place.text) else frozenset()),
            )
        out.append(place)
    return out


@lru_cache(maxsize=4096)
def passage_places(index: int, title: str, text: str) -> tuple[Place, ...]:
    """The places of one passage (:class:`Place`): each clause of a sentence or item, each cell of a table row
    under its header, each code line (its names only: an example's numbers are its data). The passage's title is
    not part of any place: it is what every place of the passage is about, so it tells none of them apart."""
    out: list[Place] = []
    for block, sentence in iter_sentences_of_blocks(read_blocks(text)):
        if block.kind in ("heading", "header") or not sentence.strip():
            continue
        labels = [label for label in block.labels if label and label != sentence]
        if block.kind == "row":
            cells = [c.strip() for c in sentence.split(" | ")]
            columns = labels[-1].count(" | ") + 1 if labels else 0
            cells += [""] * max(0, columns - len(cells))  # a row whose last cells are empty
            header = labels[-1].split(" | ") if labels and columns == len(cells) else None
            if header is not None and len(cells) > 1:
                above = frozenset().union(*(terms_of(label).words for label in labels[:-1]))
                row = terms_of(cells[0]).words
                for heading, cell in zip(header[1:], cells[1:], strict=True):
                    if cell:
                        shown = f"{cells[0]} | {heading.strip()}: {cell}"
                        code = tuple(c for c in block.code if c in cell)
                        names = proper_names(cells[0], True) | proper_names(heading, True) | proper_names(cell, True)
                        bound = row | terms_of(heading).words
                        # a cell's qualifier may stand in its heading ("Minimum version | 16.0") or row label
                        binding = f"{cells[0]} | {heading}"
                        out.append(_place(index, cell, shown, above, code, False, bound, names, binding))
                continue
        above = frozenset().union(*(terms_of(label).words for label in labels))
        code = tuple(c for c in block.code if c in sentence) if block.kind != "code" else ()
        pieces = clause_texts(sentence) if block.kind != "code" else [sentence]
        for piece in pieces:
            shown = "\n".join([*labels, piece]) if labels else piece
            out.append(_place(index, piece, shown, above, tuple(c for c in code if c in piece), block.kind == "code"))
    return tuple(_referring_back(out))


@lru_cache(maxsize=4096)
def read_context(passages: tuple[tuple[str, str], ...]) -> ContextReading:
    """The one reading of an answer's context (``(title, text)`` passages in rank order)."""
    spans: list[Span] = []
    groups: list[Span] = []
    for i, (title, text) in enumerate(passages):
        own, grouped = passage_spans(i, title, text)
        spans.extend(own)
        groups.extend(grouped)
    vocabulary = tuple(
        frozenset().union(*(s.terms.words for s in spans if s.passage == i)) for i in range(len(passages))
    )
    # an interactive example's numbers are its data, no documented value a rival could hold; but a claim that quotes
    # the example (width=11) writes what the passages write
    examples = frozenset(
        number
        for _, text in passages
        for _, sentence in iter_sentences_of_blocks(read_blocks(text))
        if _PROMPT_LINE.match(sentence)
        for number in digit_numbers(sentence)
    )
    everything = frozenset().union(*(s.terms.exact | s.tokens for s in spans)) | examples
    squashed = tuple(
        squash(f"{title}\n{text}\n" + "\n".join(b.text for b in read_blocks(text))) for title, text in passages
    )
    titles = frozenset().union(*(terms_of(read_inline(title).text).words for title, _ in passages))
    names = frozenset().union(*(s.terms.exact for s in spans))
    places = tuple(place for i, (title, text) in enumerate(passages) for place in passage_places(i, title, text))
    quantities = frozenset().union(*(place.quantities for place in places))
    return ContextReading(
        passages, tuple(spans), tuple(groups), vocabulary, everything, squashed, titles, names, places,
        _classmates(passages), quantities,
    )


def _classmates(passages: tuple[tuple[str, str], ...]) -> dict[str, frozenset[str]]:
    """Each proper name of the passages with the names written beside it in one line (module docstring). A word is
    a name when the passages write it capitalised inside a sentence at least as often as in lower case ("Business"
    the plan beside "business hours" once; not "Requests" beside "requests.get" and "HTTP requests")."""
    text = "\n".join(t for _, t in passages)
    lower = Counter(stem(w) for w in re.findall(r"\b[a-z]{3,}\b", _LOWER_ONLY.sub(" ", text)))
    upper = Counter(stem(w.lower()) for w in _PROPER.findall(text))
    out: dict[str, set[str]] = {}
    for _, passage in passages:
        for line in passage.splitlines():
            found = set(line_names(line))
            names = {n for n in found if upper[n] >= lower[n]}
            for name in names:
                out.setdefault(name, set()).update(names - {name})
    return {name: frozenset(mates) for name, mates in out.items()}
