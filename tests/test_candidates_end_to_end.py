"""Three candidates against the baseline on the real embedded backend, ``--limit 4``, in a real process.

The run reuses the session's model cache: the small run (tests/conftest.py) already generated the
baseline's and the shipped candidate's answers and the small regressing gate the starved-context
candidate's, so of the run's 14 distinct prompts only 2 are new: tests/data/sections_150.toml is the
shipped candidate with sections split above 150 words, which changes the context of 2 of the first 4
questions. The call plan counts each prompt once (4 baseline + 4 + 4 + 2 = 14, where three two-config
runs would plan 24), and the run makes exactly the 2 it plans.
"""

from __future__ import annotations

import json

import pytest
from conftest import SMALL_LIMIT, evalgate_cli

from evalgate_lib.api import load_candidates, load_results
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError

pytestmark = pytest.mark.slow

CANDIDATES = ("configs/candidate.toml", "tests/data/regressing_candidate.toml", "tests/data/sections_150.toml")


def test_three_candidates_three_verdicts_the_baseline_once(small_run, small_regressing, model_cache, tmp_path, capsys):
    out = tmp_path / "three"
    given = [arg for path in CANDIDATES for arg in ("--candidate", path)]
    proc = evalgate_cli(
        "run", "--backend", "local", "--no-progress", "--limit", SMALL_LIMIT, *given,
        "--cache-dir", model_cache, "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = proc.stdout.splitlines()
    assert said[0].startswith("model calls: 14 generations (12 cached, 2 to make) + "), said[0]
    stats = json.loads((out / "run_stats.json").read_text(encoding="utf-8"))
    assert stats["model_calls"]["generate_calls"] == 2  # exactly the 2 planned: the baseline was not generated again

    family = load_candidates(out)
    assert family.names == ["candidate", "starved-context", "sections-150"]
    rows = [r for pair in family.pairs for r in pair.rows]
    assert (
        len({r.prompt_sha256 for r in rows}) == 14
        and len({r.prompt_sha256 for r in rows if r.config == "baseline"}) == 4
    )
    # Each pair folder is what the two-config run of that pair wrote: byte for byte.
    for name in ("results.jsonl", "summary.json", "manifest.json"):
        assert (out / "candidate" / name).read_bytes() == (small_run.out / name).read_bytes(), name
    for name in ("results.jsonl", "summary.json"):  # (its manifest records the config by another path)
        assert (out / "starved-context" / name).read_bytes() == (small_regressing.out / name).read_bytes(), name
    assert "McNemar p -> Holm-adjusted p (3 candidates vs baseline, each metric a family)" in proc.stdout

    # Three verdicts, each with Holm-adjusted p-values; one candidate failing fails the gate.
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text('mode = "point"\n[[rule]]\nmetric = "accuracy_answerable"\nmax_drop = 0.05\n')
    code = main(["gate", "--results", str(out), "--thresholds", str(thresholds), "--allow-partial"])
    verdict = capsys.readouterr().out
    assert code == 1, verdict
    blocks = verdict.split("\n\n")
    assert [b.splitlines()[0] for b in blocks[1:4]] == [
        f"gate (point mode): {name} vs baseline" for name in family.names
    ]
    # accuracy on answerable: 1 of 3 right for the baseline; 0 of 3 for candidate and starved-context, 1 of 3 for
    # sections-150; McNemar p 1.000 each (one discordant pair, or none), Holm 3 x 1.0 capped at 1
    assert verdict.count("accuracy on answerable: delta -33.3 pts") == 2 and verdict.count("Holm p=1.000") == 3
    assert blocks[-1].strip() == (
        "FAIL: 2 of 3 candidates regress (candidate, starved-context); passing: sections-150; "
        "best that passes: sections-150"
    )
    # The report leads with the best candidate that passes; the pair folders read like any results folder.
    lead = family.lead(thresholds)
    assert lead.candidate == "sections-150"
    page = lead.first_screen_html(thresholds)
    assert page.count('<tr class="eg-shown" data-candidate="sections-150" data-verdict="PASS">') == 1
    assert page.count('data-verdict="FAIL"') == 2
    assert main(["diff", "--results", str(out / "candidate")]) == 0
    assert load_results(out / "starved-context").changes()
    with pytest.raises(InputError, match="holds several candidates against one baseline"):
        load_results(out)
