"""The gate on the full gold set with the real embedded backend.

The shipped thresholds (configs/gate.toml, significant mode) must pass the shipped
pair, and must fail a pair that really regresses (tests/data/regressing_candidate.toml:
two-word chunks starve the model of context). Both runs use the repository's cache
folder, so after the first run (about 7 and 3 minutes cold on 2 cores) they are instant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _gate(tmp_path: Path, candidate: Path) -> int:
    return main(
        [
            "gate", "--backend", "local", "--no-progress",
            "--baseline", str(ROOT / "configs" / "baseline.toml"),
            "--candidate", str(candidate),
            "--thresholds", str(ROOT / "configs" / "gate.toml"),
            "--cache-dir", str(ROOT / "cache"),
            "--out", str(tmp_path / "results"),
        ]
    )  # fmt: skip


def test_shipped_pair_passes_the_shipped_gate(tmp_path, capsys):
    assert _gate(tmp_path, ROOT / "configs" / "candidate.toml") == 0
    out = capsys.readouterr().out
    assert "gate (significant mode): candidate vs baseline" in out
    assert "PASS: no regression beyond thresholds" in out
    assert "questions: 101 (81 answerable, 20 no-answer)" in out


def test_regressing_pair_fails_naming_metric_and_interval(tmp_path, capsys):
    assert _gate(tmp_path, ROOT / "tests" / "data" / "regressing_candidate.toml") == 1
    out = capsys.readouterr().out
    assert "FAIL: candidate regresses on" in out
    assert "accuracy_answerable" in out.splitlines()[-1]
    fail_lines = [line for line in out.splitlines() if line.startswith("FAIL  ")]
    assert any("accuracy on answerable: delta -" in line and "95% CI [" in line for line in fail_lines)
