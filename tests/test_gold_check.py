"""Tests for ``evalgate gold check``: the pure check on hand-made articles, its rendering, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.gold_tools.gold_check import (
    AcceptCheck,
    EvidenceCheck,
    InsideWord,
    Place,
    body_line_offsets,
    check_gold,
)
from evalgate_lib.gold_tools.gold_check_format import format_question, summary_line
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.correctness import token_bounded_match

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "gold_corpus"
GOLD = DATA / "gold_check.jsonl"

CERTS = Article(
    "certs", "Certificates", "Pip checks each certificate.\nIt uses the bundled certifi store.\n", "certs.md"
)
OTHER = Article("other", "Other", "A certificate bundle.\nKeep 3 wheels.\n", "other.md")
WHEELS = Article("wheels", "Wheels", "Keep 13 wheels.\nKeep 13 wheels.\n", "wheels.md")


def question(accept: tuple[str, ...], article: str | None = "certs", **kwargs: object) -> GoldQuestion:
    fields: dict = {"id": "q1", "question": "Which store does pip use?", "type": "answerable", "article": article,
                    "accept": accept, "evidence": None, "note": None} | kwargs  # fmt: skip
    return GoldQuestion(**fields)


def test_inside_word_is_found_with_an_example_and_a_count() -> None:
    # 'certifi' token-bounded: certs line 2 only; inside a longer word: 'certificate' in certs line 1
    # and in other line 1 -> 2 places, the first one (corpus order) is the example
    result = check_gold([question(("certifi",))], [CERTS, OTHER])
    (q,) = result.questions
    assert q.accept == (
        AcceptCheck(
            text="certifi",
            in_article=1,
            first=Place("certs", "certs.md", 2),
            other_articles=(),
            inside_word=InsideWord("certificate", Place("certs", "certs.md", 1), 2),
            in_question=False,
        ),
    )
    assert [(f.code, f.severity, f.subject) for f in q.findings] == [("inside-word", "warning", "certifi")]
    assert "'certificate' (certs.md:1 and 1 more place(s))" in q.findings[0].message


def test_occurrence_uses_the_judges_token_rule() -> None:
    # the check counts exactly what the judge's token rule matches: '3 wheels' is not inside '13 wheels'
    body = WHEELS.body
    assert token_bounded_match(body, ["3 wheels"]) is None
    assert token_bounded_match(OTHER.body, ["3 wheels"]) == "3 wheels"
    result = check_gold([question(("3 wheels",), article="wheels")], [CERTS, OTHER, WHEELS])
    (q,) = result.questions
    (accept,) = q.accept
    assert (accept.in_article, accept.first, accept.other_articles) == (0, None, ("other",))
    assert accept.inside_word == InsideWord("13 wheels", Place("wheels", "wheels.md", 1), 2)
    assert [f.code for f in q.findings] == ["inside-word", "not-in-article"]
    assert q.findings[1].message == (
        "occurs nowhere in the gold article 'wheels' (token-bounded, case-insensitive); it does occur in other"
    )


def test_accept_in_the_question_is_a_warning() -> None:
    q = question(("bundled certifi store",), question="Is it the bundled certifi store or the system one?")
    (checked,) = check_gold([q], [CERTS]).questions
    assert checked.accept[0].in_question is True
    assert checked.accept[0].in_article == 1
    assert [f.code for f in checked.findings] == ["in-question"]


def test_case_is_ignored_and_punctuation_edges_need_no_boundary() -> None:
    body = Article("opts", "Options", "Pass `--no-cache-dir` or --NO-CACHE-DIRS.\n", "opts.md")
    (q,) = check_gold([question(("--no-cache-dir",), article="opts")], [body]).questions
    # '--no-cache-dir' in backticks is bounded; inside '--no-cache-dirs' it is not
    assert q.accept[0].in_article == 1
    assert q.accept[0].inside_word == InsideWord("--NO-CACHE-DIRS", Place("opts", "opts.md", 1), 1)


def test_evidence_lines_counts_and_hints() -> None:
    evidence = (
        "Keep 13 wheels.",  # twice in the article: a warning, the first (line 1) is used
        "Keep  13\nwheels",  # whitespace differs: found as the run finds it (twice, line 1), with a warning
        "keep 13 wheels",  # case differs
        "A certificate bundle.",  # in another article
        "nowhere at all",
    )
    q = question(("13 wheels",), article="wheels", evidence=evidence)
    (checked,) = check_gold([q], [CERTS, OTHER, WHEELS]).questions
    assert checked.evidence[0] == EvidenceCheck("Keep 13 wheels.", 2, Place("wheels", "wheels.md", 1))
    assert checked.evidence[1] == EvidenceCheck("Keep  13\nwheels", 2, Place("wheels", "wheels.md", 1))
    assert [e.hint for e in checked.evidence[2:]] == [
        "it matches at line 1 only if case is ignored; evidence is case-sensitive",
        "it is in other instead",
        None,
    ]
    assert [(f.code, f.severity) for f in checked.findings] == [
        ("evidence-repeated", "warning"), ("evidence-whitespace", "warning"), ("evidence-repeated", "warning")
    ] + [("evidence-not-found", "error")] * 3  # fmt: skip
    assert checked.findings[0].message == "occurs 2 times in 'wheels'; the evidence metrics use the first (line 1)"
    assert checked.findings[1].message == (
        "matches at line 1 only if whitespace is ignored: the run finds it there (evidence is matched "
        "whitespace-insensitively); copy the article's text to match it exactly"
    )


def test_structural_errors() -> None:
    questions = [
        question(("x",), article="missing"),
        question(("bundled",), id="q2", type="no_answer", article=None),
        question(("  ",), id="q3"),
    ]
    result = check_gold(questions, [CERTS])
    assert [[f.code for f in q.findings] for q in result.questions] == [
        ["unknown-article"],
        ["no-answer-has-accept"],
        ["empty-accept"],
    ]
    assert len(result.errors) == 3 and result.warnings == ()
    assert result.questions[0].evidence == ()


def test_line_offsets_make_lines_file_lines() -> None:
    (q,) = check_gold([question(("certifi",))], [CERTS], line_offsets={"certs": 4}).questions
    assert q.accept[0].first == Place("certs", "certs.md", 6)


def test_body_line_offsets_counts_front_matter_lines(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("---\nid: a\ntitle: T\n---\nBody line\n", encoding="utf-8")
    article = Article("a", "T", "Body line\n", str(path))
    plain = Article("b", "B", "x\n", str(tmp_path / "gone.md"))  # not on disk: left out, i.e. offset 0
    assert body_line_offsets([article, plain]) == {"a": 4}


def test_summary_counts_every_code() -> None:
    questions = [question(("certifi",)), question((), id="q2", type="no_answer", article=None)]
    result = check_gold(questions, [CERTS, OTHER])
    assert result.counts()["inside-word"] == 1 and sum(result.counts().values()) == 1
    assert summary_line(result) == (
        "summary: 2 questions (1 answerable, 1 no-answer), 1 accept strings, 0 evidence strings, 2 articles; "
        "1 warnings (inside-word 1, in-question 0, not-in-article 0, evidence-repeated 0, evidence-markup 0, "
        "evidence-whitespace 0); 0 errors"
    )


def test_format_question_lines() -> None:
    q = question(("certifi", "pip"), evidence=("bundled certifi store",))
    (checked,) = check_gold([q], [CERTS, OTHER]).questions
    assert format_question(checked) == [
        "q1  [article certs]  Which store does pip use?",
        "  accept 'certifi': 1× in certs (first at certs.md:2); 0 other article(s)",
        "  accept 'pip': 1× in certs (first at certs.md:1); 0 other article(s)",
        "  evidence 1: certs.md:2 'bundled certifi store'",
        "  warning inside-word ('certifi'): also occurs inside the longer word 'certificate' (certs.md:1 and 1 more "
        "place(s)): under answer_matching 'raw' any answer containing such a word is marked correct "
        "(the 'token' rule does not match there)",
        "  warning in-question ('pip'): occurs in the question itself: an answer that repeats the question is marked "
        "correct",
    ]


# --- command line -------------------------------------------------------------------------------------------------


def test_cli_check_on_the_test_corpus(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "findings.json"
    assert main(["gold", "check", "--corpus", str(CORPUS), "--gold", str(GOLD), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    # caching.md has 4 lines of front matter: its body line 4 is file line 8
    line = f"  accept 'pip cache purge': 1× in caching (first at {CORPUS}/caching.md:8); 1 other article(s): config"
    assert line in text
    assert "  warning not-in-article ('a month'): occurs nowhere in the gold article 'caching'" in text
    assert "g5  [no answer]  Can pip limit the size of its cache?\n  no accept strings" in text
    summary = (
        "summary: 5 questions (4 answerable, 1 no-answer), 5 accept strings, 4 evidence strings, 3 articles; "
        "3 warnings (inside-word 1, in-question 1, not-in-article 1, evidence-repeated 0, evidence-markup 0, "
        "evidence-whitespace 0); "
        "0 errors\n"
    )
    assert summary + "power of the gate configs/gate.toml on this gold set (4 answerable, 1 no-answer):\n" in text
    assert text.rstrip().endswith(f"findings: {out}")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["counts"]["inside-word"] == 1 and data["warnings"] == 3 and data["errors"] == 0
    # 4 answerable, 1 no-answer, 5 in all: Tango's interval of 4 of 4 broken reaches back past a 5-point drop; a rise
    # of 5 hallucinations cannot pass a limit of 5; only 5 of 5 answers gaining an unsupported claim could fail
    stuck = ["accuracy_answerable", "refusal_accuracy", "retrieval_recall", "hallucination"]
    assert data["power"]["cannot_fail"] == stuck
    g1 = data["questions"][0]
    assert g1["accept"][0]["inside_word"] == {
        "word": "certificates",
        "place": {"article": "certificates", "path": f"{CORPUS}/certificates.md", "line": 1},
        "count": 2,
    }
    assert [f["code"] for f in g1["findings"]] == ["inside-word"] and g1["findings"][0]["severity"] == "warning"


def test_cli_strict_exits_1_on_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gold", "check", "--corpus", str(CORPUS), "--gold", str(GOLD), "--strict"]) == 1
    capsys.readouterr()


def write_configs(tmp_path: Path, gold_a: Path, gold_b: Path, matching: str = "token") -> tuple[str, str]:
    paths = []
    for name, gold in (("baseline", gold_a), ("candidate", gold_b)):
        path = tmp_path / f"{name}.toml"
        path.write_text(
            f'name = "{name}"\n[shared]\ncorpus = "{CORPUS}"\ngold = "{gold}"\ntop_k = 2\n'
            f'answer_matching = "{matching}"\n'
            '[chunking]\nmethod = "fixed"\n[prompt]\ntemplate = "{context} {question}"\n',
            encoding="utf-8",
        )
        paths.append(str(path))
    return paths[0], paths[1]


def test_cli_check_from_configs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    baseline, candidate = write_configs(tmp_path, GOLD, GOLD)
    assert main(["gold", "check", "--baseline", baseline, "--candidate", candidate]) == 0
    out = capsys.readouterr().out
    assert "3 warnings (inside-word 1, in-question 1, not-in-article 1" in out
    assert "note: the configs judge" not in out


def test_cli_configs_naming_different_gold_files_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text(GOLD.read_text(encoding="utf-8"), encoding="utf-8")
    baseline, candidate = write_configs(tmp_path, GOLD, other)
    assert main(["gold", "check", "--baseline", baseline, "--candidate", candidate]) == 2
    assert "name different [shared] gold" in capsys.readouterr().err


def test_cli_errors_exit_2_after_the_full_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    base = {"question": "How long?", "type": "answerable", "article": "caching", "accept": ["30 days"]}
    rows = [
        {"id": "x1", **base, "evidence": ["KEEPS wheels for 30  days"]},  # case differs: not found
        {"id": "x2", **base, "evidence": ["keeps wheels\nfor 30  days"]},  # only whitespace differs: found
    ]
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["gold", "check", "--corpus", str(CORPUS), "--gold", str(gold)]) == 2
    captured = capsys.readouterr()
    assert "  evidence 1: NOT FOUND 'KEEPS wheels for 30 days'" in captured.out
    assert "error evidence-not-found" in captured.out
    assert "matches at line 9 only if case is ignored" in captured.out
    assert "warning evidence-whitespace" in captured.out and "matches at line 9 only if whitespace is ignored" in (
        captured.out
    )
    assert f"evalgate: error: 1 error(s) in {gold} (listed above)" in captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--corpus", str(CORPUS)], "--corpus and --gold go together"),
        (["--corpus", str(CORPUS), "--gold", str(GOLD), "--baseline", "b.toml"], "not both"),
    ],
)
def test_cli_bad_option_combinations(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gold", "check", *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_invalid_gold_file_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "x1", "question": "Q?", "type": "answerable", "article": "caching", "acept": []}\n')
    assert main(["gold", "check", "--corpus", str(CORPUS), "--gold", str(gold)]) == 2
    assert f"{gold}:1: unknown field(s) ['acept']" in capsys.readouterr().err


def test_cli_notes_configs_that_judge_with_another_rule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    baseline, candidate = write_configs(tmp_path, GOLD, GOLD, matching="raw")
    assert main(["gold", "check", "--baseline", baseline, "--candidate", candidate]) == 0
    out = capsys.readouterr().out
    assert "note: the configs judge with answer_matching = 'raw', not the 'token' rule counted above" in out


def test_an_accept_string_is_looked_for_in_the_articles_reading_too() -> None:
    # reStructuredText literals stand between the words of "C and CXX": the raw body has no such run, its reading has
    body = "project\n-------\n\nBy default ``C`` and ``CXX`` are enabled.\n"
    rst = Article("project", "project", body, "project.rst")
    result = check_gold([question(("C and CXX",), article="project")], [rst])
    (q,) = result.questions
    assert q.accept[0].in_article == 1 and q.accept[0].first == Place("project", "project.rst", 4)
    assert not [f for f in result.findings if f.code == "not-in-article"]
