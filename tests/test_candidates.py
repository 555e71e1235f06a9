"""Several candidates against one baseline, without a model: Holm's adjustment by hand, the gate, the ranking,
the results folder (one pair folder each and an index) and its checks, and the count of model calls.

The p-values are exact McNemar tests whose values are hand-computed: ``b`` answers broken and none
fixed gives a two-sided p of ``2 · (1/2)^b`` (``b = 6``: 0.03125; ``b = 7``: 0.015625).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import CountingBackend, make_flags, make_matching, make_row, write_results_folder

from evalgate_lib.api import load_candidates, load_results, results_or_run
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.generation import backends
from evalgate_lib.generation.cache import prompt_sha256
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.run import parallel, pipeline
from evalgate_lib.run.candidates import pair_folder_names, run_and_write_candidates, write_index
from evalgate_lib.run.results import PUBLISHED_FILES, run_and_write
from evalgate_lib.statistics.candidates import (
    format_candidates_verdict,
    holm_p_values,
    judge_candidates,
    rank_candidates,
)
from evalgate_lib.statistics.gate import GateConfig, Rule, judge
from evalgate_lib.statistics.metrics import Summary, compare
from evalgate_lib.statistics.multiple_testing import holm_adjust

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ Holm's step-down method, by hand


@pytest.mark.parametrize(
    ("p_values", "adjusted"),
    [
        ([], []),
        ([0.5], [0.5]),  # one test: nothing to adjust
        # sorted 0.01, 0.03, 0.04: 3 x 0.01 = 0.03; 2 x 0.03 = 0.06; 1 x 0.04 = 0.04, raised to the running max 0.06
        ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),
        # McNemar p of three candidates: 3 x 0.012 = 0.036; 2 x 0.33 = 0.66; 1.0 stays
        ([0.33, 0.012, 1.0], [0.66, 0.036, 1.0]),
        # ties: 3 x 0.02 = 0.06, 2 x 0.02 = 0.04 raised to 0.06
        ([0.02, 0.02, 0.9], [0.06, 0.06, 0.9]),
        # 4 x 0.2 = 0.8, 3 x 0.3 = 0.9, 2 x 0.4 = 0.8 -> 0.9, 1 x 0.6 -> 0.9
        ([0.4, 0.3, 0.2, 0.6], [0.9, 0.9, 0.8, 0.9]),
        ([0.6, 0.7], [1.0, 1.0]),  # 2 x 0.6 = 1.2, capped at 1
        ([0.0125, 0.5, 0.5, 0.5], [0.05, 1.0, 1.0, 1.0]),  # 4 x 0.0125 is 0.05 exactly (rounded to 6 places)
    ],
)
def test_holm_adjusted_p_values_by_hand(p_values, adjusted):
    assert holm_adjust(p_values) == adjusted


@pytest.mark.parametrize("bad", [float("nan"), -0.01, 1.2])
def test_holm_refuses_what_is_not_a_p_value(bad):
    with pytest.raises(ValueError, match=r"p_values\[1\]"):
        holm_adjust([0.5, bad])


def test_holm_agrees_with_statsmodels(monkeypatch):
    import gc

    from statsmodels.stats.multitest import multipletests  # a dev dependency, for this check only

    # statsmodels' Holm branch runs gc.collect() on every call: 0.1 s alone, about 3 s in a test worker
    # that holds the models. A full collection frees memory and changes no value, so it is skipped here.
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = random.Random(20261202)
    for m in (2, 3, 5, 10, 10):  # families of each size, with ties, zeros and ones
        p = [rng.choice([rng.random(), rng.random() / 50, 1.0, 0.0625, 0.0]) for _ in range(m)]
        expected = multipletests(p, method="holm")[1]
        assert holm_adjust(p) == pytest.approx(list(expected), abs=5e-7)


# ------------------------------------------------------------------ the gate over several candidates


def _row(config: str, qid: str, correct: bool) -> ResultRow:
    return make_row(
        config=config,
        question_id=qid,
        correct=correct,
        groundedness=0.9,
        retrieval_metrics=None,
        matching=make_matching(correct),
        flags=make_flags(wrong=not correct),
    )


QUESTIONS = 10
BASE = [True] * QUESTIONS


def _rows(name: str, broken: int) -> list[ResultRow]:
    """The candidate ``name`` breaks the first ``broken`` of 10 answers the baseline has right."""
    return [_row(name, f"q{i}", i >= broken) for i in range(QUESTIONS)]


def _summary(name: str, broken: int) -> Summary:
    return compare([_row("base", f"q{i}", c) for i, c in enumerate(BASE)] + _rows(name, broken), "base", name)


GATE = GateConfig((Rule("accuracy_answerable", max_drop=0.05),), mode="significant", alpha=0.05)


def test_a_regression_alone_fails_but_within_a_family_of_two_it_is_noise():
    a = _summary("a", broken=5)  # 5 of 10 broken: Tango's score test of "-5 points" gives p = 0.038434
    assert a.significance["accuracy_answerable"]["p_value"] == 0.0625  # McNemar against no change (exact, 2 / 2**5)
    alone = judge(a, GATE)[0]
    assert alone.failed and alone.margin["p_value"] == 0.038434  # alone: Tango [-76.3, -8.4] lies past -5
    assert alone.margin["ci_high"] < -0.05
    judged = judge_candidates([a, _summary("b", broken=0)], GATE)
    # the family against the limit: a 0.038434, b (nothing moved on 10) 0.46816; Holm: a 2 x 0.038434 = 0.076868
    assert [c.adjusted_limit_p["accuracy_answerable"] for c in judged] == [0.076868, 0.46816]
    assert [c.adjusted_p["accuracy_answerable"] for c in judged] == [0.125, 1.0]  # against no change: 2 x 0.0625
    verdict = judged[0].verdicts[0]
    assert (verdict.breached, verdict.failed, verdict.adjusted) == (True, False, True)
    # its interval is at the level the adjustment implies: 1 - 0.05 x 0.038434 / 0.076868 = 97.5 %, holding -5
    assert verdict.margin["confidence"] == pytest.approx(0.975) and verdict.margin["ci_high"] > -0.05
    assert "McNemar p=0.062, Holm p=0.125 against no change" in verdict.message
    assert "Holm p=0.077 against the limit (Tango p=0.038)" in verdict.message
    assert verdict.message.startswith("INCONCLUSIVE")


def test_a_strong_regression_still_fails_among_three():
    judged = judge_candidates([_summary("a", 0), _summary("b", 7), _summary("c", 1)], GATE)
    # p: 1.0, 2/2**7 = 0.015625, 1.0 (one discordant pair: 2 x 1/2, capped); Holm: 3 x 0.015625 = 0.046875
    assert [c.adjusted_p["accuracy_answerable"] for c in judged] == [1.0, 0.046875, 1.0]
    # what decides, against the -5 limit: b's Tango p 0.012844, Holm 3 x 0.012844 = 0.038532 < 0.05
    assert judged[1].adjusted_limit_p["accuracy_answerable"] == 0.038532
    assert [c.failed for c in judged] == [False, True, False]
    assert judged[0].adjusted_p["mean_groundedness"] is None  # a score: no p-value to adjust


def test_holm_families_are_per_metric():
    adjusted = holm_p_values([_summary("a", 6), _summary("b", 7)])
    assert adjusted[0]["accuracy_answerable"] == 0.03125  # 2 x 0.015625 = 0.03125, then max(0.03125, 0.03125)
    assert adjusted[1]["accuracy_answerable"] == 0.03125
    assert adjusted[0]["wrong"] == 0.03125  # the wrong flag moves with accuracy: its own family, same values
    assert adjusted[0]["refusal_accuracy"] is None  # no no-answer question: no test made, nothing to adjust


def test_ranking_puts_the_best_passing_candidate_first():
    rules = (Rule("accuracy_answerable", max_drop=0.5), Rule("hallucination", max_increase=0))
    gate = GateConfig(rules, mode="point")
    judged = judge_candidates([_summary("a", 3), _summary("b", 1), _summary("c", 6), _summary("d", 1)], gate)
    assert [c.failed for c in judged] == [False, False, True, False]  # c drops 60 points > 50
    # passing first, by accuracy's delta (b and d tie at -10 points: given order), then the failing one
    assert [c.name for c in rank_candidates(judged)] == ["b", "d", "a", "c"]
    text = format_candidates_verdict(judged, gate)
    assert text.startswith("gate (point mode): 4 candidates vs base; McNemar p of each yes/no metric Holm-adjusted")
    assert text.count("gate (point mode): ") == 5  # the header and one block per candidate
    assert text.endswith("FAIL: 1 of 4 candidates regress (c); passing: b, d, a; best that passes: b")


def test_a_score_rule_says_its_interval_is_not_adjusted():
    gate = GateConfig((Rule("mean_groundedness", max_drop=0.5),), mode="significant")
    judged = judge_candidates([_summary("a", 1), _summary("b", 0)], gate)
    assert judged[0].verdicts[0].adjusted is False and judged[0].verdicts[0].p_value is None
    head = format_candidates_verdict(judged, gate).splitlines()[0]
    assert head.endswith("across the 2 candidates (a score's 95% interval is not adjusted)")


def test_when_none_passes_the_verdict_says_so():
    gate = GateConfig((Rule("accuracy_answerable", max_drop=0.0),), mode="point")
    judged = judge_candidates([_summary("a", 2), _summary("b", 1)], gate)
    assert format_candidates_verdict(judged, gate).endswith("FAIL: 2 of 2 candidates regress (a, b); none passes")
    assert rank_candidates(judged)[0].name == "b"  # the report still leads with the least bad


# ------------------------------------------------------------------ the folder: one pair folder each and an index


def _family(tmp_path: Path, broken: dict[str, int]) -> Path:
    """A several-candidates folder of crafted pairs, written by the one writer of each part."""
    out = tmp_path / "several"
    base_rows = [_row("base", f"q{i}", True) for i in range(QUESTIONS)]
    names = list(broken)
    folders = pair_folder_names(names)
    for name, sub in zip(names, folders, strict=True):
        write_results_folder(
            out / sub, base_rows + _rows(name, broken[name]), "base", name, limit=2, questions_in_file=20
        )
    write_index(out, "base", [(n, f, f"{n}.toml") for n, f in zip(names, folders, strict=True)], {}, "evalgate run")
    return out


def test_each_pair_is_a_results_folder_and_the_index_ties_them(tmp_path):
    out = _family(tmp_path, {"a": 6, "b/2": 0})
    # each pair was written alone here, so each has its lock file beside it (.a.evalgate-lock); a family writes
    # its pairs under its own lock
    listed = sorted(p.name for p in out.iterdir() if not p.name.endswith(".evalgate-lock"))
    assert listed == ["a", "b_2", "candidates.json", "run_stats.json"]
    family = load_candidates(out)
    assert family.names == ["a", "b/2"] and family.baseline == "base"
    assert load_results(out / "a").summary == family.pair("a").summary  # every reader of one pair, unchanged
    assert family.holm_p_values()["a"]["accuracy_answerable"] == 0.0625
    assert family.lead(ROOT / "configs" / "gate.toml").candidate == "b/2"  # a drops 60 points: b leads
    with pytest.raises(InputError, match=r"holds several candidates .*several/a, .*several/b_2"):
        load_results(out)
    with pytest.raises(InputError, match=r"holds several candidates"):  # a notebook's results_dir, the same line
        results_or_run(out, "configs/baseline.toml", "configs/candidate.toml")


def test_a_pair_changed_after_the_run_is_refused(tmp_path):
    out = _family(tmp_path, {"a": 1, "b": 0})
    manifest = out / "b" / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"base"', '"base" '), encoding="utf-8")
    with pytest.raises(InputError, match=r"b/manifest.json: SHA-256 differs from .*candidates.json"):
        load_candidates(out)


def test_pairs_must_share_one_baseline_run(tmp_path):
    out = _family(tmp_path, {"a": 1, "b": 0})
    other = [_row("base", f"q{i}", i != 0) for i in range(QUESTIONS)] + _rows("b", 0)
    write_results_folder(out / "b", other, "base", "b", limit=2, questions_in_file=20)
    index = json.loads((out / "candidates.json").read_text(encoding="utf-8"))
    write_index(out, "base", [(c["name"], c["folder"], c["source"]) for c in index["candidates"]], {}, "evalgate run")
    with pytest.raises(InputError, match=r"baseline rows differ"):
        load_candidates(out)


def test_folder_names_are_safe_and_distinct():
    assert pair_folder_names(["cand", "with space", "../up", "ünï"]) == ["cand", "with_space", "_up", "_n_"]
    with pytest.raises(InputError, match="another candidate uses"):
        pair_folder_names(["a b", "a/b"])


def test_one_pair_written_over_several_removes_the_index(tmp_path):
    out = _family(tmp_path, {"a": 1, "b": 0})
    write_results_folder(out, [_row("base", "q0", True), _row("a", "q0", True)], "base", "a")
    assert not (out / "candidates.json").exists()
    assert load_results(out).candidate == "a"


def test_the_gate_says_each_verdict_and_fails_when_any_candidate_fails(tmp_path, capsys):
    out = _family(tmp_path, {"a": 5, "b": 0, "c": 7})
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "significant"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    code = main(["gate", "--results", str(out), "--thresholds", str(thresholds), "--allow-partial"])
    said = capsys.readouterr().out
    # against no change: a 0.0625, b 1.0, c 0.015625; Holm: c 3 x 0.015625 = 0.046875, a 2 x 0.0625 = 0.125, b 1.0
    # against the limit (what decides): a 0.038434, b 0.46816, c 0.012844; Holm: c 0.038532, a 0.076868, b 0.46816
    assert code == 1
    assert "McNemar p=0.062, Holm p=0.125" in said and "McNemar p=0.016, Holm p=0.047" in said
    assert "Holm p=0.077 against the limit" in said and "Holm p=0.039 against the limit" in said
    assert said.count("PARTIAL run") == 3  # every block says what it rests on
    # a (Holm p against the limit 0.077) and b (nothing moved on a few questions) are neither past the limit nor
    # shown within it: INCONCLUSIVE
    assert said.rstrip().endswith("FAIL: 1 of 3 candidates regress (c); inconclusive: a, b; none passes")
    # one pair folder on its own is judged as one of its family, and says so
    # a: −50 points, Holm p against the limit 0.077: not past it, nor shown within it: INCONCLUSIVE (exit 4)
    assert main(["gate", "--results", str(out / "a"), "--thresholds", str(thresholds), "--allow-partial"]) == 4
    said = capsys.readouterr().out
    assert said.startswith(f"a is one of 3 candidates in {out.resolve()}") and "Holm p=0.077 against the limit" in said
    assert main(["gate", "--results", str(out), "--thresholds", str(thresholds)]) == 2  # partial, refused


def test_the_family_json_writes_the_verdict_and_exit_code_the_text_says(tmp_path, capsys):
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "significant"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    # a: Holm p against the limit 2 x 0.038434 = 0.076868, b: nothing moved: no rule fails, neither shown within it
    out = _family(tmp_path, {"a": 5, "b": 0})
    report = tmp_path / "family.json"
    argv = ["gate", "--results", str(out), "--thresholds", str(thresholds), "--allow-partial", "--json", str(report)]
    assert main(argv) == 4
    said = capsys.readouterr().out
    assert "INCONCLUSIVE: no candidate regresses, 2 of 2 not shown within every limit (a, b); none passes" in said
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["verdict"], data["exit_code"]) == ("INCONCLUSIVE", 4)  # was PASS, 0
    assert [c["verdict"] for c in data["candidates"]] == ["INCONCLUSIVE", "INCONCLUSIVE"]
    assert main([*argv, "--allow-inconclusive"]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["verdict"], data["exit_code"]) == ("INCONCLUSIVE", 0)
    # one candidate regresses: FAIL, 1, whatever the others
    out = _family(tmp_path / "f", {"a": 5, "b": 0, "c": 7})
    argv = ["gate", "--results", str(out), "--thresholds", str(thresholds), "--allow-partial", "--json", str(report)]
    assert main(argv) == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["verdict"], data["exit_code"]) == ("FAIL", 1)
    assert [c["verdict"] for c in data["candidates"]] == ["INCONCLUSIVE", "INCONCLUSIVE", "FAIL"]


def test_the_first_screen_leads_with_every_verdict_and_judges_on_holm(tmp_path):
    out = _family(tmp_path, {"a": 5, "b": 0, "c": 7})
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "significant"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    page = load_results(out / "a").first_screen_html(thresholds)
    assert page.index('id="eg-candidates"') < page.index('id="eg-verdict"')
    assert '<tr class="eg-shown" data-candidate="a" data-verdict="INCONCLUSIVE">' in page
    assert 'data-candidate="c" data-verdict="FAIL"' in page
    # a alone would FAIL (Tango p against the limit 0.038); in its family (Holm 0.077) it is neither past the limit
    # nor shown within it
    assert 'data-verdict="INCONCLUSIVE"' in page[page.index('id="eg-verdict"') - 80 :]
    assert "Holm-adjusted McNemar p (raw 0.062) against no change = 0.125 ≥ 0.05" in page
    assert "0.125 <small>(raw 0.062)" in page
    assert "(Tango), holding it; Holm-adjusted p = 0.077 ≥ 0.05" in page
    # the leaderboard's cell of a: McNemar's p and Holm's against no change, then Holm's against the limit
    assert "<small>p 0.062, Holm 0.125; against the limit 0.077</small>" in page
    escaped = _family(tmp_path / "x", {"a": 0, "<b>b</b>": 1})
    page = load_results(escaped / "a").first_screen_html(thresholds)
    assert "&lt;b&gt;b&lt;/b&gt;" in page and "<b>b</b>" not in page  # a config name reaches HTML escaped
    headline = load_results(out / "c").headline_html()
    assert "(Holm 0.047)" in headline and 'data-metric="accuracy_answerable" data-significant="1"' in headline


# ------------------------------------------------------------------ the run: the baseline generated once


@pytest.fixture
def counted(monkeypatch):
    """``--backend local`` served by a :class:`CountingBackend` that also keeps every prompt it generated for."""
    backend = CountingBackend()
    prompts: list[str] = []
    generate = backend.generate
    backend.generate = lambda prompt, options: (prompts.append(prompt), generate(prompt, options))[1]
    backend.prompts = prompts
    monkeypatch.setattr(backends, "_built", {})
    monkeypatch.setattr(parallel, "_caches", {})
    monkeypatch.setattr(backends.BackendSpec, "_construct", lambda spec: backend)
    return backend


CANDIDATES = [
    ROOT / "configs" / "candidate.toml",
    ROOT / "tests" / "data" / "regressing_candidate.toml",
    ROOT / "tests" / "data" / "sections_200.toml",
]


def test_three_candidates_generate_the_baseline_once(tmp_path, counted):
    options = pipeline.RunOptions(backend="local", cache_dir=tmp_path / "cache", limit=4, progress=False)
    out = run_and_write_candidates(ROOT / "configs" / "baseline.toml", CANDIDATES, options, tmp_path / "several")
    family = load_candidates(out)
    assert family.names == ["candidate", "starved-context", "sections-200"]
    rows = [r for pair in family.pairs for r in pair.rows]
    assert len(rows) == 24  # three pairs of 4 + 4 answers: three two-config runs would ask for 24 generations
    baseline = {r.prompt_sha256 for r in rows if r.config == "baseline"}
    distinct = {r.prompt_sha256 for r in rows}
    # sections-200 cuts the shipped candidate's chunks (no section splits at 200 words): the same 4 prompts
    assert (len(baseline), len(distinct)) == (4, 12)  # 4 baseline + 4 + 4 + 0 new prompts
    assert counted.calls["generate"] == 12 == len(set(counted.prompts))  # every prompt generated once, no more
    made = [prompt_sha256(p) for p in counted.prompts]
    assert sorted(h for h in made if h in baseline) == sorted(baseline)  # the baseline's 4, once each
    stats = json.loads((out / "run_stats.json").read_text(encoding="utf-8"))
    assert stats["planned_calls"]["generations"] == 12 and stats["model_calls"]["generate_calls"] == 12
    # each pair folder is byte for byte what the run of that one pair writes (here: from the same cache, no call)
    counted.calls.clear()
    run_and_write(ROOT / "configs" / "baseline.toml", CANDIDATES[2], options, tmp_path / "alone")
    assert counted.calls["generate"] == 0
    for name in PUBLISHED_FILES:
        assert (tmp_path / "alone" / name).read_bytes() == (out / "sections-200" / name).read_bytes(), name


def test_candidates_with_one_name_are_refused(tmp_path, counted):
    twin = tmp_path / "twin.toml"
    shutil.copy(CANDIDATES[0], twin)
    text = twin.read_text(encoding="utf-8").replace('"../corpus"', repr(str(ROOT / "corpus")).replace("'", '"'))
    twin.write_text(text.replace('"../gold/questions.jsonl"', f'"{ROOT / "gold" / "questions.jsonl"}"'))
    options = pipeline.RunOptions(backend="local", cache_dir=tmp_path / "cache", limit=2, progress=False)
    with pytest.raises(InputError, match=r"have the same name 'candidate'"):
        run_and_write_candidates(ROOT / "configs" / "baseline.toml", [CANDIDATES[0], twin], options, tmp_path / "x")
    assert counted.calls["generate"] == 0


# ------------------------------------------------------------------ evalgate score with several candidate logs


def test_score_pairs_each_candidate_log_with_the_baseline_log(tmp_path, capsys):
    from test_score import CORPUS, _gold, _logs  # the answer logs of tests/test_score.py, by hand

    gold, picked = _gold(tmp_path)
    v1, v2 = _logs(tmp_path, picked)  # v1 refuses everything, v2 answers with the accepted strings
    v3 = tmp_path / "v3.jsonl"
    shutil.copy(v1, v3)  # answers as the baseline does: no change at all
    common = ["--gold", str(gold), "--corpus", str(CORPUS)]
    assert main(["score", str(v1), str(v2), str(v3), *common, "--out", str(tmp_path / "several")]) == 0
    printed = capsys.readouterr().out
    assert "McNemar p -> Holm-adjusted p (2 candidates vs v1, each metric a family)" in printed
    assert printed.rstrip().endswith("(+ one results folder per pair: v2/, v3/)")
    family = load_candidates(tmp_path / "several")
    assert family.names == ["v2", "v3"] and family.pair("v2").manifest.is_external
    # v2 vs v1: 3 answerable fixed (p = 2 x 1/8 = 0.25), v3 vs v1: none (p = 1.0); Holm: 2 x 0.25 = 0.5, 1.0
    assert family.holm_p_values()["v2"]["accuracy_answerable"] == 0.5
    assert family.holm_p_values()["v3"]["accuracy_answerable"] == 1.0
    assert main(["score", str(v1), str(v2), *common, "--out", str(tmp_path / "alone")]) == 0
    for name in ("results.jsonl", "summary.json", "manifest.json"):
        assert (tmp_path / "alone" / name).read_bytes() == (tmp_path / "several" / "v2" / name).read_bytes(), name
    capsys.readouterr()
    args = ["score", str(v1), str(v2), str(v3), *common, "--names", "a,b", "--out", str(tmp_path / "x")]
    assert main(args) == 2
    assert "--names takes 3 names separated by commas (one per log), got 'a,b'" in capsys.readouterr().err


def test_gate_with_several_candidates_runs_them_then_judges_each(tmp_path, counted, capsys):
    given = [arg for path in CANDIDATES for arg in ("--candidate", str(path))]
    args = ["gate", "--backend", "local", "--no-progress", "--limit", "2", "--allow-partial", *given]
    code = main([*args, "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out")])
    said = capsys.readouterr().out
    assert code in (0, 1, 4), said
    assert said.splitlines()[0].startswith("model calls: ")  # the run's one plan, counted once for all candidates
    assert "McNemar p -> Holm-adjusted p (3 candidates vs baseline, each metric a family)" in said
    assert said.count("gate (significant mode): ") == 4  # the family's header and one block per candidate
    last = said.splitlines()[-1]
    assert code == (1 if "FAIL: " in last else 4 if last.startswith("INCONCLUSIVE: ") else 0)


def test_the_report_on_several_candidates_shows_the_leading_pair(tmp_path, monkeypatch, capsys):
    from evalgate_lib.workbench import report

    out = _family(tmp_path, {"a": 6, "b": 0})
    built: dict[str, object] = {}

    def record(out_dir, parameters, results=None, **kwargs):  # the notebooks are not executed here
        built.update(results=results, candidate=parameters["candidate_config"])
        return Path(out_dir) / "index.html"

    monkeypatch.setattr(report, "build_report", record)
    assert main(["report", "--results", str(out), "--out", str(tmp_path / "report")]) == 0
    assert built["results"] == out / "b"  # b loses nothing; a drops 60 points on the first shipped rule
    assert f"report: {out} holds 2 candidates; leading with b" in capsys.readouterr().out
