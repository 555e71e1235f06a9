"""Tests for evalgate_lib.chunks.chunking against hand-computed chunk texts, positions and spans."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from evalgate_lib.chunks.chunking import (
    CHUNKERS,
    Chunk,
    check_chunking,
    chunk_corpus,
    fixed_size,
    markdown_sections,
    sentence_window,
)
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import Article, load_corpus

ROOT = Path(__file__).resolve().parents[1]

# Word offsets of WORDS_BODY (hand-counted):
#   alpha 0-5, beta 6-10, "\n", gamma 11-16, "  ", delta 18-23, epsilon 24-31, zeta 32-36, eta 37-40
WORDS_BODY = "alpha beta\ngamma  delta epsilon zeta eta"
WORDS = Article("words", "Words", WORDS_BODY)

# Offsets of MD_BODY (hand-counted; len 102):
#   "Intro text."            0-11   (pre-heading text, 2 words)
#   "# Plans"               13-20   \  section 2: 5 words ("#", "Plans", "Starter", "costs", "$36.")
#   "Starter costs $36."    22-40   /
#   "## Seats"              42-50   \
#   "One two three."        52-66    | section 3: 2 + 3 + 4 + 2 = 11 words
#   "Four five six seven."  68-88    |
#   "Eight nine."           90-101  /  then a final "\n" at 101
MD_BODY = (
    "Intro text.\n\n# Plans\n\nStarter costs $36.\n\n## Seats\n\n"
    "One two three.\n\nFour five six seven.\n\nEight nine.\n"
)
MD = Article("md", "Markdown", MD_BODY)


def spans(chunks: list[Chunk]) -> list[tuple[int, int, int, str]]:
    return [(c.position, c.start, c.end, c.text) for c in chunks]


def assert_invariants(article: Article, chunks: list[Chunk]) -> None:
    assert [c.position for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert article.body[c.start : c.end] == c.text
        assert c.article_id == article.id and c.title == article.title
        assert c.text.strip() and c.text == c.text.strip()
        assert c.chunk_id == f"{article.id}#{c.position}"


def test_md_body_offsets_are_as_commented() -> None:
    # guards the hand-computed offsets used throughout this file
    assert len(MD_BODY) == 102
    for text, start in [
        ("Intro text.", 0),
        ("# Plans", 13),
        ("Starter costs $36.", 22),
        ("## Seats", 42),
        ("One two three.", 52),
        ("Four five six seven.", 68),
        ("Eight nine.", 90),
    ]:
        assert MD_BODY.index(text) == start
    assert [m.start() for m in re.finditer(r"\S+", WORDS_BODY)] == [0, 6, 11, 18, 24, 32, 37]


# --------------------------------------------------------------------------- fixed_size


def test_fixed_size_with_overlap() -> None:
    # size 3, overlap 1 → step 2: words [0:3], [2:5], [4:7]; 4 + 3 >= 7 stops
    chunks = fixed_size(WORDS, size=3, overlap=1)
    assert spans(chunks) == [
        (0, 0, 16, "alpha beta\ngamma"),
        (1, 11, 31, "gamma  delta epsilon"),
        (2, 24, 40, "epsilon zeta eta"),
    ]
    assert_invariants(WORDS, chunks)


def test_fixed_size_without_overlap_short_last_window() -> None:
    # size 3, overlap 0 → words [0:3], [3:6], [6:7] (last window holds 1 word)
    chunks = fixed_size(WORDS, size=3, overlap=0)
    assert spans(chunks) == [
        (0, 0, 16, "alpha beta\ngamma"),
        (1, 18, 36, "delta epsilon zeta"),
        (2, 37, 40, "eta"),
    ]
    assert_invariants(WORDS, chunks)


def test_fixed_size_exact_fit_makes_no_trailing_overlap_chunk() -> None:
    # size 7 == number of words → one chunk, no second window made only of overlap
    assert spans(fixed_size(WORDS, size=7, overlap=3)) == [(0, 0, 40, WORDS_BODY)]
    # size 6, overlap 2 → step 4: [0:6] then [4:7]; 4 + 6 >= 7 stops
    assert spans(fixed_size(WORDS, size=6, overlap=2)) == [
        (0, 0, 36, "alpha beta\ngamma  delta epsilon zeta"),
        (1, 24, 40, "epsilon zeta eta"),
    ]


def test_fixed_size_larger_than_article() -> None:
    assert spans(fixed_size(WORDS, size=100, overlap=10)) == [(0, 0, 40, WORDS_BODY)]


def test_fixed_size_never_cuts_a_word_and_ignores_outer_whitespace() -> None:
    article = Article("ws", "WS", "\n\n  one   two\tthree  \n")
    # "one" 4-7, "two" 10-13, "three" 14-19
    assert spans(fixed_size(article, size=2, overlap=0)) == [(0, 4, 13, "one   two"), (1, 14, 19, "three")]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-1, 0), (3, -1), (3, 3), (3, 4)])
def test_fixed_size_bad_parameters(size: int, overlap: int) -> None:
    with pytest.raises(InputError, match=f"size={size} overlap={overlap}"):
        fixed_size(WORDS, size=size, overlap=overlap)


# --------------------------------------------------------------------------- markdown_sections


def test_markdown_sections_one_chunk_per_section_with_pre_heading_text() -> None:
    # sections start at 0 (pre-heading), 13 ("# Plans"), 42 ("## Seats"); each trimmed of whitespace
    chunks = markdown_sections(MD, max_words=100)
    assert spans(chunks) == [
        (0, 0, 11, "Intro text."),
        (1, 13, 40, "# Plans\n\nStarter costs $36."),
        (2, 42, 101, "## Seats\n\nOne two three.\n\nFour five six seven.\n\nEight nine."),
    ]
    assert_invariants(MD, chunks)


def test_markdown_sections_split_long_section_at_paragraphs() -> None:
    # max 7: "# Plans" section has 5 words → whole. "## Seats" has 11 > 7:
    #   2 ("## Seats") + 3 = 5 <= 7; + 4 = 9 > 7 → cut before "Four" (68); then 4 + 2 = 6 <= 7
    chunks = markdown_sections(MD, max_words=7)
    assert spans(chunks) == [
        (0, 0, 11, "Intro text."),
        (1, 13, 40, "# Plans\n\nStarter costs $36."),
        (2, 42, 66, "## Seats\n\nOne two three."),
        (3, 68, 101, "Four five six seven.\n\nEight nine."),
    ]
    assert_invariants(MD, chunks)


def test_markdown_sections_split_into_three_pieces() -> None:
    # max 5: Plans 5 <= 5 whole. Seats: 2 + 3 = 5; + 4 > 5 cut at 68; 4 + 2 = 6 > 5 cut at 90
    chunks = markdown_sections(MD, max_words=5)
    assert spans(chunks) == [
        (0, 0, 11, "Intro text."),
        (1, 13, 40, "# Plans\n\nStarter costs $36."),
        (2, 42, 66, "## Seats\n\nOne two three."),
        (3, 68, 88, "Four five six seven."),
        (4, 90, 101, "Eight nine."),
    ]
    assert_invariants(MD, chunks)


def test_markdown_sections_a_paragraph_longer_than_max_is_cut_at_sentences_then_words() -> None:
    # max 3: Plans 5 > 3 → "# Plans" (2) | "Starter costs $36." (3).
    # Seats: 2 | 3 | "Four five six seven." is one paragraph of one sentence, 4 > 3 words: cut every
    # 3 words, "Four five six" (68..81) | "seven." (82..88), and "seven." (1) + "Eight nine." (2) = 3 fit together.
    # A heading-only piece carries no text: it is merged into the piece after it (13..40, 42..66).
    chunks = markdown_sections(MD, max_words=3)
    assert [c.text for c in chunks] == [
        "Intro text.",
        "# Plans\n\nStarter costs $36.",
        "## Seats\n\nOne two three.",
        "Four five six",
        "seven.\n\nEight nine.",
    ]
    assert [(c.start, c.end) for c in chunks] == [(0, 11), (13, 40), (42, 66), (68, 81), (82, 101)]
    assert_invariants(MD, chunks)


def test_markdown_sections_one_long_paragraph_is_cut_between_sentences() -> None:
    # one paragraph, no heading, 3 sentences of 2 + 3 + 2 words = 7 > max 5:
    # "Aa bb." (0..6) + "Cc dd ee." (7..16) = 5 words; + "Ff gg." (17..23) = 7 > 5 → cut at 17
    article = Article("p", "P", "Aa bb. Cc dd ee. Ff gg.")
    assert spans(markdown_sections(article, max_words=5)) == [(0, 0, 16, "Aa bb. Cc dd ee."), (1, 17, 23, "Ff gg.")]


def test_markdown_sections_body_starting_with_heading_has_no_empty_chunk() -> None:
    article = Article("h", "H", "\n\n# Title\n\nBody text.\n# Next\nMore.")
    # whitespace-only pre-heading text is dropped; "# Title" at 2, "# Next" at 22 (a sibling: "# Title" is no lead)
    assert spans(markdown_sections(article)) == [
        (0, 2, 21, "# Title\n\nBody text."),
        (1, 22, 34, "# Next\nMore."),
    ]


def test_markdown_sections_only_real_headings_split() -> None:
    # "#hashtag" (no space) and "####### seven" (7 hashes) are not headings; "###### six" is
    body = "Intro #hashtag here.\n#hashtag line\n####### seven\n###### six\nEnd."
    chunks = markdown_sections(Article("x", "X", body))
    assert [c.text for c in chunks] == ["Intro #hashtag here.\n#hashtag line\n####### seven", "###### six\nEnd."]


def test_markdown_sections_without_headings_is_one_chunk() -> None:
    article = Article("p", "P", "Just prose.\nNo headings.\n")
    assert spans(markdown_sections(article)) == [(0, 0, 24, "Just prose.\nNo headings.")]  # 11 + 1 + 12


@pytest.mark.parametrize("max_words", [0, -5])
def test_markdown_sections_bad_parameters(max_words: int) -> None:
    with pytest.raises(InputError, match="max_words > 0"):
        markdown_sections(MD, max_words=max_words)


# --------------------------------------------------------------------------- sentence_window

# MD_BODY sentences (one per line): s0 (0,11) s1 (13,20) s2 (22,40) s3 (42,50) s4 (52,66) s5 (68,88) s6 (90,101)


def test_sentence_window_with_overlap() -> None:
    # window 3, overlap 1 → step 2: s0-s2, s2-s4, s4-s6; 4 + 3 >= 7 stops
    chunks = sentence_window(MD, window=3, overlap=1)
    assert spans(chunks) == [
        (0, 0, 40, "Intro text.\n\n# Plans\n\nStarter costs $36."),
        (1, 22, 66, "Starter costs $36.\n\n## Seats\n\nOne two three."),
        (2, 52, 101, "One two three.\n\nFour five six seven.\n\nEight nine."),
    ]
    assert_invariants(MD, chunks)


def test_sentence_window_step_one() -> None:
    # window 2, overlap 1 → step 1: s0-s1, s1-s2, ..., s5-s6 (6 windows)
    chunks = sentence_window(MD, window=2, overlap=1)
    assert [(c.start, c.end) for c in chunks] == [(0, 20), (13, 40), (22, 50), (42, 66), (52, 88), (68, 101)]
    assert_invariants(MD, chunks)


def test_sentence_window_without_overlap_short_last_window() -> None:
    # window 3, overlap 0: s0-s2 (0,40), s3-s5 (42,88), s6 (90,101)
    assert [(c.start, c.end) for c in sentence_window(MD, window=3, overlap=0)] == [(0, 40), (42, 88), (90, 101)]


def test_sentence_window_several_sentences_per_line() -> None:
    article = Article("s", "S", "A one. B two. C three.\nD four.")
    # sentences: (0,6) "A one.", (7,13) "B two.", (14,22) "C three.", (23,30) "D four."
    assert spans(sentence_window(article, window=2, overlap=0)) == [
        (0, 0, 13, "A one. B two."),
        (1, 14, 30, "C three.\nD four."),
    ]
    assert spans(sentence_window(article, window=10, overlap=2)) == [(0, 0, 30, "A one. B two. C three.\nD four.")]


@pytest.mark.parametrize(("window", "overlap"), [(0, 0), (-2, 0), (3, 3), (3, 5), (3, -1)])
def test_sentence_window_bad_parameters(window: int, overlap: int) -> None:
    with pytest.raises(InputError, match=f"{window}/{overlap}"):
        sentence_window(MD, window=window, overlap=overlap)


# --------------------------------------------------------------------------- chunk_corpus


def test_chunk_corpus_dispatches_and_restarts_positions_per_article() -> None:
    chunks = chunk_corpus([WORDS, MD], {"method": "fixed", "size": 3, "overlap": 1})
    # WORDS → 3 chunks (see above); MD has 2 + 5 + 11 = 18 words → step 2: starts 0,2,...,16; 16 + 3 >= 18 stops → 9
    assert [c.chunk_id for c in chunks] == ["words#0", "words#1", "words#2"] + [f"md#{i}" for i in range(9)]
    assert chunks[:3] == fixed_size(WORDS, 3, 1)


def test_chunk_corpus_same_as_calling_chunker() -> None:
    assert chunk_corpus([MD], {"method": "markdown", "max_words": 7}) == markdown_sections(MD, 7)
    assert chunk_corpus([MD], {"method": "sentence", "window": 3, "overlap": 1}) == sentence_window(MD, 3, 1)
    assert chunk_corpus([MD], {"method": "sentence"}) == sentence_window(MD)  # defaults


def test_chunk_corpus_does_not_mutate_spec() -> None:
    spec = {"method": "fixed", "size": 3, "overlap": 1}
    chunk_corpus([WORDS], spec)
    assert spec == {"method": "fixed", "size": 3, "overlap": 1}


def test_chunk_corpus_unknown_method_names_choices() -> None:
    with pytest.raises(InputError) as info:
        chunk_corpus([MD], {"method": "semantic"})
    message = str(info.value)
    assert "'semantic'" in message
    for name in ("fixed", "markdown", "sentence"):
        assert name in message


def test_chunk_corpus_missing_method() -> None:
    with pytest.raises(InputError, match="unknown chunking method None"):
        chunk_corpus([MD], {"size": 3})


def test_chunk_corpus_unknown_parameter_names_chunker() -> None:
    with pytest.raises(InputError) as info:
        chunk_corpus([MD], {"method": "fixed", "sise": 3})
    assert str(info.value) == "[chunking]: unknown key 'sise' for the 'fixed' chunker; did you mean 'size'?"
    with pytest.raises(InputError, match="'markdown' chunker"):
        chunk_corpus([MD], {"method": "markdown", "size": 3})


def test_check_chunking_names_the_source_and_lists_valid_keys() -> None:
    with pytest.raises(InputError) as info:
        check_chunking({"method": "fixed", "overlp": 3}, "configs/x.toml: [chunking]")
    assert str(info.value) == (
        "configs/x.toml: [chunking]: unknown key 'overlp' for the 'fixed' chunker; did you mean 'overlap'?"
    )
    with pytest.raises(InputError, match="valid keys: method, size, overlap"):
        check_chunking({"method": "fixed", "colour": 3})
    with pytest.raises(InputError, match="did you mean 'fixed'"):
        check_chunking({"method": "fixd"})
    with pytest.raises(InputError, match="must be a whole number"):
        check_chunking({"method": "fixed", "size": True})
    check_chunking({"method": "sentence", "window": 4, "overlap": 1})  # valid: no error


def test_chunk_corpus_bad_value_is_input_error() -> None:
    with pytest.raises(InputError):
        chunk_corpus([MD], {"method": "fixed", "size": 3, "overlap": 3})


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ({"method": "fixed", "size": "120"}, "size"),
        ({"method": "fixed", "size": 2.5, "overlap": 1}, "size"),
        ({"method": "fixed", "size": 3, "overlap": 1.0}, "overlap"),
        ({"method": "fixed", "size": True, "overlap": 0}, "size"),
        ({"method": "markdown", "max_words": "x"}, "max_words"),
        ({"method": "sentence", "window": "2"}, "window"),
    ],
)
def test_chunk_corpus_non_integer_parameter_is_input_error(spec: dict, name: str) -> None:
    # regression: a non-integer value from a config used to raise a raw TypeError
    with pytest.raises(InputError, match=f"{spec['method']}'? chunker's {name} must be a whole number"):
        chunk_corpus([MD], spec)


def test_chunkers_registry() -> None:
    assert CHUNKERS == {"fixed": fixed_size, "markdown": markdown_sections, "sentence": sentence_window}


# --------------------------------------------------------------------------- the real corpus


@pytest.fixture(scope="module")
def corpus() -> list[Article]:
    return load_corpus(ROOT / "corpus")


def _config_specs() -> list[dict]:
    # every run configuration in configs/ (other TOML files there, e.g. gate settings, have no [chunking])
    tables = [tomllib.loads(path.read_text(encoding="utf-8")) for path in sorted((ROOT / "configs").glob("*.toml"))]
    specs = [dict(t["chunking"]) for t in tables if isinstance(t.get("chunking"), dict)]
    methods = {s["method"] for s in specs}
    # chunkers no shipped config uses: their defaults, plus one more setting each
    if "sentence" not in methods:
        specs += [{"method": "sentence"}, {"method": "sentence", "window": 3, "overlap": 0}]
    if "fixed" not in methods:
        specs.append({"method": "fixed"})
    if "markdown" not in methods:
        specs.append({"method": "markdown"})
    specs += [{"method": "fixed", "size": 50, "overlap": 10}, {"method": "markdown", "max_words": 60}]
    return specs


SPECS = _config_specs()


def test_real_corpus_specs_cover_all_three_chunkers() -> None:
    methods = {s["method"] for s in SPECS}
    assert methods == {"fixed", "markdown", "sentence"}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_real_corpus_span_invariant(corpus: list[Article], spec: dict) -> None:
    assert len(corpus) == 18
    chunks = chunk_corpus(corpus, spec)
    by_article = {a.id: a for a in corpus}
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    for article in corpus:
        mine = [c for c in chunks if c.article_id == article.id]
        assert mine, article.id
        assert_invariants(article, mine)
        # every non-whitespace character of the body lies in some chunk: nothing is lost
        covered = bytearray(len(article.body))
        for c in mine:
            covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        lost = [i for i, ch in enumerate(article.body) if not ch.isspace() and not covered[i]]
        assert not lost, (article.id, lost[:5])
        # chunks come in body order
        assert [c.start for c in mine] == sorted(c.start for c in mine)
    assert all(by_article[c.article_id].body[c.start : c.end] == c.text for c in chunks)


def test_real_corpus_fixed_windows_share_exactly_overlap_words(corpus: list[Article]) -> None:
    spec = load_config(ROOT / "configs" / "baseline.toml").chunking
    assert spec["method"] == "fixed"
    size, overlap = spec["size"], spec["overlap"]
    for article in corpus:
        words = [c.text.split() for c in fixed_size(article, size, overlap)]
        assert all(len(w) == size for w in words[:-1])
        assert 0 < len(words[-1]) <= size
        for prev, nxt in zip(words, words[1:], strict=False):
            assert prev[-overlap:] == nxt[:overlap]


def test_real_corpus_markdown_pieces_respect_max_words_where_possible(corpus: list[Article]) -> None:
    spec = load_config(ROOT / "configs" / "candidate.toml").chunking
    assert spec["method"] == "markdown"
    for article in corpus:
        for c in markdown_sections(article, spec["max_words"]):
            n = len(c.text.split())
            if n > spec["max_words"]:
                # only a single paragraph (no blank line inside) may exceed the limit
                assert not re.search(r"\n\s*\n", c.text), (article.id, c.position)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("a <!-- x --> b", "a  b"),
        ("<!-->-->", ""),  # '<!--' then '-->': the comment needs its own closing after the opening
        ("<!-- never closed", "<!-- never closed"),
        ("a <!-- x\ny --> b <!-- z --> c", "a  b  c"),
        ("<!--" * 100_000, "<!--" * 100_000),  # a long line of openings: linear, not one search per opening
    ],
)
def test_comments_are_removed_as_the_regex_did(text: str, kept: str) -> None:
    from evalgate_lib.chunks.chunking import _without_comments

    assert _without_comments(text) == kept


def _make_as_specified(body: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The merge rule of ``_make`` as first written (each merged span read whole): the reference it must equal."""
    from evalgate_lib.chunks.chunking import carries_text

    merged: list[tuple[int, int]] = []
    pending: int | None = None
    end = 0
    for start, end in spans:
        if pending is not None:
            start, pending = min(start, pending), None
        if not body[start:end].strip():
            continue
        if not carries_text(body[start:end]):
            pending = start
            continue
        merged.append((start, end))
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((pending, end))
    return merged


def test_a_run_of_markup_spans_merges_as_specified() -> None:
    """Read once instead of once per span (issue 45: a 1 MB line of '# # #' took 5 s), the merges are the same.

    Hand-made: a heading-only section and a MyST label merge into the text after them; a comment left
    open across a line break is read again when it closes; then 3,000 seeded random documents of
    markup pieces, cut into windows, partitions and arbitrary spans (a team's own chunker).
    """
    import random

    from evalgate_lib.chunks.chunking import _make

    def merged(body: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(c.start, c.end) for c in _make(Article("a", "t", body, "p"), spans)]

    body = "# One\n(label)=\n## Two\nText here.\n"
    assert merged(body, [(0, 6), (6, 15), (15, 22), (22, 33)]) == [(0, 33)]
    body = "# a <!-- x\n# b\n--> c\n"
    assert merged(body, [(0, 11), (11, 15), (15, 21)]) == _make_as_specified(body, [(0, 11), (11, 15), (15, 21)])
    pieces = ["# ", "## ", "####### ", "```", "~~~", ":::", "<!--", "-->", "(", ")=", ".. _x:", "\n", "\n", " ",
              "word", "x.", "#", "<!-- c -->"]  # fmt: skip
    draw = random.Random(45)
    for _ in range(3_000):
        body = "".join(draw.choice(pieces) for _ in range(draw.randint(1, 60)))
        size = len(body)
        shape = draw.random()
        if shape < 0.4:  # windows that overlap, as the fixed and sentence chunkers cut
            spans, at = [], 0
            while at < size:
                stop = min(size, at + draw.randint(1, 8))
                spans.append((at, stop))
                at = stop - draw.randint(0, max(0, min(2, stop - at - 1))) if stop < size else size
        elif shape < 0.7:  # a partition, as the markdown chunker cuts
            cuts = sorted(set(draw.sample(range(1, size + 1), min(size, draw.randint(1, 6)))) | {size})
            spans = list(zip([0, *cuts[:-1]], cuts, strict=True))
        else:  # anything: a team's own chunker
            spans = [(a, draw.randint(a + 1, size)) for a in (draw.randrange(size) for _ in range(draw.randint(1, 6)))]
        assert merged(body, spans) == _make_as_specified(body, spans), (body, spans)


# --------------------------------------------------------------------------------------------- code blocks, leads

CODE_PAGE = (
    "# Profiles\n\nSet the level in the manifest:\n\n```toml\n# the default\n[profile.dev]\nopt-level = 0\n\n"
    "# for releases\n[profile.release]\nopt-level = 3\n```\n\nThe release profile is slower to build.\n"
)


def test_a_hash_line_inside_a_fenced_block_is_code_not_a_heading() -> None:
    chunks = markdown_sections(Article("p", "P", CODE_PAGE))
    assert [c.text for c in chunks] == [CODE_PAGE.strip()]


def test_a_long_section_is_cut_around_a_code_block_never_inside_it() -> None:
    code = "```sh\n# step one\nmake\n\n# step two\nmake install\n```"
    body = "# Build\n\n" + "Words here. " * 6 + f"\n\n{code}\n\nDone now."
    article = Article("b", "B", body)
    fence = body.index("```sh"), body.rindex("```") + 3
    chunks = markdown_sections(article, max_words=14)
    assert [c.text for c in chunks] == [body[: fence[0]].strip(), body[fence[0] :].strip()]
    for chunk in fixed_size(article, size=12, overlap=2) + markdown_sections(article, max_words=14):
        assert not fence[0] < chunk.start < fence[1] and not fence[0] < chunk.end < fence[1], chunk.text


def test_fixed_windows_hold_a_code_block_whole() -> None:
    body = "one two three four\n\n```\na b c\nd e\n```\n\nfive six seven"
    block = body.index("```"), body.rindex("```") + 3
    texts = [c.text for c in fixed_size(Article("f", "F", body), size=8, overlap=1)]
    # 4 words, the block (7 words with its fences) as one unit of weight 7, 3 words: no window cuts the block
    assert texts == ["one two three four", body[block[0] :].removesuffix(" six seven"), "five six seven"]
    assert [c.text for c in fixed_size(Article("f", "F", "a b c d e f g"), size=3, overlap=1)] == [
        "a b c",
        "c d e",
        "e f g",
    ]


def test_a_code_block_longer_than_a_chunk_is_cut_between_its_lines_and_said(caplog: pytest.LogCaptureFixture) -> None:
    code = "\n".join(f"line{n} x y" for n in range(8))
    body = f"# Big\n\n```\n{code}\n```\n"
    with caplog.at_level("WARNING", logger="evalgate_lib.chunks.chunking"):
        chunks = markdown_sections(Article("big", "Big", body), max_words=10)
    assert len(chunks) > 1 and all(len(c.text.split()) <= 10 for c in chunks)
    assert all(c.text == c.text.strip() and "\n" not in c.text[:1] for c in chunks)
    said = "big: a code block of 26 words is longer than a chunk may be (10): it is cut between its lines"
    assert said in caplog.text


def test_a_heading_only_lead_is_joined_to_what_follows() -> None:
    body = "# MkDocs Installation\n\nA detailed guide.\n\n## Requirements\n\nMkDocs requires a recent Python.\n"
    assert [c.text for c in markdown_sections(Article("i", "I", body))] == [body.strip()]
    # a lead that says more than a subtitle, or a first section followed by a sibling, stands alone
    longer = body.replace("A detailed guide.", "A detailed guide to installing MkDocs on every system.")
    assert len(markdown_sections(Article("i", "I", longer))) == 2
    sibling = body.replace("## Requirements", "# Requirements")
    assert len(markdown_sections(Article("i", "I", sibling))) == 2
