"""One reading of an answer: blocks → sentences → clauses, each with the role a reviewer gives it.

Every judgement of an answer (support, correctness, the review queue) reads this structure, made once
per answer by :func:`read_answer`; nothing else in the judge splits the answer again. The answer is
read through its markup (:func:`evalgate_lib.text.markup.read_blocks`: Markdown, reStructuredText or
HTML, each by its own parser), so markup never decides a verdict: a hard-wrapped paragraph is one
paragraph, ``**bold**`` and backticks are read as the words they hold, a fenced block is code.

Each sentence is cut into clauses at the connectives that turn a sentence ("but", "however", ";", a dash
…), and each clause gets one **role**, decided by the first rule of :data:`ROLE_RULES` that applies:

========== ==========================================================================================
role       what it is, and how the judge reads it
========== ==========================================================================================
code       a line of a code block or a shell/REPL line: an example, checked for its options and names
heading    a heading, a table's header row, or a lead-in ending with ":": labels what follows
sources    a closing list of references ("Sources: [1], [3]")
question   a question the answer writes ("Question: …?")
self       a sentence about the answer itself that names nothing ("The above answer is correct.")
courtesy   greetings, thanks, apologies, offers of help
decline    the writer cannot answer, or says the context lacks something: claims nothing
context    what the context covers ("The passages cover A and B"): judged topic by topic
polar      a bare "Yes." / "No.": the answer's other sentences carry what it claims
echo       restates the question and adds nothing: claims nothing new
claim      everything else: a statement about the world, judged against the context
========== ==========================================================================================

A frame ("According to the documentation,", "The docs say that", "**Tip:**", "Keep in mind that") is
removed and kept beside the clause; what follows it is what is judged. Citation marks ("[2]") are
removed before anything is read: their digits are references, not numbers. A sentence that repeats an
earlier one word for word is marked as a repeat of it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Literal

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.terms import terms_of
from evalgate_lib.text.markup import Block, iter_sentences_of_blocks, read_blocks

Role = Literal[
    "code",
    "heading",
    "sources",
    "question",
    "self",
    "courtesy",
    "decline",
    "context",
    "polar",
    "echo",
    "claim",
]

#: How many words apart the parts of one frame may stand: the context named as a subject ("the provided
#: documentation …"), a negation and the verb it negates ("does not explicitly mention"), "no X is specified".
PHRASE_WINDOW = 5

#: Roles that claim something the context must support.
CLAIMING: frozenset[str] = frozenset({"claim", "context", "code"})

#: Citation marks: "[1]", "[2][3]", "[1, 3]", "[1-2]", "(source 2)", "【1】".
_CITATION = re.compile(
    r"\s*(?:\[\d+(?:\s*[,;–-]\s*\d+)*\](?!\()|\((?:source|passage|doc(?:ument)?|ref)s?\.?\s*\d+(?:\s*[,&]\s*\d+)*\)"
    r"|【\d+】)",
    re.IGNORECASE,
)
#: Where the model starts a question of its own ("Question: …" on a new line): the answer proper ends there.
_NEW_QUESTION = re.compile(r"^\s*(?:\*\*)?(?:question|q)\s*\d*\s*[:.]", re.IGNORECASE | re.MULTILINE)
#: A shell or REPL line written in prose: a prompt, or a command word and its arguments.
_SHELL = re.compile(r"^\s*(?:\$\s|>>>\s|\.\.\.\s|#!)")


@dataclass(frozen=True)
class Clause:
    """One clause of a sentence: its text (frame removed), its role and the rule that gave it."""

    text: str
    role: Role
    rule: str
    #: The frame removed before the clause was read ("According to the docs,", "**Tip:**", "keep in mind that").
    frame: str = ""
    #: After a decline, a clause that opens on a hedge or a referral is background, not an answer.
    background: bool = False
    #: The clause draws a conclusion ("so X is not supported"): an answer, even after a partial decline.
    conclusion: bool = False
    #: The clause reports what the context says ("The docs say that X", an item under "They only mention that:"):
    #: judged against the context like any claim, but never the writer's own answer to the question.
    reported: bool = False
    #: The writer offers the clause from its own knowledge ("From my general knowledge, X"): after a decline, X is
    #: the answer it gives in the context's place.
    own_knowledge: bool = False


@dataclass(frozen=True)
class Sentence:
    """One sentence (or code line, row, heading) of the answer as read."""

    index: int
    #: The sentence as read: markup read, citation marks removed.
    text: str
    #: The stretch of the answer it was read from (an exact substring when it can be found, else ``text``).
    source: str
    #: The kind of block it stands in: ``paragraph``, ``item``, ``heading``, ``row``, ``header``, ``code`` …
    block: str
    code: tuple[str, ...]
    clauses: tuple[Clause, ...]
    #: Before the model starts a new "Question:" of its own (only the answer proper is read for correctness).
    in_answer: bool = True
    #: The index of an earlier sentence this one repeats word for word, else ``None``.
    repeats: int | None = None

    @property
    def role(self) -> Role:
        """The sentence's role: ``claim`` if any clause claims, else the role of its first clause."""
        for wanted in ("claim", "context", "code"):
            if any(c.role == wanted for c in self.clauses):
                return wanted  # type: ignore[return-value]
        return self.clauses[0].role if self.clauses else "heading"

    @property
    def rule(self) -> str:
        return next((c.rule for c in self.clauses if c.role == self.role), "")

    @property
    def claim(self) -> str:
        """What the sentence claims: its claiming clauses, frames removed ("" when it claims nothing)."""
        return " ".join(c.text for c in self.clauses if c.role in CLAIMING).strip()

    @property
    def declines(self) -> bool:
        return any(c.role == "decline" for c in self.clauses)


@dataclass(frozen=True)
class AnswerReading:
    """The answer read once: its sentences in order, each with its clauses and their roles."""

    answer: str
    question: str
    sentences: tuple[Sentence, ...]

    @property
    def proper(self) -> tuple[Sentence, ...]:
        """The answer proper: the sentences before the model starts a question of its own."""
        return tuple(s for s in self.sentences if s.in_answer)

    @property
    def lead(self) -> Sentence | None:
        """The first sentence that says something (not a heading or a courtesy)."""
        return next((s for s in self.proper if s.role not in ("heading", "courtesy", "sources")), None)


# --------------------------------------------------------------------------------------------- role rules


@dataclass(frozen=True)
class RoleRule:
    """One rule of the reading: a stable id, the role it gives, what it decides, an example."""

    id: str
    role: Role
    decides: str
    example: str
    applies: Callable[[str, str], bool]  # (clause text, question) → whether the rule gives its role


def _tokens(text: str) -> tuple[str, ...]:
    return lx.reading_tokens(text)


def _courtesy(text: str, question: str) -> bool:
    tokens = _tokens(text)
    if not tokens:
        return False
    if lx.COURTESY_ALONE.at(tokens, 0) == tokens:
        return True
    found = lx.COURTESY.find(tokens)
    return found is not None and not terms_of(text).exact and not _declines(text, question)


def _source_subject(tokens: tuple[str, ...]) -> int | None:
    """Where the clause's subject names the context ("the provided documentation …", "it", "they"), else ``None``:
    the index just after that noun phrase."""
    for i, token in enumerate(tokens[:PHRASE_WINDOW]):
        if token in lx.SOURCE_NOUNS:
            return i + 1
        if i == 0 and token in ("it", "they"):
            return 1
        if token in lx.NEGATIONS or token in lx.AUXILIARIES:
            return None
    return None


def _declines(text: str, question: str) -> bool:
    tokens = _tokens(text)
    if lx.DECLINES.find(tokens) is not None:
        return True
    subject = _source_subject(tokens)
    if subject is not None:  # "the context does not mention X", "the passages have no …", "it doesn't say"
        rest = tokens[subject : subject + PHRASE_WINDOW]
        negation = next((i for i, t in enumerate(rest) if t in lx.NEGATIONS), None)
        if negation is not None and any(t in lx.REPORT_VERBS or t in ("have", "has") for t in rest[negation:]):
            return True
    # "X is not mentioned", "isn't explicitly documented", "no default is specified": a participle of speech
    # negated right before it; or any report verb so negated and followed by the context ("isn't shown in the
    # excerpts I have")
    for i, token in enumerate(tokens):
        if token in lx.REPORT_VERBS and _negated_here(tokens, i):
            if token in lx.SPEECH_PARTICIPLES or any(t in lx.SOURCE_NOUNS for t in tokens[i + 1 : i + PHRASE_WINDOW]):
                return True
    return False


def _negated_here(tokens: tuple[str, ...], i: int) -> bool:
    """Whether ``tokens[i]`` is negated right before it: "not (is, explicitly …) mentioned", or "no X is mentioned"
    (a "no" at most four words before a copula that stands right before it)."""
    j = i - 1
    while j >= 0 and (tokens[j] in lx.AUXILIARIES or tokens[j] in lx.INTENSIFIERS):
        j -= 1
    if j >= 0 and tokens[j] in lx.NEGATIONS:
        return True
    copula = i - 1 if i and tokens[i - 1] in lx.COPULAS else None
    return copula is not None and "no" in tokens[max(0, copula - PHRASE_WINDOW) : copula]


def _context_statement(text: str, question: str) -> bool:
    tokens = _tokens(text)
    subject = _source_subject(tokens)
    if subject is None or tokens[0] in ("it", "they") and len(tokens) < 3:
        return False
    verbs = tokens[subject : subject + 3]
    return any(t in lx.REPORT_VERBS for t in verbs) and not any(t in lx.NEGATIONS for t in verbs)


def _polar(text: str, question: str) -> bool:
    tokens = _tokens(text)
    return len(tokens) == 1 and tokens[0] in lx.POLAR


def _echo(text: str, question: str) -> bool:
    """Every word and name of ``text`` is the question's, and it negates as the question does (a "not" the question
    lacks is an answer: "requests.head() does not follow redirects by default")."""
    if not question:
        return False
    said, asked = terms_of(text), terms_of(question)
    return (
        bool(said.words or said.exact)
        and said.words <= asked.words
        and said.exact <= asked.exact
        and said.negated == asked.negated
        and lx.POLAR.isdisjoint(_tokens(text)[:1])
    )


#: The clause-level rules, in the order they are tried (the first that applies gives the role).
ROLE_RULES: tuple[RoleRule, ...] = (
    RoleRule(
        "role.courtesy",
        "courtesy",
        "greetings, thanks, apologies and offers of help claim nothing",
        "I hope this helps!",
        _courtesy,
    ),
    RoleRule(
        "role.decline",
        "decline",
        "the writer cannot answer, or says the context does not say something: claims nothing",
        "The context doesn't say how many times pip retries.",
        _declines,
    ),
    RoleRule(
        "role.context",
        "context",
        "a statement of what the context covers is judged against the context, topic by topic",
        "The passages cover scheduling timeouts and cancelling them.",
        _context_statement,
    ),
    RoleRule(
        "role.polar", "polar", "a bare yes or no: the other sentences carry what the answer claims", "Yes.", _polar
    ),
    RoleRule(
        "role.echo",
        "echo",
        "a clause whose every word and name is the question's claims nothing new",
        "The default start directory of os.path.relpath() is",
        _echo,
    ),
)


@dataclass(frozen=True)
class SentenceRule:
    """One sentence-level rule, tried before a sentence is cut into clauses: its id, the role it gives, what it
    decides, an example, and the test it runs on ``(block kind, text, code spans)``."""

    id: str
    role: Role
    decides: str
    example: str
    applies: Callable[[str, str, tuple[str, ...]], bool]


def _is_code(block: str, text: str, code: tuple[str, ...]) -> bool:
    stripped = text.strip()
    return (
        block in ("code", "signature")
        or bool(_SHELL.match(stripped))
        or len(code) == 1
        and stripped.strip("`") == code[0]
    )


def _is_heading(block: str, text: str, code: tuple[str, ...]) -> bool:
    stripped = text.strip()
    return block in ("heading", "header") or stripped.endswith(":") and not terms_of(stripped, code).exact


def _is_sources(block: str, text: str, code: tuple[str, ...]) -> bool:
    pattern = r"\W*(?:sources?|references?|citations?)\s*:?\s*[\s,;\[\]\d&]*\W*"
    return re.fullmatch(pattern, text.strip(), re.IGNORECASE) is not None


def _is_question(block: str, text: str, code: tuple[str, ...]) -> bool:
    stripped = text.strip()
    return stripped.rstrip("*_ ").endswith("?") or _NEW_QUESTION.match(stripped) is not None


def _is_self(block: str, text: str, code: tuple[str, ...]) -> bool:
    stripped = text.strip()
    tokens = _tokens(stripped)
    positioned = len(tokens) > 2 and tokens[1] in lx.SELF_POSITIONS and tokens[2] in lx.SELF_NOUNS
    judged = len(tokens) > 2 and tokens[1] in lx.SELF_NOUNS and bool(lx.SELF_JUDGEMENTS & set(tokens[2:PHRASE_WINDOW]))
    if not (tokens and tokens[0] in lx.ANAPHORA | {"the", "my", "our"} and (positioned or judged)):
        return False
    return not terms_of(stripped).exact and not re.search(r"(?<!^)\b[A-Z][a-z]", stripped)


#: The sentence-level rules, in the order they are tried before a sentence is cut into clauses.
SENTENCE_RULES: tuple[SentenceRule, ...] = (
    SentenceRule(
        "role.code",
        "code",
        "a line of a code block, or a shell/REPL line, is an example",
        "$ pip cache purge",
        _is_code,
    ),
    SentenceRule(
        "role.heading",
        "heading",
        "a heading, a table header or a lead-in ending with ':' labels what follows",
        "Here's a summary of the differences:",
        _is_heading,
    ),
    SentenceRule(
        "role.sources", "sources", "a closing list of references claims nothing", "Sources: [1], [3]", _is_sources
    ),
    SentenceRule(
        "role.question",
        "question",
        "a question the answer writes claims nothing",
        "Question: How many seats?",
        _is_question,
    ),
    SentenceRule(
        "role.self",
        "self",
        "a sentence about the answer itself that names nothing claims nothing",
        "The above answer is correct.",
        _is_self,
    ),
)


# --------------------------------------------------------------------------------------------- frames

_OPENER_PATTERN = re.compile(
    r"^\s*(?:"
    + "|".join(r"\s+".join(map(re.escape, o)) for o in lx.FRAME_OPENERS)
    + r")\s+(?:the\s+|these\s+|this\s+|your\s+)?"
    r"(?:provided\s+|given\s+|retrieved\s+|above\s+)?(?P<noun>[\w\[\]]+)(?:\s+(?:provided|given|above|here))?\s*[,:]\s*",
    re.IGNORECASE,
)


def _strip_frames(text: str) -> tuple[str, str]:
    """``(frame, rest)``: a leading label ("**Tip:**" as read: "Tip:"), a source frame ("According to the docs,",
    "The docs say that") or an advice frame ("Keep in mind that") removed; ``frame`` is ``""`` when there is none."""
    frame = ""
    label = re.match(r"^\s*([^:]+?):\s+(?=\S)", text)
    if label and _tokens(label.group(1)) in lx.LABELS:
        frame, text = label.group(0), text[label.end() :]
    opener = _OPENER_PATTERN.match(text)
    if opener and (opener.group("noun").lower() in lx.SOURCE_NOUNS or opener.group("noun").startswith("[")):
        return frame + opener.group(0), text[opener.end() :]
    lead = re.match(r"^\s*(?:if|from|as)\b[^,;:]{1,80},\s*(?=\S)", text, re.IGNORECASE)
    if lead and _reading_lead(_tokens(lead.group(0))):
        # "If I read the documentation correctly, X", "From what the passages say, X": the claim is X
        return frame + lead.group(0), text[lead.end() :]
    tokens = _tokens(text)
    if tokens[:1] == ("what",) and (reported := _source_subject(tokens[1:])) is not None:
        # "What it does say is that X", "What the context mentions is X": the claim is X
        rest = tokens[1 + reported :]
        k = next((i for i, t in enumerate(rest[:PHRASE_WINDOW]) if t in lx.COPULAS), None)
        if k is not None and any(t in lx.REPORT_VERBS for t in rest[:k]):
            end = _phrase_end(text, 1 + reported + k + 1)
            if end is not None and text[end:].strip():
                return frame + text[:end], text[end:]
    subject = _source_subject(tokens)
    if subject is not None and len(tokens) > subject + 1 and tokens[subject] in lx.REPORT_VERBS:
        # "The documentation says that X", "It states: X": the claim is X
        that = re.search(r"\b(?:" + re.escape(tokens[subject]) + r")\b\s*(?:that\b|:)\s*", text, re.IGNORECASE)
        if that:
            return frame + text[: that.end()], text[that.end() :]
    for phrases in (lx.ADVICE, lx.OWN_KNOWLEDGE):
        found = phrases.find(tokens)
        if found is not None and found[0] == 0:
            end = _phrase_end(text, len(found[1]))
            if end is not None and text[end:].strip():
                return frame + text[:end], text[end:]
    return frame, text


def _reading_lead(tokens: tuple[str, ...]) -> bool:
    """A lead-in that only says how the writer reads the context: a source noun, and besides it only the reader's
    words (lexicon ``sources.reading``), report verbs and stopwords ("if the documentation build fails" is a
    condition of its own: *build*, *fails*)."""
    return any(t in lx.SOURCE_NOUNS for t in tokens) and all(
        t in lx.SOURCE_NOUNS or t in lx.SOURCE_READING or t in lx.REPORT_VERBS or t in lx.STOPWORDS for t in tokens
    )


_WORD = re.compile(r"[\w.]+(?:['\u2019]\w+)?")


def _phrase_end(text: str, count: int) -> int | None:
    """Where the first ``count`` reading tokens of ``text`` end in ``text`` itself (contractions count as the words
    they spell: "I'd" is two), with a following "that" and punctuation; ``None`` if the text is shorter."""
    seen = 0
    for word in _WORD.finditer(text):
        seen += len(_tokens(word.group()))
        if seen >= count:
            rest = re.match(r"(?:\s+that\b)?[\s,:]*", text[word.end() :])
            return word.end() + (rest.end() if rest else 0)
    return None


# --------------------------------------------------------------------------------------------- reading


def _connective_cut() -> re.Pattern[str]:
    words = sorted(lx.CONNECTIVES - {"and", "which", "because", "since", "plus", "unless"})
    return re.compile(
        r"(?:[,;:]\s*|\s+[-–—]\s+|\s+)(?=(?:" + "|".join(words) + r")\b(?!\s+that\b))|;\s+|\s+[–—]\s+", re.IGNORECASE
    )


_CUT = _connective_cut()


def _clause_pieces(text: str) -> list[str]:
    pieces = [p.strip(" ,;") for p in _CUT.split(text)]
    return [p for p in pieces if p and _tokens(p)]


def _clause(text: str, question: str, first: bool, disabled: frozenset[str] = frozenset()) -> Clause:
    tokens = _tokens(text)
    opener = tokens[0] if tokens else ""
    conclusion = opener in lx.CONCLUSIONS
    if opener in lx.CONNECTIVES and len(tokens) > 1:  # "but it doesn't say": the connective is not the clause's
        text = re.sub(r"^\W*\w+\W*", "", text, count=1)
        tokens = tokens[1:]
        opener = tokens[0]
    background = opener in lx.HEDGES or lx.REFERRALS.find(tokens) is not None or opener in ("if", "when")
    for rule in ROLE_RULES:
        if rule.id not in disabled and rule.applies(text, question):
            if rule.role == "context":
                frame, rest = _strip_frames(text)
                if frame and rest.strip():  # "The docs say that X": the claim is X
                    return Clause(rest.strip(), "claim", "role.frame", frame, background, conclusion, reported=True)
                return Clause(text, rule.role, rule.id, "", background, conclusion, reported=True)
            return Clause(text, rule.role, rule.id, "", background, conclusion)
    frame, rest = _strip_frames(text)
    rest = rest.strip() or text
    if frame and _echo(rest, question):
        return Clause(rest, "echo", "role.echo", frame)
    if frame and _polar(rest, question):  # "According to the provided context, no."
        return Clause(rest, "polar", "role.polar", frame)
    reported = bool(frame) and _source_frame(frame)
    own = lx.OWN_KNOWLEDGE.find(_tokens(frame)) is not None
    return Clause(rest, "claim", "role.claim", frame, background and not own, conclusion, reported, own)


def _source_frame(frame: str) -> bool:
    """Whether a removed frame names the context ("According to the docs,", "What it does say is that")."""
    tokens = _tokens(frame)
    return (
        any(t in lx.SOURCE_NOUNS for t in tokens)
        or _source_subject(tokens) is not None
        or (bool(tokens) and tokens[0] == "what")
    )


def _clauses(text: str, question: str, disabled: frozenset[str] = frozenset()) -> tuple[Clause, ...]:
    """The clauses of one sentence. It is cut at its connectives so that a decline or a courtesy stands apart from
    what the sentence claims; pieces that are neither are joined back to the piece before them (a claim's "but
    only for annual plans" is part of the claim), except a conclusion after a decline or a statement about the
    context ("They say A and B, so X is not supported"), which answers on its own."""
    pieces = _clause_pieces(text) or [text]
    read = [_clause(p, question, i == 0, disabled) for i, p in enumerate(pieces)]
    out: list[tuple[list[str], Clause]] = []
    for piece, clause in zip(pieces, read, strict=True):
        quiet = ("decline", "courtesy")
        if (
            out
            and clause.role not in quiet
            and out[-1][1].role not in quiet
            and not (clause.conclusion and out[-1][1].role in ("decline", "context"))
        ):
            out[-1][0].append(piece)
            continue
        out.append(([piece], clause))
    if len(out) == 1 and len(pieces) > 1:  # every piece joined back: the sentence is one clause, read whole
        return (_clause(text, question, True, disabled),)
    return tuple(
        clause if len(group) == 1 else _clause(", ".join(group), question, True, disabled) for group, clause in out
    )


def _sentence_role(
    block: str, text: str, code: tuple[str, ...], disabled: frozenset[str] = frozenset()
) -> tuple[Role, str] | None:
    """The role the first of :data:`SENTENCE_RULES` that applies gives the sentence, tried in order; else ``None``."""
    for rule in SENTENCE_RULES:
        if rule.id not in disabled and rule.applies(block, text, code):
            return rule.role, rule.id
    return None


def _located(answer: str, text: str, start: int) -> tuple[str, int, int]:
    """``(stretch, begin, end)``: the stretch of ``answer`` from ``start`` on that holds ``text``'s words in order
    (markup between them allowed), or ``(text, start, start)`` when it cannot be found."""
    words = re.findall(r"\w+", text)
    found = answer.find(words[0], start) if words else -1
    if found < 0:
        return text, start, start
    cursor = found + len(words[0])
    for word in words[1:]:
        nxt = answer.find(word, cursor)
        if nxt < 0 or nxt - cursor > 40:
            return text, start, start
        cursor = nxt + len(word)
    while cursor < len(answer) and answer[cursor] in ".!?)]*_`'\"":
        cursor += 1
    return answer[found:cursor], found, cursor


@lru_cache(maxsize=4096)
def read_answer(answer: str, question: str = "", disabled: frozenset[str] = frozenset()) -> AnswerReading:
    """The one reading of ``answer`` (see the module docstring); ``question`` tells an echo of it from a claim."""
    proper_end = len(answer)
    found = _NEW_QUESTION.search(answer)
    if found is not None and answer[: found.start()].strip():
        proper_end = found.start()
    sentences: list[Sentence] = []
    seen: dict[str, int] = {}
    cursor = 0
    reporting = False
    blocks = read_blocks(answer)
    if not blocks and answer.strip():  # "5." alone parses as an empty list item: the number is the answer
        blocks = (Block("paragraph", answer.strip()),)
    for block, raw in iter_sentences_of_blocks(blocks):
        text = _CITATION.sub("", raw).strip() if block.kind != "code" else raw.rstrip()
        if not text.strip():
            continue
        source, begin, cursor = _located(answer, raw, cursor)
        in_answer = begin < proper_end
        code = tuple(c for c in block.code if c in text) if block.kind != "code" else block.code
        decided = _sentence_role(block.kind, text, code, disabled)
        if decided is not None:
            clauses: tuple[Clause, ...] = (Clause(text.strip(), decided[0], decided[1]),)
        else:
            clauses = _clauses(text, question, disabled)
        if reporting and block.kind == "item":  # an item under "They only mention that:" reports the context
            clauses = tuple(dataclasses.replace(c, reported=True) for c in clauses)
        elif block.kind != "item":
            reporting = text.rstrip().endswith(":") and _source_subject(_tokens(text)) is not None
        key = " ".join(_tokens(text))
        repeats = seen.get(key) if len(key) > 0 else None
        seen.setdefault(key, len(sentences))
        sentences.append(Sentence(len(sentences), text.strip(), source, block.kind, code, clauses, in_answer, repeats))
    return AnswerReading(answer, question, tuple(sentences))
