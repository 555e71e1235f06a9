"""The report's methodology names the rule of every built-in scorer and matching rule, with the code's floors."""

from __future__ import annotations

import pytest

from evalgate_lib.inputs.config import ANSWER_MATCHING
from evalgate_lib.judging.grounding import COVERAGE_FLOOR
from evalgate_lib.judging.scorers import BUILT_IN
from evalgate_lib.judging.support import NEAR_MISS, WORD_FLOOR
from evalgate_lib.reporting.report_html import methodology_html
from evalgate_lib.run.manifest import Manifest


def manifest(scorer: str, matching: str) -> Manifest:
    return Manifest.from_json(
        {
            "gold": {"questions_run": 4, "questions_in_file": 4},
            "backend": {"generator": "g", "embedder": "e"},
            "judging": {"sentence_scorer": scorer, "answer_matching": matching},
        }
    )


@pytest.mark.parametrize("name", sorted(set(BUILT_IN) - {"transformers-nli"}))
def test_every_built_in_scorer_is_described_not_called_a_plug_in(name: str) -> None:
    page = methodology_html(manifest(f"{name}@1", "claim"))
    assert "a registered plug-in scorer" not in page


@pytest.mark.parametrize("matching", ANSWER_MATCHING)
def test_every_matching_rule_is_described(matching: str) -> None:
    page = methodology_html(manifest("prose@4", matching))
    accuracy = page.split("Accuracy on answerable</b>:")[1].split("<b>Refusal accuracy")[0]
    assert len(accuracy.strip()) > 40


def test_the_floors_printed_are_the_code_s_floors() -> None:
    page = methodology_html(manifest("prose@4", "claim"))
    assert f"at least {WORD_FLOOR:.0%} of its other content words" in page and f"under {NEAR_MISS:.0%}" in page
    assert f"≥ {COVERAGE_FLOOR:.2f}" in methodology_html(manifest("lexical@1", "raw"))
    assert WORD_FLOOR == 0.55 and NEAR_MISS == 0.34  # 55% and 34% as printed
