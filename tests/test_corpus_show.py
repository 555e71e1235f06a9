"""``evalgate corpus show``: an article as EvalGate reads it, the lines ``gold check`` counts (issue 54)."""

from __future__ import annotations

import json
from pathlib import Path

from evalgate_lib.cli import main

PAGE = (
    "<html><head><title>Limits</title></head><body><main><h1>Limits</h1><p>Intro line.</p>"
    "<ul><li>At most <code>64</code> columns.</li><li>Rows are unlimited.</li></ul></main></body></html>"
)


def test_corpus_show_prints_the_text_gold_check_numbers(tmp_path: Path, capsys) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "limits.html").write_text(PAGE, encoding="utf-8")
    assert main(["corpus", "show", "limits", "--corpus", str(tmp_path / "kb"), "--lines", "5-6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == ["5  - At most 64 columns.", "6  - Rows are unlimited."]
    gold = tmp_path / "gold.jsonl"
    rows = [{"id": "q1", "question": "How many columns?", "type": "answerable", "article": "limits",
             "accept": ["64"], "evidence": ["- At most 64 columns.", "Rows are unlimited."]}]  # fmt: skip
    gold.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["gold", "check", "--corpus", str(tmp_path / "kb"), "--gold", str(gold)]) == 0
    report = capsys.readouterr().out
    assert "limits.html:6 (as read: evalgate corpus show limits --lines 6) 'Rows are unlimited.'" in report
    assert "warning evidence-markup ('- At most 64 columns.'): starts with '-', markup EvalGate added" in report
    assert main(["corpus", "show", "limits", "--corpus", str(tmp_path / "kb"), "--lines", "9-12"]) == 2
    assert "--lines '9-12': the article 'limits' has lines 1-7" in capsys.readouterr().err
