"""Three candidates against the baseline on the real embedded backend, ``--limit 4``, in a real process.

The run reuses the session's model cache: the small run (tests/conftest.py) already generated the
baseline's and the shipped candidate's answers and the small regressing gate the starved-context
candidate's; tests/data/sections_200.toml (the shipped candidate with sections split above 200 words)
cuts the very chunks of the shipped candidate, so its prompts are the shipped candidate's. The call
plan counts each distinct prompt once, 4 baseline + 4 + 4 = 12 (three two-config runs would plan 24),
all cached: the run makes no model call (the two-candidate count on a cold cache, by a counting
backend, is tests/test_candidates.py's).
"""

from __future__ import annotations

import json

import pytest
from conftest import SMALL_LIMIT, evalgate_cli

from evalgate_lib.api import load_candidates, load_results
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError

pytestmark = pytest.mark.slow

CANDIDATES = ("configs/candidate.toml", "tests/data/regressing_candidate.toml", "tests/data/sections_200.toml")


def test_three_candidates_three_verdicts_the_baseline_once(small_run, small_regressing, model_cache, tmp_path, capsys):
    out = tmp_path / "three"
    given = [arg for path in CANDIDATES for arg in ("--candidate", path)]
    proc = evalgate_cli(
        "run", "--backend", "local", "--no-progress", "--limit", SMALL_LIMIT, *given,
        "--cache-dir", model_cache, "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = proc.stdout.splitlines()
    assert said[0].startswith("model calls: 12 generations (12 cached, 0 to make) + "), said[0]
    assert said[0].endswith("; nothing to generate"), said[0]
    stats = json.loads((out / "run_stats.json").read_text(encoding="utf-8"))
    assert stats["model_calls"]["generate_calls"] == 0 and stats["planned_calls"]["generations"] == 12

    family = load_candidates(out)
    assert family.names == ["candidate", "starved-context", "sections-200"]
    rows = [r for pair in family.pairs for r in pair.rows]
    assert len(rows) == 24 and len({r.prompt_sha256 for r in rows if r.config == "baseline"}) == 4
    assert len({r.prompt_sha256 for r in rows}) == 12  # sections-200 asks the shipped candidate's 4 prompts
    twin, shipped = (family.pair(n).rows[4:] for n in ("sections-200", "candidate"))
    assert [r.answer for r in twin] == [r.answer for r in shipped]  # so its answers are the cached ones
    # Each pair folder is what the two-config run of that pair wrote: byte for byte.
    for name in ("results.jsonl", "summary.json", "manifest.json"):
        assert (out / "candidate" / name).read_bytes() == (small_run.out / name).read_bytes(), name
    for name in ("results.jsonl", "summary.json"):  # (its manifest records the config by another path)
        assert (out / "starved-context" / name).read_bytes() == (small_regressing.out / name).read_bytes(), name
    assert "McNemar p -> Holm-adjusted p (3 candidates vs baseline, each metric a family)" in proc.stdout

    # Three verdicts, each with Holm-adjusted p-values; one candidate failing fails the gate.
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "point"\n[[rule]]\nmetric = "evidence_hit"\nmax_drop = 0.05\n')
    code = main(["gate", "--results", str(out), "--thresholds", str(thresholds), "--allow-partial"])
    verdict = capsys.readouterr().out
    assert code == 1, verdict
    blocks = verdict.split("\n\n")
    assert [b.splitlines()[0] for b in blocks[1:4]] == [f"gate (point mode): {n} vs baseline" for n in family.names]
    # evidence in context, 3 answerable questions: baseline 2 of 3; candidate (and its twin) 3 of 3, one discordant
    # pair, McNemar p = 1.0; starved-context 0 of 3, two discordant pairs, p = 2 x 1/4 = 0.5; Holm 3 x 0.5, capped
    # at 1. The interval inverts McNemar's exact test on b = 2, c = 0 of n = 3: the lower end is the observed
    # -2/3 (no improvement among the discordant pairs), the upper (2/3)(2 pi_U - 1) at the level the family's
    # Holm step gives this rule, and named so (97.5 %: pi_U = 1 - 0.0125^(1/2) = 0.888, so +51.8)
    assert (
        "FAIL  evidence chunk in context: delta -66.7 pts 97.5% CI [-66.7, +51.8], McNemar p=0.500, Holm p=1.000"
        in (blocks[2])
    ), blocks[2]
    assert blocks[1].count("McNemar p=1.000, Holm p=1.000") == blocks[3].count("McNemar p=1.000, Holm p=1.000") == 1
    assert blocks[-1].strip() == (
        "FAIL: 1 of 3 candidates regress (starved-context); passing: candidate, sections-200; "
        "best that passes: candidate"
    )
    # The report leads with the best candidate that passes; the pair folders read like any results folder.
    lead = family.lead(thresholds)
    assert lead.candidate == "candidate"  # tied with sections-200 on the first rule: the order given decides
    page = lead.first_screen_html(thresholds)
    assert page.count('<tr class="eg-shown" data-candidate="candidate" data-verdict="PASS">') == 1
    assert page.count('data-verdict="FAIL"') == 1 and 'data-candidate="sections-200" data-verdict="PASS"' in page
    assert main(["diff", "--results", str(out / "candidate")]) == 0
    assert load_results(out / "starved-context").changes()
    with pytest.raises(InputError, match="holds several candidates against one baseline"):
        load_results(out)
