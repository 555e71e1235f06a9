"""The fourth bad-input and fault campaign (issue 56), as one table of cases like tests/test_campaign_three.py.

The first campaign's harness runs every row (:func:`test_campaign.run_case`): a fresh workspace,
one fault, one command through the real command line, its exit code and first line checked
exactly. The rows are grouped by what the campaign found:

* data loss: an output written over an input the same command read (the gate's thresholds, a
  pair folder's rows), into a results folder it read, or, given an empty path, into the current
  folder; a report interrupted half-way leaving the old ``index.html`` linking to new notebooks;
* tracebacks: a damaged Hugging Face ``datasets`` folder; a Ctrl-C during a report;
* silent wrong results: a control character of a name or an answer reaching the terminal raw, a
  CI file (JUnit XML, Markdown) a name could break or inject into, two outputs to one path, a
  signed file moved from another run, a report reading a folder while a run rewrites it, an
  answer log ``AnswerLogger`` wrote and ``score`` refused, and text that reads the same judged
  different (a soft hyphen, a zero-width joiner, ``STRASSE`` and ``Straße``);
* unclear messages: each with its real cause and a remedy that works (a check runs the remedy).

The rows read folders ``evalgate score`` writes from hand-made answer logs over twelve gold
questions (campaign three's), or run ``evalgate run`` against the in-process fake Ollama. The deep
HTML rows of the issue are issue 54's (``text/html_page.py``). The table goes to
``build/campaign-4.txt``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable

import pytest
from test_campaign import ERR, ROOT, Case, Workspace, campaign_tests
from test_campaign_three import QUESTIONS, census, gate, gate_file, labels_file, log, relabel, rows_of, score, twelve
from test_campaign_two import key_file, warnings_on_stderr

from evalgate_lib.errors import InputError

SUMMARY = ROOT / "build" / "campaign-4.txt"
OVERWRITE = r": an output never overwrites an input; name another file"
EMPTY = r" is empty: an empty path names no file or folder \(it would be the current folder\); name one, e\.g\. '\.' for the current folder"  # noqa: E501
INSIDE = (
    r" lies inside the results folder {ws}/R this command reads: a results folder holds only what its run wrote \(its "
    r"manifest and signature cover those files\), so an output there could replace one of them or be taken for one; "
    r"write it outside {ws}/R"
)
INTERRUPTED = r"evalgate: interrupted; everything computed so far is in the cache, rerun to resume"
#: What each name below holds: an escape sequence that clears the screen, a carriage return that overwrites the line.
CLEAR = "\x1b[2J"
FAKE_PASS = "c\rPASS: no regression"


# ------------------------------------------------------------------------------ helpers


def cwd_in(ws: Workspace) -> None:
    """Run the case's command in the workspace (as a user in their project folder); undone after the case."""
    here = os.getcwd()
    os.chdir(ws.root)
    ws.cleanups.append(lambda: os.chdir(here))


def family(ws: Workspace, out: str = "R", key: Path | None = None, names: tuple[str, ...] = ("b", "c", "d")) -> Path:
    front = ("--key-file", str(key)) if key is not None else ()
    return score(ws, *names, out=out, front=front)


def old_report(ws: Workspace) -> Path:
    """An earlier report in ``<ws>/report``: its page links its own notebook."""
    out = ws.root / "report"
    (out / "notebooks").mkdir(parents=True)
    (out / "index.html").write_text('<a href="notebooks/05_report.html">the old run</a>\n')
    (out / "notebooks" / "05_report.html").write_text("<p>old run's notebook</p>\n")
    return out


def old_report_whole(ws: Workspace) -> None:
    out = ws.root / "report"
    assert (out / "index.html").read_text() == '<a href="notebooks/05_report.html">the old run</a>\n'
    assert (out / "notebooks" / "05_report.html").read_text() == "<p>old run's notebook</p>\n"
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "notebooks"]  # no staging folder left
    assert sorted(p.name for p in (out / "notebooks").iterdir()) == ["05_report.html"]


def notebook_stopped(exc: BaseException) -> Callable[[pytest.MonkeyPatch], None]:
    """A patch: executing a notebook writes its half-done copy into the new report, then ``exc`` (a Ctrl-C) stops it."""

    def patch(monkeypatch: pytest.MonkeyPatch) -> None:
        from evalgate_lib.workbench import report

        def execute(source: Any, dest: Any, *args: Any, **kwargs: Any) -> Path:
            Path(dest).parent.mkdir(parents=True, exist_ok=True)
            Path(dest).write_text("{}")  # papermill writes the executed copy as it goes
            raise exc

        monkeypatch.setattr(report, "execute_notebook", execute)

    return patch


def report_over_old(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c", extra=("--corpus", str(ws.corpus)))
    old_report(ws)
    return ["report", "--results", str(folder), "--out", str(ws.root / "report"), "--no-appendices", "--no-progress"]


# ------------------------------------------------------------------------------ setups: data loss


def gate_over_thresholds(option: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        folder = score(ws, "b", "c")
        thresholds = gate_file(ws)
        return gate(folder, "--thresholds", thresholds, option, thresholds)

    return setup


def thresholds_kept(ws: Workspace) -> None:
    from test_campaign_three import POINT_GATE

    assert (ws.root / "gate.toml").read_text() == POINT_GATE


def gate_over_default_thresholds(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    (ws.root / "configs").mkdir()
    shutil.copy(ROOT / "configs" / "gate.toml", ws.root / "configs" / "gate.toml")
    cwd_in(ws)
    return gate(folder, "--junit", "configs/gate.toml")


def default_thresholds_kept(ws: Workspace) -> None:
    assert (ws.root / "configs" / "gate.toml").read_bytes() == (ROOT / "configs" / "gate.toml").read_bytes()


def gate_json_over_a_pair(ws: Workspace) -> list[str]:
    folder = family(ws)
    return gate(folder, "--json", folder / "c" / "results.jsonl")


def pair_rows_kept(ws: Workspace) -> None:
    assert json.loads((ws.root / "R" / "c" / "results.jsonl").read_text().splitlines()[0])["config"] == "b"


def gate_junit_inside(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    return gate(folder, "--junit", folder / "gate.xml")


def report_into_results(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    return ["report", "--results", str(folder), "--out", str(folder / "report")]


def empty(command: str, option: str) -> Callable[[Workspace], list[str]]:
    """``command`` with ``option ""``: refused before anything is read or written."""

    def setup(ws: Workspace) -> list[str]:
        (ws.root / "summary.json").write_text('{"mine": true}\n')  # a user's own file in the current folder
        cwd_in(ws)
        if command == "run":
            argv = ws.run()
            at = argv.index(option) if option in argv else len(argv)
            return [*argv[:at], option, "", *argv[at + 2 :]] if option in argv else [*argv, option, ""]
        twelve(ws)
        logs = [str(log(ws, name)) for name in ("b", "c")]
        if command == "score":
            argv = ["score", *logs, "--gold", str(ws.gold), "--out", str(ws.root / "R")]
            at = argv.index(option)
            return [*argv[: at + 1], "", *argv[at + 2 :]]
        folder = score(ws, "b", "c")
        return [command, "--results", str(folder), option, ""]

    return setup


def cwd_untouched(ws: Workspace) -> None:
    assert (ws.root / "summary.json").read_text() == '{"mine": true}\n'
    assert not (ws.root / "results.jsonl").exists() and not (ws.root / "index.html").exists()


# ------------------------------------------------------------------------------ setups: tracebacks


def datasets_folder(damage: str) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        datasets = pytest.importorskip("datasets")
        row = {"user_input": "How many seats?", "response": "3 seats.", "retrieved_contexts": []}
        row["reference"] = "3 seats"
        rows = [row]
        datasets.disable_progress_bars()  # its "Saving the dataset" bar would be the case's first stderr line
        ws.cleanups.append(datasets.enable_progress_bars)
        for name in ("b", "c"):
            datasets.Dataset.from_list(rows * 3).save_to_disk(str(ws.root / name))
        if damage == "state":
            (ws.root / "b" / "state.json").write_text("{}")
        else:
            arrow = next((ws.root / "b").glob("*.arrow"))
            arrow.write_bytes(arrow.read_bytes()[: arrow.stat().st_size // 2])
        return ["score", str(ws.root / "b"), str(ws.root / "c"), "--out", str(ws.root / "R")]

    return setup


DAMAGED = (
    r": one of its files \(state\.json, dataset_info\.json, the \.arrow data\) is damaged or was changed after "
    r"Dataset\.save_to_disk wrote it; save the dataset again, or export it with Dataset\.to_json\('rows\.jsonl'\) and "
    r"name that file"
)


# ------------------------------------------------------------------------------ setups: the terminal and CI files


def named(*names: str) -> Callable[[Workspace], Path]:
    """A scored family (or pair) whose configs carry ``names`` (the baseline first)."""

    def build(ws: Workspace) -> Path:
        logs = ("b", "c", "d")[: len(names)]
        return score(ws, *logs, extra=("--names", ",".join(names)))

    return build


def gate_of_named(*names: str, outputs: tuple[str, ...] = ()) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        folder = named(*names)(ws)
        extra: list[str | Path] = ["--thresholds", gate_file(ws)]
        for option in outputs:
            extra += [option, ws.root / f"gate{option.replace('--', '.')}"]
        return gate(folder, *extra)

    return setup


def junit_parses(ws: Workspace) -> None:
    """The JUnit file parses as XML 1.0 (a CI system reads it) and shows the control character as its escape."""
    tree = ET.parse(ws.root / "gate.junit")
    names = [suite.get("name") for suite in tree.iter("testsuite")]
    assert any("\\x1b" in name or "\\x0b" in name for name in names), names


def markdown_inert(ws: Workspace) -> None:
    """The job summary, rendered as CommonMark renders it, holds no heading, link or image made by the name."""
    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark").enable("table").render((ws.root / "gate.markdown").read_text())
    assert page.count("<h") == page.count("<h3>") == 1, page  # the summary's own heading, nothing else
    assert "<a " not in page and "<img" not in page, page
    assert "PWNED" in page  # the name is shown, as text


def explain_answer(ws: Workspace) -> list[str]:
    twelve(ws)
    base = log(ws, "b", answer=lambda n: f"Plan {n} includes {n} widgets.{CLEAR} All clear.")
    assert_ok(["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")])
    return ["explain", "--results", str(ws.root / "R"), "--question", "q01", "--config", "b"]


def diff_answer(ws: Workspace) -> list[str]:
    twelve(ws)
    base = log(ws, "b", answer=lambda n: f"Plan {n} includes {n} widgets.{CLEAR}")
    assert_ok(["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")])
    return ["diff", "--results", str(ws.root / "R")]


def score_named(ws: Workspace) -> list[str]:
    twelve(ws)
    logs = [str(log(ws, name)) for name in ("b", "c")]
    return ["score", *logs, "--gold", str(ws.gold), "--names", f"b,{FAKE_PASS}", "--out", str(ws.root / "R")]


def assert_ok(argv: list[str]) -> None:
    from evalgate_lib.cli import main

    assert main(argv) == 0


# ------------------------------------------------------------------------------ setups: signatures and their folder


def index_of_another_family(ws: Workspace) -> list[str]:
    """Family X (c, d, e: two regress) gets family Y's index (c, d: one regresses), both signed with the team's key."""
    keys = key_file(ws)
    x = family(ws, "X", keys, ("b", "c", "d", "e"))  # "e" answers every question wrong: it regresses too
    y = family(ws, "Y", keys, ("b", "c", "d"))
    shutil.copy(y / "candidates.json", x / "candidates.json")
    return gate(x, "--thresholds", gate_file(ws), "--key-file", keys)


def stats_of_another_run(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    mine = score(ws, "b", "c", out="R", front=("--key-file", str(keys)))
    other = score(ws, "b", "d", out="R2", front=("--key-file", str(keys)))
    shutil.copy(other / "run_stats.json", mine / "run_stats.json")
    return gate(mine, "--key-file", keys)


def stats_signed_before_binding(ws: Workspace) -> list[str]:
    """A run_stats.json signed as EvalGate signed it before the binding (the file alone)."""
    from evalgate_lib.signing import sign_json

    keys = key_file(ws)
    folder = score(ws, "b", "c", front=("--key-file", str(keys)))
    stats = json.loads((folder / "run_stats.json").read_text())
    os.environ["EVALGATE_SIGNING_KEY_FILE"] = str(keys)
    try:
        stats = sign_json(stats)  # no bound_to: what every earlier version wrote
    finally:
        del os.environ["EVALGATE_SIGNING_KEY_FILE"]
    (folder / "run_stats.json").write_text(json.dumps(stats, indent=2, sort_keys=True) + "\n")
    return gate(folder, "--key-file", keys)


def stats_removed_with_key(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    folder = score(ws, "b", "c", front=("--key-file", str(keys)))
    (folder / "run_stats.json").unlink()
    return gate(folder, "--key-file", keys)


# ------------------------------------------------------------------------------ setups: the lock


def report_while_written(ws: Workspace) -> list[str]:
    """A run holds the results folder's write lock for 1.5 s; the report waits for it, then reads the folder."""
    from evalgate_lib.folders import folder_lock

    folder = score(ws, "b", "c", extra=("--corpus", str(ws.corpus)))
    taken, released = threading.Event(), []

    def writer() -> None:
        with folder_lock(folder, write=True):
            taken.set()
            time.sleep(1.5)
            released.append(time.monotonic())

    thread = threading.Thread(target=writer)
    thread.start()
    taken.wait()
    ws.cleanups.append(thread.join)
    ws.released = released  # type: ignore[attr-defined]
    return ["report", "--results", str(folder), "--out", str(ws.root / "report"), "--no-progress"]


def report_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch: the report records when it starts reading (its notebooks are not executed), warnings on stderr."""
    from evalgate_lib.workbench import report

    warnings_on_stderr(monkeypatch)

    def record(out_dir: Any, parameters: Any, **kwargs: Any) -> Path:
        BUILT.append(time.monotonic())
        (Path(out_dir) / "index.html").write_text("<p>new</p>\n")
        return Path(out_dir) / "index.html"

    monkeypatch.setattr(report, "build_report", record)


BUILT: list[float] = []


def read_after_the_write(ws: Workspace) -> None:
    assert BUILT and ws.released and BUILT[-1] >= ws.released[0]  # type: ignore[attr-defined]
    assert (ws.root / "report" / "index.html").read_text() == "<p>new</p>\n"


# ------------------------------------------------------------------------------ setups: AnswerLogger, reading text


def logger_refuses(meta: Any = None, passage: str | None = None) -> Callable[[Workspace], list[str]]:
    """The logger refuses one line ``score`` would refuse, at the call; the log it wrote is then scored."""

    def setup(ws: Workspace) -> list[str]:
        import evalgate_lib as eg

        twelve(ws)
        path = ws.root / "b.jsonl"
        with eg.AnswerLogger(path, gold=ws.gold) as logger:
            with pytest.raises(InputError, match="evalgate score") as refused:
                logger.write("q01", "Plan 1 includes 1 widgets.", [passage] if passage else [], meta=meta)
            assert "Nothing was written" in str(refused.value)
            for n, q in enumerate(QUESTIONS, 1):
                logger.write(q["id"], f"Plan {n} includes {n} widgets.", [], meta={"ok": [1]})
        return ["score", str(path), str(log(ws, "c")), "--gold", str(ws.gold), "--out", str(ws.root / "R")]

    return setup


def deep_meta() -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for _ in range(70):
        meta = {"x": meta}
    return meta


def answered_with(text: Callable[[int], str], accept: Callable[[int], str] | None = None, *extra: str):
    def setup(ws: Workspace) -> list[str]:
        rows = [dict(q, accept=[accept(n)]) if accept else q for n, q in enumerate(QUESTIONS, 1)]
        ws.gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        base = log(ws, "b", answer=text)
        return ["score", str(base), str(log(ws, "c")), "--gold", str(ws.gold), *extra, "--out", str(ws.root / "R")]

    return setup


def all_right(ws: Workspace) -> None:
    rows = [r for r in rows_of(ws.root / "R") if r["config"] == "b"]
    assert all(r["judgement"]["correct"] for r in rows), [r["answer"] for r in rows if not r["judgement"]["correct"]]


def raw_is_byte_exact(ws: Workspace) -> None:
    rows = {r["question_id"]: r for r in rows_of(ws.root / "R") if r["config"] == "b"}
    assert not rows["q01"]["judgement"]["correct"]  # the NFD answer: raw compares code points, as it said
    assert rows["q02"]["judgement"]["correct"]


SOFT = "wid\u00adgets"
JOINED = "wid\u200dgets"


# ------------------------------------------------------------------------------ setups: unclear messages


def sign_the_index(ws: Workspace) -> list[str]:
    keys = key_file(ws)
    folder = family(ws)
    return ["--key-file", str(keys), "sign", str(folder / "candidates.json")]


def unsigned_plan(ws: Workspace) -> list[str]:
    from evalgate_lib.cli import main

    keys = key_file(ws)
    folder = score(ws, "b", "c", front=("--key-file", str(keys)))
    assert main(["sample", "--results", str(folder), "--budget", "8"]) == 0  # drawn without the key
    relabel(ws, folder, folder / "label-plan.json")
    assert main(["--key-file", str(keys), "sign", str(ws.root / "plan.jsonl")]) == 0  # the labels vouched for
    return ["--key-file", str(keys), *gate(folder, "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")]


def plan_remedy_works(ws: Workspace) -> None:
    """What the message says: sign the plan; the gate then decides with its labels (its SHA-256 unchanged)."""
    from evalgate_lib.cli import main

    keys = ws.root / "team.key"
    plan = ws.root / "R" / "label-plan.json"
    assert main(["--key-file", str(keys), "sign", str(plan)]) == 0
    labelled = gate(ws.root / "R", "--thresholds", gate_file(ws), "--labels", ws.root / "plan.jsonl")
    assert main(["--key-file", str(keys), *labelled]) in (0, 1)


def reviewers_in_two_spellings(ws: Workspace) -> list[str]:
    folder = score(ws, "b", "c")
    nfc, nfd = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
    labels_file(ws, "two.jsonl", census(folder, nfc) + census(folder, nfd, flip=True))
    return gate(folder, "--labels", ws.root / "two.jsonl")


def ragas_reference_lists(ws: Workspace) -> list[str]:
    row = {"user_input": "How many seats?", "response": "3 seats.", "retrieved_contexts": []}
    (ws.root / "b.jsonl").write_text(json.dumps(dict(row, ground_truths=["3 seats"])) + "\n")
    (ws.root / "c.jsonl").write_text(json.dumps(dict(row, ground_truths=["3 seats", "three seats"])) + "\n")
    return ["score", str(ws.root / "b.jsonl"), str(ws.root / "c.jsonl"), "--out", str(ws.root / "R")]


def utf16_page(ws: Workspace) -> list[str]:
    page = "<html><head><title>Seats</title></head><body><p>Starter includes 3 seats.</p></body></html>"
    (ws.corpus / "seats.html").write_bytes(page.encode("utf-16"))
    return ws.run()


def names_twice(ws: Workspace) -> list[str]:
    twelve(ws)
    logs = [str(log(ws, name)) for name in ("b", "c", "d")]
    return ["score", *logs, "--gold", str(ws.gold), "--names", "a,a,b", "--out", str(ws.root / "R")]


def pair_without_manifest(ws: Workspace) -> list[str]:
    folder = family(ws)
    (folder / "c" / "manifest.json").unlink()
    return gate(folder)


def family_rerun_works(ws: Workspace) -> None:
    """The command the message names writes the family again, and the gate then reads it."""
    from evalgate_lib.cli import main

    index = json.loads((ws.root / "R" / "candidates.json").read_text())
    assert index["command"].endswith(f"--out {ws.root / 'R'}")
    assert main(index["command"].split()[1:]) == 0
    assert main(gate(ws.root / "R", "--thresholds", gate_file(ws))) in (0, 1)


# ------------------------------------------------------------------------------ the table

CASES: tuple[Case, ...] = (
    # ---------------------------------------------------------------- data loss: an output is never an input
    *(
        Case(
            f"gate-{option[2:]}-over-thresholds",
            f"gate --thresholds T {option} T (wrote over the thresholds it had just read)",
            gate_over_thresholds(option),
            2,
            ERR + rf"{option} {{ws}}/gate\.toml is the gate thresholds file this command reads \({{ws}}/gate\.toml\)"
            + OVERWRITE,
            check=thresholds_kept,
        )
        for option in ("--junit", "--markdown", "--json")
    ),
    Case(
        "gate-junit-over-default-thresholds",
        "gate --junit configs/gate.toml (the thresholds it reads by default)",
        gate_over_default_thresholds,
        2,
        ERR + r"--junit configs/gate\.toml is the gate thresholds file this command reads \(configs/gate\.toml\)"
        + OVERWRITE,
        check=default_thresholds_kept,
    ),
    Case(
        "gate-json-over-a-pair-of-the-family",
        "gate --results FAMILY --json FAMILY/c/results.jsonl",
        gate_json_over_a_pair,
        2,
        ERR + r"--json {ws}/R/c/results\.jsonl lies inside the results folder {ws}/R this command reads: .*",
        check=pair_rows_kept,
    ),
    Case(
        "gate-junit-inside-the-results",
        "gate --results R --junit R/gate.xml (a file the folder's checksums do not cover)",
        gate_junit_inside,
        2,
        ERR + r"--junit {ws}/R/gate\.xml" + INSIDE,
    ),
    Case(
        "report-into-its-results",
        "report --results R --out R/report",
        report_into_results,
        2,
        ERR + r"--out {ws}/R/report" + INSIDE,
    ),
    Case(
        "report-interrupted-keeps-the-old-one",
        "Ctrl-C during report --out R, R holding an older report (its index.html linked the new notebooks)",
        report_over_old,
        130,
        INTERRUPTED,
        patch=notebook_stopped(KeyboardInterrupt()),
        check=old_report_whole,
    ),
    Case(
        "report-failed-keeps-the-old-one",
        "a notebook failing in report --out R, R holding an older report",
        report_over_old,
        2,
        ERR + r"notebook 05_report\.ipynb failed in cell 3: .*",
        patch=notebook_stopped(InputError("notebook 05_report.ipynb failed in cell 3: ValueError: x")),
        check=old_report_whole,
    ),
    *(
        Case(
            f"{command}-{option[2:]}-empty",
            f'{command} {option} ""' + (f" ({why})" if why else ""),
            empty(command, option),
            2,
            ERR + option + EMPTY,
            how="proc" if command == "run" else "inproc",  # run: a real process in the folder it would write
            check=cwd_untouched,
        )
        for command, option, why in (
            ("run", "--out", "wrote into the current folder, over a summary.json"),
            ("run", "--cache-dir", ""),
            ("score", "--out", ""),
            ("score", "--gold", "'gold file . is a directory'"),
            ("report", "--out", ""),
            ("gate", "--json", ""),
        )
    ),
    # ---------------------------------------------------------------- tracebacks
    Case(
        "datasets-state-empty",
        "a datasets folder whose state.json is {} (KeyError, exit 3)",
        datasets_folder("state"),
        2,
        ERR + r"Hugging Face datasets folder {ws}/b cannot be read \(KeyError: '_data_files'\)" + DAMAGED,
    ),
    Case(
        "datasets-arrow-truncated",
        "a datasets folder whose .arrow file is cut in half (ArrowInvalid, exit 3)",
        datasets_folder("arrow"),
        2,
        ERR + r"Hugging Face datasets folder {ws}/b cannot be read \(\w+: .*\)" + DAMAGED,
    ),
    # ---------------------------------------------------------------- escaped for the terminal
    Case(
        "explain-answer-with-escapes",
        "an answer holding ESC [2J, through explain (cleared the screen)",
        explain_answer,
        0,
        r"  Plan 1 includes 1 widgets\.\\x1b\[2J All clear\.",
        stdout=True,
    ),
    Case(
        "diff-answer-with-escapes",
        "the same answer through diff",
        diff_answer,
        0,
        r".*widgets\.\\x1b\[2J.*",
        stdout=True,
    ),
    Case(
        "score-name-fakes-a-pass",
        "a config name 'c\\rPASS: no regression' through score (overwrote its line)",
        score_named,
        0,
        r"names: b \(baseline\), c\\rPASS: no regression \(candidate\)",
        stdout=True,
    ),
    Case(
        "gate-name-fakes-a-pass",
        "the same name through gate",
        gate_of_named("b", FAKE_PASS),
        1,
        r".*c\\rPASS: no regression.*",
        stdout=True,
    ),
    # ---------------------------------------------------------------- escaped for CI files
    *(
        Case(
            f"{option[2:]}-{kind}-in-a-name",
            f"a config name holding {kind} ({option} {what})",
            gate_of_named("b", name, outputs=(option,)),
            1,
            rf"gate decision \({written}\): {{ws}}/gate\.{option[2:]}",
            stdout=True,
            check=junit_parses if option == "--junit" else markdown_inert,
        )
        for option, kind, name, what, written in (
            ("--junit", "esc", "c\x1b[31m", "was not XML 1.0", r"JUnit XML, one test case per rule"),
            ("--junit", "vt", "c\x0bd", "was not XML 1.0", r"JUnit XML, one test case per rule"),
            ("--markdown", "a-heading", "c\r# PWNED", "got a heading", "Markdown summary"),
            ("--markdown", "a-link", "[PWNED](https://evil.example)", "got a link", "Markdown summary"),
            ("--markdown", "an-image", "![PWNED](https://evil.example/x.png)", "got an image", "Markdown summary"),
        )
    ),
    Case(
        "junit-and-markdown-one-path",
        "gate --junit X --markdown X (kept one of them, silently)",
        lambda ws: gate(score(ws, "b", "c"), "--junit", ws.root / "x", "--markdown", ws.root / "x"),
        2,
        ERR + r"--junit and --markdown both name {ws}/x: each output is written whole, so one would replace the other; "
        r"give each its own file",
    ),
    # ---------------------------------------------------------------- signatures bound to their folder
    Case(
        "index-of-another-family",
        "with a key, family X's candidates.json replaced by family Y's, both signed ('FAIL 1 of 2' not '2 of 3')",
        index_of_another_family,
        2,
        ERR + r"{ws}/X/run_stats\.json: signed for another folder: it belongs with the candidates\.json of SHA-256 "
        r"[0-9a-f]{12}…, and this folder's has [0-9a-f]{12}… \(a file moved or copied from another run\); rerun "
        r"'evalgate score .* --out {ws}/Y'",
    ),
    Case(
        "run-stats-of-another-run",
        "with a key, a signed run_stats.json copied from another run (showed that run's model calls)",
        stats_of_another_run,
        2,
        ERR + r"{ws}/R/run_stats\.json: signed for another folder: it belongs with the manifest\.json of SHA-256 "
        r"[0-9a-f]{12}…, and this folder's has [0-9a-f]{12}… \(a file moved or copied from another run\); rerun "
        r"'evalgate score .*'",
    ),
    Case(
        "run-stats-signed-before-the-binding",
        "a run_stats.json signed as earlier versions signed it (the file alone)",
        stats_signed_before_binding,
        2,
        ERR + r"{ws}/R/run_stats\.json: signed without the identity of the folder it belongs to \(by an EvalGate "
        r"before "
        r"signatures covered the folder's manifest\.json\), so a copy from another run would pass as this one's; it is "
        r"not trusted; rerun 'evalgate score .*'",
    ),
    Case(
        "run-stats-removed-with-a-key",
        "with a key, run_stats.json removed (read as no model calls)",
        stats_removed_with_key,
        2,
        ERR + r"{ws}/R/run_stats\.json does not exist, but a signing key is set: a folder written with the key holds "
        r"its run stats, signed \(the report shows their model calls\); rerun 'evalgate score .*'",
    ),
    # ---------------------------------------------------------------- the report reads under the run's lock
    Case(
        "report-waits-for-the-run",
        "report started while a run rewrites its folder (mixed two runs' title and figures)",
        report_while_written,
        0,
        r"evalgate: WARNING: waiting for {ws}/R: another EvalGate command holds it \(a run writing it, or a report "
        r"reading it\) and this one waits to read it \(lock {ws}/\.R\.evalgate-lock\)",
        patch=report_recorded,
        check=read_after_the_write,
    ),
    # ---------------------------------------------------------------- AnswerLogger writes only what score reads
    Case(
        "logger-meta-65-levels",
        "AnswerLogger.write with meta nested 70 levels (written; score refused the log)",
        logger_refuses(meta=deep_meta()),
        0,
        r"scored 24 answers in [\d.]+ s",
        stdout=True,
    ),
    Case(
        "logger-line-over-16-mib",
        "AnswerLogger.write with a 17 MiB passage (written; score refused the log)",
        logger_refuses(passage="x " * (9 * 1024 * 1024)),
        0,
        r"scored 24 answers in [\d.]+ s",
        stdout=True,
    ),
    # ---------------------------------------------------------------- text compared as people read it
    *(
        Case(
            name,
            what,
            answered_with(answer, accept),
            0,
            r"scored 24 answers in [\d.]+ s",
            stdout=True,
            check=all_right,
        )
        for name, what, answer, accept in (
            (
                "soft-hyphen-in-a-word",
                "'wid\\u00adgets': a soft hyphen inside the accepted word (judged wrong)",
                lambda n: f"Plan {n} includes {n} {SOFT}.",
                None,
            ),
            (
                "zero-width-joiner-in-a-word",
                "'wid\\u200dgets': a zero-width joiner inside the accepted word",
                lambda n: f"Plan {n} includes {n} {JOINED}.",
                None,
            ),
            (
                "strasse-and-strasse",
                "'HAUPTSTRASSE n' against the accepted 'Hauptstraße n' (lower() keeps ß; casefold reads ss)",
                lambda n: f"The office is at HAUPTSTRASSE {n}.",
                lambda n: f"Hauptstraße {n}",
            ),
        )
    ),
    Case(
        "raw-says-it-is-byte-exact",
        "--matching raw, an NFD answer against an NFC accept string (judged wrong without a word)",
        answered_with(
            lambda n: unicodedata.normalize("NFD", "The plan is Café Plus.") if n == 1 else f"It is Plan{n} Café.",
            lambda n: "Café Plus" if n == 1 else "Café",
            "--matching",
            "raw",
        ),
        0,
        r"answer matching: raw, byte-exact containment of an accepted string, case folded only: no Unicode "
        r"normalisation, so an accent spelt decomposed \(NFD\), a soft hyphen or a zero-width character is a "
        r"difference; the other rules compare text as people read it",
        stdout=True,
        check=raw_is_byte_exact,
    ),
    # ---------------------------------------------------------------- the real cause, a remedy that works
    Case(
        "sign-the-index",
        "sign FAMILY/candidates.json ('not valid JSON')",
        sign_the_index,
        2,
        ERR + r"{ws}/R/candidates\.json is the index of several candidates \(candidates\.json\), neither a label file "
        r"\(JSON Lines, one label per line\) nor a sampling plan: evalgate sign vouches for labels and plans made "
        r"without the key; a results folder, its index and its run stats are signed by the command that writes them, "
        r"so rerun that command with the key set \(--key-file FILE\)",
    ),
    Case(
        "unsigned-plan-with-a-key",
        "a plan drawn without the key, labels vouched for ('draw it again', which looped)",
        unsigned_plan,
        2,
        ERR + r"{ws}/R/label-plan\.json: not signed, but a signing key is set \(written without the key, or its "
        r"signature was removed\); if it is the plan your labels were made under, vouch for it with 'evalgate "
        r"--key-file KEY sign {ws}/R/label-plan\.json' \(its SHA-256, which the labels name, stays the same\); a plan "
        r"drawn again is a new plan, which labels made under this one do not name",
        check=plan_remedy_works,
    ),
    Case(
        "one-reviewer-two-spellings",
        "reviewer 'José' in NFC and in NFD (\"'José' and 'José'\")",
        reviewers_in_two_spellings,
        2,
        ERR + r"{ws}/two\.jsonl:2: duplicate label config='b' question_id='q01' answer_sha256=[0-9a-f]{12}… "
        r"reviewer='José' pass=1 \(first on line 1, where the reviewer's name is spelt in another Unicode form: "
        r"'Jose\\u0301' there, 'Jos\\xe9' here, one name to a reader and so one reviewer\): one reviewer labels one "
        r"answer once per pass, so a second copy would count twice or let the file order decide; keep one",
    ),
    Case(
        "ragas-reference-lists",
        "RAGAS rows whose reference lists differ (\"'3 seats' differs from ('3 seats')\")",
        ragas_reference_lists,
        2,
        ERR + r"{ws}/c\.jsonl:1: column 'ground_truths': question 'q001' has 2 references \('3 seats', 'three seats'\) "
        r"here, but the reference '3 seats' in the gold taken from {ws}/b\.jsonl: the logs compared must hold the "
        r"same test set \(the same references, in the same order\)",
    ),
    Case(
        "report-set-is-not-sets",
        "report --set X (read as --sets)",
        lambda ws: ["report", "--set", str(ws.root / "sets.toml"), "--results", str(ws.root)],
        2,
        r"usage: evalgate \[-h\] .*",  # its last line: 'evalgate: error: unrecognized arguments: --set ...'
        how="proc",
    ),
    Case(
        "utf16-page",
        "an HTML page in UTF-16 ('looks like a binary file')",
        utf16_page,
        2,
        ERR + r"{ws}/corpus/seats\.html: UTF-16LE \(a byte-order mark\) text, not UTF-8: EvalGate reads documents as "
        r"UTF-8; save it as UTF-8 \(e\.g\. 'iconv -f UTF-16LE -t UTF-8 seats\.html > converted', or an editor's 'save "
        r"with encoding'\)",
    ),
    Case(
        "top-k-four-and-a-half",
        "top_k = 4.5 ('must be a number')",
        lambda ws: (ws.both(("top_k = 4", "top_k = 4.5")), ws.run())[1],
        2,
        ERR + r"{ws}/baseline\.toml: \[shared\] top_k must be a whole number, got 4\.5",
    ),
    Case(
        "names-a-a-b",
        "score --names a,a,b ('pass --names')",
        names_twice,
        2,
        ERR + r"--names gives 'a' to 2 answer logs \({ws}/b\.jsonl, {ws}/c\.jsonl\): each log needs a name of its own "
        r"\(names are the configs the gate and the report compare\)",
    ),
    Case(
        "pair-of-a-family-without-manifest",
        "a family's pair without manifest.json (its rerun wrote a lone pair the index refused)",
        pair_without_manifest,
        2,
        ERR + r"{ws}/R/c/manifest\.json does not exist, so {ws}/R/c is not a results folder; {ws}/R/c is one pair of "
        r"the candidates in {ws}/R \(candidates\.json\): rerun 'evalgate score {ws}/b\.jsonl {ws}/c\.jsonl "
        r"{ws}/d\.jsonl --gold {ws}/gold\.jsonl --out {ws}/R'",
        check=family_rerun_works,
    ),
)

campaign_summary, test_campaign_four = campaign_tests(CASES, SUMMARY, without_keys=True)


def test_every_case_of_the_issue_is_a_row() -> None:
    """The rows of the issue's lists are all in the table, each once."""
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert sum(i.startswith("gate-") and "thresholds" in i for i in ids) == 4
    assert sum(i.endswith("-empty") for i in ids) == 6 + 1  # six empty options and the datasets' state.json


def _default_sigint() -> None:
    """Ctrl-C as a terminal delivers it: a suite started in the background by a non-interactive shell inherits SIGINT
    ignored (POSIX), and a Python started so never installs its handler, so the report ran to its end (exit 0)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _kernel_of(pid: int) -> bool:
    """Whether a process descending from ``pid`` runs an IPython kernel (read from /proc: Linux, as CI)."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # the process ended while it was read
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    for process, command in commands.items():
        if "ipykernel" not in command:
            continue
        ancestor = parents.get(process)
        while ancestor:
            if ancestor == pid:
                return True
            ancestor = parents.get(ancestor)
    return False


def test_ctrl_c_in_a_real_report_is_one_line(tmp_path: Path) -> None:
    """A real ``evalgate report`` interrupted while its notebook's kernel runs: one line, exit 130, the old report kept.

    The campaign found an asyncio traceback ("Task exception was never retrieved ... DeadKernelError")
    once in four tries; the SIGINT is sent once the report's notebook is being executed.
    """
    import signal

    ws = Workspace(tmp_path)
    from contextlib import redirect_stdout
    from io import StringIO

    with redirect_stdout(StringIO()):
        folder = score(ws, "b", "c", extra=("--corpus", str(ws.corpus)))
    argv = [sys.executable, "-m", "evalgate_lib.cli", "report", "--results", str(folder)]
    argv += ["--out", str(ws.root / "report")]
    # the signal goes once the report's own kernel process runs (a descendant whose command line names ipykernel):
    # timing it on the staged notebook's file raced on a loaded machine, where the whole report could finish between
    # the file and the signal at every wait tried; a report that still finishes first is run again
    interrupted = []
    for wait in (0.5, 0.2, 0.0, 0.0):
        shutil.rmtree(ws.root / "report", ignore_errors=True)
        old_report(ws)
        child = subprocess.Popen(
            [*argv, "--no-appendices"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_default_sigint,
        )  # fmt: skip
        deadline = time.monotonic() + 240
        while not _kernel_of(child.pid):
            assert child.poll() is None and time.monotonic() < deadline, child.communicate()
            time.sleep(0.02)
        time.sleep(wait)  # the kernel is starting or running the notebook's cells
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
        if child.returncode == 0:
            continue  # the report was done before the signal: nothing to interrupt at this wait
        assert child.returncode == 130, (out, err)
        assert err.splitlines() == [INTERRUPTED], err
        old_report_whole(ws)
        interrupted.append(wait)
        break
    assert interrupted, "every report finished before its Ctrl-C"
