"""Logged passages made of spans of one or more articles: located piece by piece, the joins said in the row.

A retriever that merges chunks, or returns two paragraphs that are not adjacent, logs a passage
no single span of the corpus holds. ``evalgate score --corpus`` used to refuse it ("its 'text'
is not in article …"); it now places each piece in its article and keeps the text that joined
them, so the evidence metrics see each piece and every view rebuilds the passage from the corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.answer_logs import parse_line
from evalgate_lib.judging.rows import ResultRow, RetrievedChunk
from evalgate_lib.run.external import score_answer_logs
from evalgate_lib.text.locate import MAX_JOIN, Assembly, Piece, assemble

ALPHA = (
    "# Alpha\n\nThe alpha tool copies every file of a folder into another one, keeping their dates.\n\n"
    "It refuses to overwrite a folder that already exists unless you pass the --merge option to it.\n"
)
BETA = (
    "# Beta\n\nThe beta service stores each uploaded file for thirty days before deleting it for good.\n\n"
    "Files larger than two gigabytes are split into parts of five hundred megabytes each.\n"
)
BODIES = {"alpha": ALPHA, "beta": BETA}


def test_two_paragraphs_of_one_article_joined_by_an_ellipsis():
    first = "The alpha tool copies every file of a folder into another one, keeping their dates."
    second = "It refuses to overwrite a folder that already exists unless you pass the --merge option to it."
    assembly = assemble(f"{first}\n...\n{second}", [("alpha", ALPHA)])
    start = ALPHA.index(first)
    assert assembly == Assembly(
        (Piece("alpha", start, start + len(first)), Piece("alpha", ALPHA.index(second), len(ALPHA) - 1)),
        ("", "\n...\n", ""),
    )
    assert assembly.text(BODIES) == f"{first}\n...\n{second}"


def test_pieces_of_two_articles_with_whitespace_changed_and_a_label_around_them():
    passage = (
        "[1] The beta service stores each uploaded file   for thirty days\nbefore deleting it for good. "
        "|| It refuses to overwrite a folder that already exists unless you pass the --merge option to it. …"
    )
    assembly = assemble(passage, [("alpha", ALPHA), ("beta", BETA)])
    assert [p.article_id for p in assembly.pieces] == ["beta", "alpha"]
    assert assembly.joins == ("[1] ", " || ", " …")
    beta = assembly.pieces[0]
    # each piece is the article's own spelling of that text (its span in the body)
    assert BETA[beta.start : beta.end] == (
        "The beta service stores each uploaded file for thirty days before deleting it for good."
    )
    assert assembly.articles == ("beta", "alpha")


def test_text_no_article_holds_is_not_an_assembly():
    assert assemble("An invented paragraph about a gamma tool that nobody wrote down anywhere.", [("a", ALPHA)]) is None
    made_up = "x" * (MAX_JOIN + 1)
    first = "The alpha tool copies every file of a folder into another one"
    assert assemble(f"{first} {made_up} keeping their dates.", [("alpha", ALPHA)]) is None
    assert assemble(f"{first} {'y' * MAX_JOIN}", [("alpha", ALPHA)]) is not None  # at the limit: a join


def test_an_assembly_round_trips_through_the_row():
    chunk = RetrievedChunk(1, "alpha#0", "alpha", 0, -1, -1, 0.5, Assembly((Piece("beta", 3, 9),), ("", " …")))
    data = chunk.to_json()
    assert data["assembly"] == {"pieces": [["beta", 3, 9]], "joins": ["", " …"]}
    assert RetrievedChunk.from_json(json.loads(json.dumps(data))) == chunk
    plain = RetrievedChunk(1, "alpha#0", "alpha", 0, 2, 9, 0.5)
    assert "assembly" not in plain.to_json()  # rows of single-span chunks keep their bytes
    assert plain.text_in(BODIES) == ALPHA[2:9] and chunk.text_in(BODIES) == BETA[3:9] + " …"


# --------------------------------------------------------------------------- evalgate score


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "kb"
    corpus.mkdir()
    for name, body in BODIES.items():
        (corpus / f"{name}.md").write_text(body, encoding="utf-8")
    return corpus


def _gold(tmp_path: Path) -> Path:
    gold = tmp_path / "gold.jsonl"
    rows = [
        {"id": "g1", "question": "How long does beta keep a file?", "type": "answerable", "article": "beta",
         "accept": ["thirty days"], "evidence": ["stores each uploaded file for thirty days"]},
        {"id": "g2", "question": "Can alpha overwrite a folder?", "type": "answerable", "article": "alpha",
         "accept": ["--merge"], "evidence": ["unless you pass the --merge option"]},
    ]  # fmt: skip
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return gold


def _log(path: Path, passages: dict[str, list[dict]]) -> Path:
    answers = {"g1": "Beta keeps a file for thirty days.", "g2": "Only with the --merge option."}
    lines = [{"question_id": q, "answer": answers[q], "passages": p} for q, p in passages.items()]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


MERGED = (
    "The alpha tool copies every file of a folder into another one, keeping their dates.\n\n[...]\n\n"
    "The beta service stores each uploaded file for thirty days before deleting it for good."
)


def _rows(tmp_path: Path, passages: dict[str, list[dict]]) -> list[ResultRow]:
    plain = {
        "g1": [{"text": "The beta service stores each uploaded file for thirty days", "doc_id": "beta"}],
        "g2": [{"text": "It refuses to overwrite a folder that already exists", "doc_id": "alpha"}],
    }
    run = score_answer_logs(
        _log(tmp_path / "v1.jsonl", plain), _log(tmp_path / "v2.jsonl", passages), _gold(tmp_path),
        corpus=_corpus(tmp_path),
    )  # fmt: skip
    return [r for r in run.rows if r.config == "v2"]


def test_score_places_a_merged_passage_and_its_evidence(tmp_path):
    rows = _rows(
        tmp_path,
        {"g1": [{"text": MERGED, "doc_id": "alpha", "score": 0.7}], "g2": [{"text": MERGED, "doc_id": "alpha"}]},
    )
    g1, g2 = rows
    chunk = g1.retrieved[0]
    assert (chunk.start, chunk.end) == (-1, -1) and chunk.assembly is not None
    assert [p.article_id for p in chunk.assembly.pieces] == ["alpha", "beta"]
    assert chunk.assembly.joins == ("", "\n\n[...]\n\n", "")
    assert chunk.text_in(BODIES) == MERGED
    # the gold article (beta) is in the passage logged under alpha: a document hit at rank 1, and its evidence held
    assert g1.retrieval_metrics.gold_rank == 1 and g1.retrieval_metrics.evidence_hit is True
    # g2's evidence (the --merge sentence) is in no piece of the passage
    assert g2.retrieval_metrics.gold_rank == 1 and g2.retrieval_metrics.evidence_hit is False
    assert ResultRow.from_json(json.loads(json.dumps(g1.to_json()))) == g1


def test_declared_spans_are_checked_against_the_text(tmp_path):
    start = BETA.index("The beta service")
    end = BETA.index("for good.") + len("for good.")
    alpha = ALPHA.index("It refuses")
    spans = [{"start": start, "end": end}, {"doc_id": "alpha", "start": alpha, "end": len(ALPHA) - 1}]
    text = BETA[start:end] + "\n--\n" + ALPHA[alpha : len(ALPHA) - 1]
    g1, g2 = _rows(
        tmp_path,
        {
            "g1": [{"text": BETA[start:end], "doc_id": "beta", "spans": spans[:1]}],  # one span: a plain chunk
            "g2": [{"text": text, "doc_id": "beta", "spans": spans}],
        },
    )
    assert (g1.retrieved[0].start, g1.retrieved[0].end, g1.retrieved[0].assembly) == (start, end, None)
    assembly = g2.retrieved[0].assembly
    assert assembly.pieces == (Piece("beta", start, end), Piece("alpha", alpha, len(ALPHA) - 1))
    assert assembly.joins == ("", "\n--\n", "")
    assert g2.retrieval_metrics.evidence_hit is True


@pytest.mark.parametrize(
    ("passage", "message"),
    [
        (
            {"text": "The beta service stores each uploaded file", "doc_id": "alpha"},
            r"v2\.jsonl:1: passage 1: its 'text' is in article 'beta', not in its doc_id 'alpha': "
            r"give 'doc_id': 'beta'",
        ),
        (
            {"text": "Alpha keeps nothing: it is a made-up sentence of more than forty characters, all invented.",
             "doc_id": "alpha"},
            r"v2\.jsonl:1: passage 1: its 'text' is not in article 'alpha' of the corpus .* nor made of spans",
        ),
        (
            {"text": "The beta service", "doc_id": "beta", "spans": [{"start": 0, "end": 6}]},
            r"v2\.jsonl:1: passage 1: span 1 \('beta' \[0, 6\): '# Beta'\) is not in the passage's 'text'",
        ),
        (
            {"text": "The beta service", "doc_id": "beta", "spans": [{"start": 0, "end": 99999}]},
            r"v2\.jsonl:1: passage 1: span 1 \[0, 99999\) ends past article 'beta'",
        ),
    ],
)
def test_a_passage_placed_nowhere_is_an_error_naming_the_line(tmp_path, passage, message):
    other = {"text": "It refuses to overwrite a folder that already exists", "doc_id": "alpha"}
    with pytest.raises(InputError, match=message):
        _rows(tmp_path, {"g1": [passage], "g2": [other]})


def test_span_syntax_is_checked_when_the_line_is_read():
    def line(passage: dict) -> dict:
        return {"question_id": "q", "answer": "a", "passages": [passage]}

    with pytest.raises(InputError, match=r"x:1: passage 1: span 1: 'start' and 'end' must be character offsets"):
        parse_line(line({"text": "t", "doc_id": "d", "spans": [{"start": 5, "end": 2}]}), "x:1")
    with pytest.raises(InputError, match=r"x:1: passage 1: span 1: no 'doc_id' on the span or its passage"):
        parse_line(line({"text": "t", "spans": [{"start": 0, "end": 2}]}), "x:1")
