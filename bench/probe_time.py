"""How long `evalgate probe` takes: the shipped corpus and a folder of real HTML documentation (issue 52: < 60 s).

Each probe is run as a user runs it (``evalgate probe --corpus DIR --gold FILE``, a new process, its imports
counted), once cold; the wall time, the answers judged and the answers per second are printed. A timing, never an
assertion: machines differ, and a test never times anything.

    .venv/bin/python bench/probe_time.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBES = {
    "shipped corpus (Markdown)": (ROOT / "corpus", ROOT / "gold" / "questions.jsonl"),
    "Linux-PAM guides (DocBook HTML)": (
        ROOT / "tests" / "data" / "html-docs" / "docbook-pam" / "corpus",
        ROOT / "tests" / "data" / "html-docs" / "docbook-pam" / "gold.jsonl",
    ),
}


def main() -> int:
    for name, (corpus, gold) in PROBES.items():
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "probe.json"
            command = [sys.executable, "-m", "evalgate_lib.cli", "probe", "--corpus", str(corpus), "--gold", str(gold)]
            started = time.perf_counter()
            done = subprocess.run([*command, "--json", str(out)], capture_output=True, text=True, cwd=ROOT, check=False)
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                print(f"{name}: exit {done.returncode}: {done.stderr.strip()}")
                return 1
            report = json.loads(out.read_text(encoding="utf-8"))
        answers = sum(kind["made"] for kind in report["kinds"])
        print(
            f"{name}: {seconds:.1f} s wall, {report['bases']} faithful answers, {answers} edited answers judged, "
            f"{answers / seconds:.0f} answers/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
