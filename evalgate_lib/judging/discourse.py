"""What a fluent sentence does before what it claims: declines, talk about the context, courtesy, citations.

A capable generator wraps its claims in discourse a small model never writes: "According
to the documentation, …", "The context doesn't say how many times pip retries", "I hope
this helps!", "[2]". None of that is a claim about the world, and the labelling guide
says how each is read:

* a **decline** ("I don't know", "I couldn't find that in the provided context", "The
  sources don't cover euro prices") claims nothing; as an answer's first sentence it makes
  the answer a refusal;
* a **statement about what the context does not say** is a decline of that part: it claims
  nothing about the world;
* a **statement about what the context does say** ("The context only gives prices in US
  dollars", "According to [1], …") claims what follows the frame: the frame is removed and
  the rest is judged like any claim;
* **courtesy** ("Great question!", "Let me know if you need anything else.") claims nothing;
* **citation marks** ("[1]", "[2][3]", "(source 1)") and a closing "Sources: [1], [3]" line
  are references, not content: removed before a sentence is judged (their digits are not
  numbers the context must hold).

Every rule is a regular expression written out below, so a reader can see why a sentence
was read as it was. Matching is case-insensitive on the sentence with curly quotes
straightened (:func:`evalgate_lib.text.tokens.fold`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from evalgate_lib.text.tokens import fold, sentences_of

#: What an answer may call its context.
_SOURCE = (
    r"(?:the |this |these |that |those |your |provided |given |retrieved |available |above |supplied )*"
    r"(?:context|contexts|documentation|docs|documents?|passages?|sources?|excerpts?|texts?|articles?|"
    r"information(?: (?:provided|given|available))?|material|snippets?|pages?|guides?|sections?|"
    r"\[\d+\](?:\s*(?:and|,)\s*\[\d+\])*)"
    r"(?: (?:provided|given|above|here|available|retrieved|shown|supplied|i have|i was given|"
    r"you (?:shared|gave|provided)))?"
)
_SAY = (
    r"(?:say|says|said|mention|mentions|mentioned|state|states|stated|specify|specifies|specified|include|includes|"
    r"included|contain|contains|contained|provide|provides|provided|give|gives|given|cover|covers|covered|list|"
    r"lists|listed|describe|describes|described|address|addresses|addressed|discuss|discusses|explain|explains|"
    r"explained|indicate|indicates|indicated|detail|details|detailed|document|documents|documented|tell|tells|"
    r"show|shows|note|notes|offer|offers|define|defines|go into|talk about|talks about|appear to|seem to|answer)"
)
_NOT = (
    r"(?:does not|doesn't|do not|don't|did not|didn't|does n't|is not|isn't|are not|aren't|was not|wasn't|"
    r"cannot|can't|never)"
)

#: Declines: the answer says it cannot answer (or cannot answer this part) from its context.
DECLINE_PATTERNS: tuple[str, ...] = (
    r"\bi (?:do not|don't|dont|really don't) (?:know|have (?:enough |any |that |the )?(?:information|details|data))\b",
    r"\bi(?:'m| am) (?:not sure|unsure|unable|not able)\b",
    r"\bi (?:cannot|can't|can not|could not|couldn't|was unable to|am unable to|wasn't able to) "
    r"(?:find|answer|determine|tell|say|confirm|locate|see|provide|give|speak)\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) (?:be )?(?:answer|answered|determine|determined|tell|"
    r"confirm|confirmed|found)\b",
    rf"\b{_SOURCE} {_NOT} (?:\w+ )?{_SAY}\b",
    rf"\b{_SOURCE} (?:(?:only|just) )?(?:has|have|contains?|provides?|gives?|includes?|offers?) no\b",
    rf"\bno(?:thing| mention| information| details?| data| answer| indication| reference)\b.{{0,80}}\b"
    rf"(?:in|from|within) {_SOURCE}",
    rf"\b(?:is|are|was|were) not (?:\w+ )?(?:mentioned|stated|provided|specified|covered|included|given|"
    rf"available|listed|described|documented|addressed|discussed|found|present|explained|specified|detailed|"
    rf"indicated)\b.{{0,40}}\b(?:in|by|within|from) {_SOURCE}",
    r"\b(?:isn't|aren't|wasn't|weren't) (?:\w+ )?(?:mentioned|stated|provided|specified|covered|included|given|"
    r"available|listed|described|documented|addressed|discussed|found|explained|detailed)\b",
    r"\bthere(?:'s| is| are) no (?:information|mention|details?|data|answer|indication|reference|specific|"
    r"explicit)\b",
    r"\b(?:no|not enough|insufficient) (?:information|details?)\b",
    r"\bthere is no answer\b",
    r"\b(?:it|they) (?:does not|doesn't|do not|don't|did not|didn't) (?:say|mention|specify|state|list|give|tell|"
    r"document|indicate|explain|describe|go into|provide (?:a|any|the))\b",
    rf"\b{_SOURCE} (?:(?:only|just) )?(?:talks? about|focus(?:es)? on|covers?|describes?|discuss(?:es)?|"
    rf"mentions?|lists?|gives?|provides?|says?|deals? with|explains?) (?:only|just)\b",
    r"\bwithout (?:more|additional|further) (?:information|context|details)\b",
    r"\b(?:not|n't) (?:explicitly |directly |specifically )?(?:covered|addressed|answered|mentioned|stated|"
    r"specified|documented)\b",
    # "No TTL option is mentioned.", "No default is given for it."
    r"^\W*no (?:[\w`'-]+ ){1,4}(?:is|are|was|were) (?:mentioned|given|listed|documented|specified|described|stated|"
    r"provided)\b",
)
_DECLINE = re.compile("|".join(DECLINE_PATTERNS))

#: A frame that introduces what the context says: removed, and the rest judged as a claim.
_SOURCE_FRAME = re.compile(
    rf"^\s*(?:(?:according to|based on|per|from|as (?:stated|noted|described|mentioned|shown|explained) in|"
    rf"as per|in) {_SOURCE}\s*[,:]?\s*"
    rf"|{_SOURCE} (?:(?:also|only|just|clearly|explicitly) )?(?:says?|states?|mentions?|notes?|explains?|"
    rf"indicates?|specifies|specify|describes?|shows?|confirms?|lists?|gives?|provides?|covers?|suggests?|"
    rf"talks? about|refers? to)(?: that)?\s*:?\s*"
    rf"|(?:it|they) (?:(?:also|only|just|does|do) )?(?:says?|states?|mentions?|notes?|explains?|describes?|lists?|"
    rf"gives?|covers?|shows?|documents?|talks? about)(?: that)?\s+"
    rf"|what (?:it|they|{_SOURCE}) (?:(?:does|do) )?(?:says?|states?|mentions?|notes?|describes?|lists?|gives?|"
    rf"covers?|shows?) (?:is|are)(?: that)?\s*:?\s*)",
    re.IGNORECASE,
)

#: Courtesy and offers of help: no claim.
COURTESY_PATTERNS: tuple[str, ...] = (
    r"^\W*(?:great|good|excellent|nice) question\W*$",
    r"^\W*(?:sure|certainly|absolutely|of course|happy to help|glad to help|great|good news)\W*$",
    r"\b(?:i )?hope (?:this|that|it) helps\b",
    r"\blet me know if\b",
    r"\bfeel free to\b",
    r"\bhappy to help\b",
    r"\bif you have (?:any )?(?:other|more|further|additional) questions\b",
    r"\b(?:good luck|happy coding|have a (?:great|nice|good) day)\b",
    r"^\W*(?:here(?:'s| is) (?:what|how|a quick|the)|here are)\b[^.]*:\s*$",
    r"^\W*(?:great|good|excellent) question\b",
    # apologies: "I'm sorry, but the context doesn't mention …" declines in its other clause
    r"^\W*(?:i'?m|i am) (?:really |very |so )?sorry\W*$",
    r"^\W*(?:sorry|unfortunately|regrettably|apologies|my apologies)\W*$",
)
_COURTESY = re.compile("|".join(COURTESY_PATTERNS))

#: Advice and opinion: "It's a good idea to switch early", "A handy trick is …". Without a number,
#: option, path or name of its own such a sentence states no checkable fact (the guide's "claim").
ADVICE_PATTERNS: tuple[str, ...] = (
    r"\b(?:it'?s|it is|that'?s|that is|this is) (?:a |an )?(?:good|great|nice|smart|wise|useful|handy|helpful|"
    r"excellent|best|safe|sensible|common) (?:idea|way|practice|habit|approach|option|choice|move|bet|thing|"
    r"feature|detail|touch|bonus|benefit|tip|rule of thumb)\b",
    r"^\W*(?:a |one )?(?:nice|handy|useful|helpful|great|good|quick|pro|important|small) "
    r"(?:bonus|detail|touch|tip|benefit|thing|note|trick|point|reminder)\b",
    r"\b(?:i'?d|i would|we'?d|we would) (?:recommend|suggest|advise)\b",
    r"\b(?:don'?t|do not) (?:worry|panic|forget)\b",
    r"\b(?:keep in mind|be sure to|make sure (?:to|you)|remember to|consider (?:using|checking|switching))\b",
    r"\b(?:you (?:may|might) (?:want|wish) to|it (?:may|might) (?:be worth|help))\b",
    r"\bworth (?:it|checking|noting|knowing|considering)\b",
)

_ADVICE = re.compile("|".join(ADVICE_PATTERNS))

#: General knowledge, not the answer: "Usually …", "Typically …", "Many systems cap …", "Most providers …". The
#: labelling guide's example of background after a decline ("I couldn't find it in the context. Usually …").
_GENERAL = re.compile(
    r"^\W*(?:usually|typically|generally|in general|commonly|traditionally|as a rule|in most cases|"
    r"(?:many|most|some|other) (?:\w+ )?(?:systems|services|providers|platforms|apps|applications|tools|products|"
    r"companies|vendors|libraries|programs|websites|sites|file systems|operating systems|clouds|teams|people))\b",
    re.IGNORECASE,
)


#: A referral: "… would be your best bet", "… is your best option" (where to look, not what is there).
_REFERRAL = re.compile(
    r"\b(?:would|will|is|are|be) (?:be )?your best (?:bet|option|source|resource|place)\b"
    r"|^\W*(?:you (?:might|may) (?:be thinking of|mean|have meant)|perhaps you mean|did you mean)\b"
    r"|\b(?:i'?m|i am) not (?:certain|sure)\b"
)


def is_background(sentence: str) -> bool:
    """True for a sentence that, after a decline, is background rather than an answer given anyway: advice
    (:data:`ADVICE_PATTERNS`), a referral ("the website would be your best bet", "You might be thinking of …"), a
    value the writer says it is unsure of ("… but I'm not certain of the exact version") or general knowledge
    ("Usually …", "Many systems cap …", :data:`_GENERAL`)."""
    folded = fold(sentence)
    return bool(_ADVICE.search(folded) or _REFERRAL.search(folded) or _GENERAL.search(folded))


#: Citation marks: "[1]", "[2][3]", "[1, 3]", "[1-2]", "(source 2)", "【1】".
_CITATION = re.compile(
    r"\s*(?:\[(?:\d+(?:\s*[,;–-]\s*\d+)*)\](?!\()|\((?:source|passage|doc(?:ument)?|ref)s?\.?\s*\d+(?:\s*[,&]\s*\d+)*\)"
    r"|【\d+】)",
    re.IGNORECASE,
)
_SOURCES_LINE = re.compile(r"^\W*(?:sources?|references?|citations?)\s*:?\s*(?:\[\d+\][\s,;and]*)+\W*$", re.IGNORECASE)


#: A conditional clause ("If `<step>` is not specified, …", "when no value is given"): a negation there
#: states a condition of the content, never that the answerer or the context lacks something.
_CONDITIONAL = re.compile(r"\b(?:if|unless|when|whenever|whether|in case)\b[^,;:.]*[,;:]?", re.IGNORECASE)


@lru_cache(maxsize=65536)
def is_decline(sentence: str) -> bool:
    """True when ``sentence`` declines to answer, or says the context lacks something (:data:`DECLINE_PATTERNS`).

    Conditional clauses are read first and left out (:data:`_CONDITIONAL`): "If the step is not specified,
    the step size is 1." states a default, it declines nothing.
    """
    folded = fold(sentence)
    if _CONDITIONAL.search(folded):
        folded = _CONDITIONAL.sub(" ", folded)
    return bool(_DECLINE.search(folded))


@lru_cache(maxsize=65536)
def is_courtesy(sentence: str) -> bool:
    """True for greetings, thanks and offers of help (:data:`COURTESY_PATTERNS`)."""
    return bool(_COURTESY.search(fold(sentence)))


@lru_cache(maxsize=65536)
def is_advice(sentence: str) -> bool:
    """True for advice or opinion phrasing (:data:`ADVICE_PATTERNS`); the caller checks it names no fact."""
    return bool(_ADVICE.search(fold(sentence)))


def without_citations(text: str) -> str:
    """``text`` without citation marks ("Starter includes 3 seats [1]." → "Starter includes 3 seats.")."""
    if "[" not in text and "(" not in text and "【" not in text:
        return text
    return _CITATION.sub("", text)


def is_sources_line(sentence: str) -> bool:
    """A closing list of references ("Sources: [1], [3]"): no claim."""
    return bool(_SOURCES_LINE.match(sentence))


#: "It only covers X, Y and Z", "The passages focus on X", "They mention X and Y": what the context is about.
_COVERAGE = re.compile(
    rf"^\s*(?:(?:it|they|{_SOURCE}) (?:(?:also|only|just|mainly|mostly|does|do) )?"
    rf"(?:covers?|mentions?|discuss(?:es)?|describes?|lists?|talks? about|focus(?:es)? on|explains?|deals? with|"
    rf"is about|are about|goes? into|touch(?:es)? on)|what (?:it|they|{_SOURCE}) (?:does|do) (?:cover|mention|"
    rf"describe|explain|say) (?:is|are))\b(?: (?:only|just|mainly))?\s*:?\s+(?!that\b|how\b|whether\b|if\b)(.+)$",
    re.IGNORECASE,
)


#: A sentence about the answer itself ("The above answer is correct.", "This response is based on the
#: context."): it claims nothing about the world or the context.
_ABOUT_THE_ANSWER = re.compile(
    r"^\W*(?:(?:the|this|that|my|our) (?:answer|response|reply|explanation|output|solution)s? (?:above |below )?"
    r"(?:is|was|are|seems|looks|should be|would be) (?:\w+ )?(?:correct|right|accurate|wrong|incorrect|complete|"
    r"incomplete|based on|as follows)\b"
    r"|(?:the|this|that) (?:above|following|previous|preceding) (?:answer|response|reply|explanation|output|"
    r"solution|code)s? (?:is|was|are|contains|provides|covers|answers|addresses|uses|shows)\b)",
    re.IGNORECASE,
)


def is_about_the_answer(sentence: str) -> bool:
    """True for a sentence about the answer itself, not about the world or the context (:data:`_ABOUT_THE_ANSWER`).

    Only when what it says of the answer names nothing: "The above answer is correct." claims nothing the
    context could support, but "The above response contains a mix of Python and JavaScript code." names
    things, a factual claim a reviewer checks like any other.
    """
    found = _ABOUT_THE_ANSWER.match(fold(sentence))
    return bool(found) and not _NAMES_SOMETHING.search(sentence[found.end() :])


#: A capitalised word that does not start the sentence, a code span or an identifier with ``_``/``.``/``()``.
_NAMES_SOMETHING = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w+#-]*|`[^`]+`|\b\w+(?:[_.]\w+)+|\w\(\)")


def coverage_topics(sentence: str) -> str | None:
    """The topics of a statement about what the context covers ("It only covers scheduling timeouts and
    cancelling them" → "scheduling timeouts and cancelling them"), else ``None``.

    The labelling guide judges such a statement against the context like any claim: true of the
    context means supported. It lists what the context is about, so each topic is looked for in the
    context on its own, not all of them in one span. "It mentions that X" reports a claim, not a topic.
    """
    found = _COVERAGE.match(fold(sentence))
    return sentence[found.start(1) :].strip() if found else None


def without_source_frame(sentence: str) -> str:
    """The claim inside "According to the context, X" / "The documentation says that X": X (else the sentence)."""
    stripped = _SOURCE_FRAME.sub("", sentence, count=1)
    return stripped if stripped.strip() else sentence


#: A yes/no answer: "Yes." / "No, it does not." (not "No files are deleted", a plain claim).
POLAR = re.compile(r"^\W*(?:yes|no)\b(?=\s*(?:[,.!;:\u2014-]|$))", re.IGNORECASE)

#: Where a sentence's clauses are cut before each is read as declining or claiming.
_BUT = re.compile(r"(?:[,;:]|\s[-–—])?\s+(?:but|however|although|though|whereas|while|so|instead)\b[,]?\s*|;\s+", re.I)


def declining_clauses(text: str) -> tuple[list[str], list[str]]:
    """``(declining, other)`` clauses of ``text``, cut at "but", "however", "so", ";" …; courtesy clauses
    ("I'm sorry") are in neither.

    "It only gives prices in US dollars, so I don't know the euro amount" → the second clause
    declines, the first says what the context holds.
    """
    clauses = [c.strip() for c in _BUT.split(text) if c and c.strip(" ,;.")]
    declining = [c for c in clauses if is_decline(c)]
    return declining, [c for c in clauses if not is_decline(c) and not is_courtesy(c.strip(" ,;.!"))]


#: A line that opens or closes a fenced code block.
FENCE = re.compile(r"^\s*(?:```|~~~)")


def fenced_lines(answer: str) -> frozenset[str]:
    """The lines of ``answer`` inside fenced code blocks (```` ``` ```` or ``~~~``), stripped as sentences are."""
    if "```" not in answer and "~~~" not in answer:
        return frozenset()
    inside = False
    lines: set[str] = set()
    for line in answer.split("\n"):
        if FENCE.match(line):
            inside = not inside
        elif inside and line.strip():
            lines.add(line.strip())
    return frozenset(lines)


#: The refusal rule. A sentence is a refusal when any of these matches it (lower-cased,
#: straight quotes). Kept as a visible list so a reader can see why an answer counted
#: as "I don't know"; the candidate prompt asks the model to answer exactly "I don't know".
#: Negations are refusals only when they are about the *context* ("the context does not
#: mention ..."): a factual negative ("the Free plan does not include API access") is a
#: claim, and is checked against the context like any other sentence.
REFUSAL_PATTERNS: tuple[str, ...] = (
    r"\bi (?:do not|don't|dont) know\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) (?:answer|determine)\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) find (?:the|an|any) (?:answer|information)\b",
    r"\b(?:context|documents?|articles?|passages?|texts?|sources?|information provided|provided information) "
    r"(?:does|do|did) not (?:mention|say|state|contain|provide|specify|include|cover|give)\b",
    r"\bnot (?:mentioned|stated|provided|specified|covered|included|given|available) in the "
    r"(?:context|documents?|articles?|passages?|texts?|sources?|information)\b",
    r"\b(?:no|not enough|insufficient) (?:information|details?)\b",
    r"\bthere is no answer\b",
)
_REFUSAL = re.compile("|".join(REFUSAL_PATTERNS))


@lru_cache(maxsize=65536)
def is_refusal(text: str) -> bool:
    """True when ``text`` declines to answer, by the :data:`REFUSAL_PATTERNS` rule."""
    return bool(_REFUSAL.search(fold(text)))


def answer_refuses(answer: str) -> bool:
    """An answer is a refusal when its first sentence is one ("I don't know. ..." counts)."""
    sentences = sentences_of(answer)
    return bool(sentences) and is_refusal(sentences[0])
