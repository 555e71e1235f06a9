"""Shared test helpers: a builder of valid result rows, a counting fake backend, the real runs and a headless browser.

Import the helpers directly (``from conftest import make_row``): pytest puts this folder on
``sys.path``. Fixtures are offered for the tests that prefer them.

The real runs on the embedded local backend are session fixtures, built once per pytest session
into a session temporary folder (never the repository's ``cache/``), so every module that needs
a real run shares one set of generations, whatever order the tests run in:

* :func:`small_run` — ``evalgate run --limit 4`` of the shipped pair, the first run into
  :func:`model_cache` (so its own output is a cold run: 8 generations);
* :func:`small_report` — ``evalgate report --limit 4`` (runs notebooks 01-05, notebook 02 reusing
  the cache), and :func:`small_shipped_report`, the shipped report's recipe (``--results``,
  ``--labels``, ``--no-appendices``) on the small run;
* :func:`small_regressing` — the gate on the shipped baseline and the regressing candidate, ``--limit 4``.

The full gold set (202 answers per pair, about 10 minutes cold on 2 cores) is the separately run
check ``pytest -m full_gold`` (deselected by default in pyproject.toml): :func:`shipped_run` and
:func:`shipped_report`. Those go through the repository's ``cache/``, so a developer's rerun is quick;
no test relies on that folder being warm.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pytest

from evalgate_lib.inputs.options import GenerationOptions
from evalgate_lib.judging.rows import (
    FLAG_NAMES,
    RECALL_KS,
    SCHEMA_VERSION,
    Flags,
    Judgement,
    Matching,
    MatchVerdict,
    ResultRow,
    RetrievalScores,
    RetrievedChunk,
    SentenceVerdict,
)

assert SCHEMA_VERSION == 7, "update make_row to the new row schema"


# --------------------------------------------------------------------------- running on every core (pytest-xdist)

#: The session fixtures built from the small real run (and the parametrised fixtures that reach them).
SMALL_RUN_FIXTURES = frozenset(
    {"small_run", "model_cache", "small_report", "small_shipped_report", "small_regressing"}
    | {"report_of_run", "run_of_pair"}
)

#: The CPUs this test session may use, before a pytest-xdist worker narrows itself to its share
#: (a test that needs a run on every core gives them back to its child process).
ALL_CPUS: tuple[int, ...] = tuple(sorted(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else ()

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Each worker, and the model runs and notebook kernels it starts, gets its share of the cores (torch's
    # embedder and ONNX Runtime's generator both read OMP_NUM_THREADS): on cores shared with other work,
    # two torch threads decoded 5-6x slower than one (docs/benchmark.md, "Decode variants").
    _workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _workers)))
    # ...and only its share of them, so that a real run's automatic worker count
    # (evalgate_lib.run.parallel.generation_workers, from this affinity) starts no process pool
    # on cores another test worker is using. Without xdist (-n 0: the full-gold check) a run
    # uses every core, as a user's does.
    _index = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw") or 0)
    if len(ALL_CPUS) >= _workers > 1:
        os.sched_setaffinity(0, ALL_CPUS[_index % _workers :: _workers])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tell pytest-xdist (``--dist loadgroup``, set in pyproject.toml) which tests must share a worker.

    A session or module fixture is built once per worker, so the tests that use the small real
    run share one worker (one build of its 8 generations, reports and gate), the full-gold-set
    tests another, and every other module's tests stay together with their module fixtures.
    Without xdist (``-n 0``, or a single module) the marks change nothing.

    The groups are then put in the order their cost suggests (pyproject.toml turns off xdist's
    reordering by test count): the small real run's group first, as it is the longest chain of
    work, then every group with a ``slow`` test (a model run, a kernel, a browser), then the rest,
    so no worker is left alone with a long group at the end. The sort is stable: within each rank
    the order stays pytest-randomly's.
    """
    groups: dict[pytest.Item, str] = {}
    for item in items:
        if item.get_closest_marker("full_gold"):
            group = "full-gold"
        elif SMALL_RUN_FIXTURES & set(item.fixturenames):
            group = "small-run"
        else:
            group = item.path.stem
        item.add_marker(pytest.mark.xdist_group(group))
        groups[item] = group
    slow = {groups[item] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: 0 if groups[item] in ("small-run", "full-gold") else 1 if groups[item] in slow else 2)


def make_flags(**fired: bool) -> Flags:
    """Flags with the given ones fired (the rest not), each fired flag carrying a reason, as real rows do."""
    unknown = set(fired) - set(FLAG_NAMES)
    if unknown:
        raise TypeError(f"unknown flag(s) {sorted(unknown)}")
    on = {name: bool(fired.get(name, False)) for name in FLAG_NAMES}
    reasons = {name: (f"test row: {name}",) for name in FLAG_NAMES if on[name]}
    return Flags(**on, reasons=reasons)


def make_retrieval(
    gold_rank: int | None = 1,
    *,
    evidence_rank: int | None = None,
    evidence: bool = False,
    top_k: int = 4,
    reciprocal_rank: float | None = None,
    evidence_reciprocal_rank: float | None = None,
    recall: dict[int, bool] | None = None,
    evidence_hit: bool | None = None,
    evidence_coverage: float | None = None,
) -> RetrievalScores:
    """Retrieval scores derived from ranks (as the pipeline derives them); any figure can be overridden.

    ``evidence=True`` (or an ``evidence_rank``) fills the evidence fields; otherwise they are ``None``,
    as for a question without evidence spans.
    """

    def rr(rank: int | None) -> float:
        return 0.0 if rank is None else round(1.0 / rank, 6)

    def hit(rank: int | None, k: int) -> bool:
        return rank is not None and rank <= k

    scores: dict[str, Any] = {
        "gold_rank": gold_rank,
        "reciprocal_rank": rr(gold_rank) if reciprocal_rank is None else reciprocal_rank,
        "recall": recall if recall is not None else {k: hit(gold_rank, k) for k in RECALL_KS},
    }
    if evidence or evidence_rank is not None or evidence_hit is not None or evidence_reciprocal_rank is not None:
        scores.update(
            evidence_rank=evidence_rank,
            evidence_reciprocal_rank=rr(evidence_rank)
            if evidence_reciprocal_rank is None
            else evidence_reciprocal_rank,
            evidence_recall={k: hit(evidence_rank, k) for k in RECALL_KS},
            evidence_hit=hit(evidence_rank, top_k) if evidence_hit is None else evidence_hit,
            evidence_coverage=(1.0 if evidence_rank is not None else 0.0)
            if evidence_coverage is None
            else evidence_coverage,
        )
    return RetrievalScores(**scores)


def make_matching(correct: bool, normalised: bool | None = None, matched: str | None = None) -> Matching:
    """A raw-mode matching record: the raw verdict ``correct``, the normalised one (``None``: a no-answer row)."""
    reason = (
        f"the answer contains the accepted string {matched!r}"
        if correct
        else "the answer contains none of the accepted"
    )
    return Matching(
        mode="raw",
        raw=MatchVerdict(correct, matched if correct else None),
        normalised=None if normalised is None else MatchVerdict(normalised, matched if normalised else None),
        reason=reason,
    )


def make_row(**overrides: Any) -> ResultRow:
    """A valid :class:`ResultRow` (by default a correct, grounded answer to an answerable question).

    Any field can be overridden. For ``type="no_answer"`` the gold-dependent fields default to what
    the pipeline writes for a no-answer question (no gold article, no retrieval metrics, a refusal).
    """
    no_answer = overrides.get("type", "answerable") == "no_answer"
    correct = overrides.get("correct", True)
    sentence = SentenceVerdict(
        "Starter includes 3 seats.",
        ("starter", "includes", "3", "seats"),
        (),
        1.0,
        True,
        reason="4/4 content tokens in the context = 1.00 >= 0.70",
    )
    refusal = SentenceVerdict(
        "I don't know.", ("know",), (), None, None, refusal=True, reason="a refusal: claims nothing",
        role="decline", rule="role.decline",
    )
    row: dict[str, Any] = {
        "config": "baseline",
        "question_id": "q001",
        "question": "How many seats does Starter include?",
        "type": "answerable",
        "gold_article": None if no_answer else "plans-and-pricing-2026",
        "accept": () if no_answer else ("3 seats",),
        "evidence": None,
        "answer": "I don't know." if no_answer else "Starter includes 3 seats.",
        "prompt_sha256": "0" * 64,
        "retrieved": (RetrievedChunk(1, "plans-and-pricing-2026#0", "plans-and-pricing-2026", 0, 0, 120, 0.8),),
        "top_similarity": 0.8,
        "retrieval_hit": None if no_answer else True,
        "retrieval_metrics": None if no_answer else make_retrieval(1),
        "refused": no_answer,
        "correct": correct,
        "matched": None if no_answer or not correct else "3 seats",
        "matching": make_matching(correct, None if no_answer else correct, None if no_answer else "3 seats"),
        "sentences": (refusal,) if no_answer else (sentence,),
        "groundedness": None if no_answer else 1.0,
        "confidence": 0.8,
        "flags": make_flags(wrong=not correct),
        "scorer": "lexical@1",
    }
    row.update(overrides)
    given = row.pop("judgement", None)  # a whole judgement (e.g. another row's ``__dict__``), then field overrides
    verdicts = {name: row.pop(name) for name in Judgement.__dataclass_fields__}
    if given is None:
        judgement = Judgement(**verdicts)
    else:
        judgement = replace(given, **{k: v for k, v in overrides.items() if k in Judgement.__dataclass_fields__})
    return ResultRow(**row, judgement=judgement)


class CountingBackend:
    """A deterministic fake model backend that counts the calls it really receives."""

    name = "fake"

    def __init__(self, digest: str = "sha256:aaa") -> None:
        self.digest = digest
        self.calls: Counter[str] = Counter()

    def identity(self) -> dict[str, str]:
        return {
            "backend": "fake",
            "generator": "g",
            "generator_digest": self.digest,
            "embedder": "e",
            "embedder_digest": self.digest,
            "host": "ignored",
        }

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls["embed"] += 1
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        self.calls["generate"] += 1
        return f"answer to {prompt} at t={options.temperature}"


@pytest.fixture
def counting_backend() -> CountingBackend:
    return CountingBackend()


def write_results_folder(
    folder: Any,
    rows: Sequence[ResultRow],
    baseline: str = "baseline",
    candidate: str = "candidate",
    limit: int | None = None,
    questions_in_file: int | None = None,
) -> Any:
    """A results folder of ``rows`` written by the one writer (digests and all), with no model and no corpus.

    ``limit`` marks it a partial run of ``questions_in_file`` gold questions, as ``--limit`` would.
    """
    from evalgate_lib.run.manifest import corpus_section, new_manifest
    from evalgate_lib.run.results import write_folder
    from evalgate_lib.statistics.metrics import compare

    ids = list(dict.fromkeys(r.question_id for r in rows))
    manifest = new_manifest(
        baseline=baseline,
        candidate=candidate,
        configs={baseline: {}, candidate: {}},
        fairness={"differs": ["chunking.method"], "shared": {}},
        corpus=corpus_section(None, None, None, ()),
        gold={
            "path": "gold.jsonl",
            "sha256": None,
            "questions_in_file": questions_in_file or len(ids),
            "questions_run": len(ids),
            "question_ids": ids,
        },
        backend={"backend": "test"},
        judging={"row_schema": SCHEMA_VERSION, "sentence_scorer": "lexical@1", "answer_matching": "token"},
        generation=None,
        top_k=None,
        limit=limit,
    )
    return write_folder(rows, compare(rows, baseline, candidate), manifest, {}, folder)


# --------------------------------------------------------------------------- a headless browser (the report tests)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def ensure_chromium() -> str | None:
    """Install Chromium and its driver if they are missing; return why not, or ``None`` when ready."""
    if Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists():
        return None
    if shutil.which("apt-get") is None:
        return "Chromium is not installed and there is no apt-get to install it"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "Chromium is not installed and installing it with apt-get needs root"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True, timeout=600, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium", "chromium-driver"],
            check=True,
            capture_output=True,
            timeout=1200,
            env=env,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        return f"could not install chromium with apt-get: {exc} {detail.decode(errors='replace')[-300:]}"
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return "apt-get ran but /usr/bin/chromium or /usr/bin/chromedriver is still missing"
    return None


def ensure_selenium() -> str | None:
    """Install selenium with pip if it is missing; return why not, or ``None`` when importable."""
    try:
        importlib.import_module("selenium")
        return None
    except ImportError:
        pass
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "selenium"], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        return f"selenium is not installed and pip could not install it: {proc.stderr[-300:]}"
    importlib.invalidate_caches()
    return None


def _chromium(profile: Path) -> Any:
    """A headless Debian Chromium on its own profile folder, or a skip naming why it cannot run."""
    reason = ensure_chromium() or ensure_selenium()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Debian Chromium driven by selenium, one per test module; skips, saying why, when it cannot run."""
    driver = _chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture()
def fresh_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium on a new, empty profile for one test: for pages that keep state in the browser
    (``localStorage``), where clearing it from a page races the next page load in another renderer."""
    driver = _chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


# --------------------------------------------------------------------------- crafted report rows (no model)

ROOT = Path(__file__).resolve().parents[1]

CONTEXT = (
    "The Starter plan includes 3 seats in its flat price. Business costs $18 per user per month. "
    "Every new workspace can try Business free for 30 days."
)
XSS = '<script>window.__pwned = 1;</script><img src="x" onerror="window.__pwned = 1">'

#: (question id, type, accepted strings, answer), chosen so the flags are known:
CASES = (
    ("q001", "answerable", ["3 seats"], "The Starter plan includes 3 seats."),  # correct, grounded
    ("q002", "answerable", ["$18"], "Business costs $25 per user, billed quarterly via wire."),  # hallucination
    ("q003", "answerable", ["30 days"], "Business costs $18 per user per month."),  # grounded but wrong
    ("q004", "no_answer", [], "I don't know."),  # correct refusal
    ("q005", "no_answer", [], XSS + " Lifetime licences cost $999 forever."),  # hallucination + escaping
)


def crafted_row(
    config: str, qid: str, qtype: str, accept: list[str], answer: str, similarity: float = 0.8
) -> ResultRow:
    """A row scored by the real lexical scorer from a crafted answer over :data:`CONTEXT` (flags known in advance)."""
    from evalgate_lib.chunks.chunking import Chunk
    from evalgate_lib.inputs.gold import GoldQuestion
    from evalgate_lib.judging.evaluation import Retrieved, score_answer
    from evalgate_lib.judging.sentence_scorers import LexicalCoverageScorer

    question = GoldQuestion(
        qid,
        f"Question {qid} <b>bold?</b>",
        qtype,
        "plans-and-pricing-2026" if qtype == "answerable" else None,
        tuple(accept),
    )
    chunk = Chunk("plans-and-pricing-2026", "Plans", 0, 0, len(CONTEXT), CONTEXT)
    return score_answer(
        config, question, [Retrieved(1, chunk, similarity)], answer, "0" * 64, scorer=LexicalCoverageScorer()
    )


def crafted_rows() -> list[ResultRow]:
    """:data:`CASES` for both configs; the candidate's low similarity (0.3) sends every answer to review."""
    out = []
    for config, sim in (("baseline", 0.8), ("candidate", 0.3)):
        out += [crafted_row(config, *case, similarity=sim) for case in CASES]
    return out


# --------------------------------------------------------------------------- real runs on the embedded backend

#: Questions in the small real runs: the first four of the gold set (3 answerable, 1 no-answer).
SMALL_LIMIT = 4


def evalgate_cli(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m evalgate_lib.cli ARGS`` in a fresh process (the real command, its own model load)."""
    return subprocess.run(
        [sys.executable, "-m", "evalgate_lib.cli", *map(str, args)],
        cwd=cwd,
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
        capture_output=True,
        text=True,
        timeout=1800,
    )


#: Every answer of the shipped run (``evalgate run`` on the shipped pair), as answer logs: scoring them gives the
#: run's judged metrics figure for figure without loading a model.
SHIPPED_LOGS = ROOT / "labels" / "demo" / "nimbus-answers"


def score_shipped(out: Path) -> Path:
    """``evalgate score`` of the shipped run's answer logs into ``out`` (in process): the shipped pair, judged."""
    from evalgate_lib.cli import main

    code = main(
        ["score", str(SHIPPED_LOGS / "baseline.jsonl"), str(SHIPPED_LOGS / "candidate.jsonl"),
         "--gold", str(ROOT / "gold" / "questions.jsonl"), "--corpus", str(ROOT / "corpus"),
         "--names", "baseline,candidate", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    return out


@dataclass(frozen=True)
class RealRun:
    """A finished command: its results folder, the model cache it used, and what it printed."""

    out: Path
    cache: Path
    proc: subprocess.CompletedProcess[str]


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> RealRun:
    """``evalgate run --backend local --limit 4`` of the shipped pair: the first run into a fresh cache folder."""
    base = tmp_path_factory.mktemp("small-run")
    cache, out = base / "cache", base / "results"
    proc = evalgate_cli(
        "run", "--backend", "local", "--limit", str(SMALL_LIMIT), "--cache-dir", cache, "--out", out, "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return RealRun(out, cache, proc)


@pytest.fixture(scope="session")
def model_cache(small_run) -> Path:
    """The session's model cache, holding at least the small run's answers (its ``--limit 4`` slice is warm)."""
    return small_run.cache


def _report(out: Path, *args: str | Path) -> Path:
    """``evalgate report --backend local ARGS --out OUT`` in this process; returns ``OUT``."""
    from evalgate_lib.cli import main

    code = main(["report", "--backend", "local", "--no-progress", *map(str, args), "--out", str(out)])
    assert code == 0 and (out / "index.html").is_file()
    return out


@pytest.fixture(scope="session")
def small_report(tmp_path_factory, model_cache) -> Path:
    """``evalgate report --backend local --limit 4``: every notebook, notebook 02 running the evaluation (cached)."""
    out = tmp_path_factory.mktemp("small-report") / "report"
    return _report(out, "--limit", SMALL_LIMIT, "--cache-dir", model_cache)


def shipped_report_args(results: Path, cache: Path) -> list[str | Path]:
    """How the shipped report is built: from a finished run, with the shipped labels, no appendices."""
    return [
        "--no-appendices", "--results", results, "--labels", ROOT / "labels" / "nimbus.jsonl",
        "--baseline", ROOT / "configs" / "baseline.toml", "--candidate", ROOT / "configs" / "candidate.toml",
        "--cache-dir", cache,
    ]  # fmt: skip


@pytest.fixture(scope="session")
def small_shipped_report(tmp_path_factory, small_run) -> Path:
    """The shipped report's recipe on the small run (its answers are the shipped run's, so the labels match)."""
    out = tmp_path_factory.mktemp("small-shipped-report") / "report"
    return _report(out, *shipped_report_args(small_run.out, small_run.cache))


@pytest.fixture(scope="session")
def small_regressing(tmp_path_factory, model_cache) -> RealRun:
    """``evalgate gate --limit 4`` of the baseline and the regressing candidate, in point mode (any breach fails)."""
    base = tmp_path_factory.mktemp("small-regressing")
    point = base / "gate_point.toml"
    shipped = (ROOT / "configs" / "gate.toml").read_text(encoding="utf-8")
    assert 'mode = "significant"' in shipped
    point.write_text(shipped.replace('mode = "significant"', 'mode = "point"'), encoding="utf-8")
    proc = evalgate_cli(
        "gate", "--backend", "local", "--no-progress", "--limit", SMALL_LIMIT, "--allow-partial",
        "--baseline", ROOT / "configs" / "baseline.toml",
        "--candidate", ROOT / "tests" / "data" / "regressing_candidate.toml",
        "--thresholds", point, "--cache-dir", model_cache, "--out", base / "results",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return RealRun(base / "results", model_cache, proc)


# --------------------------------------------------------------------------- the full gold set (pytest -m full_gold)


def full_gold_gate(out: Path, candidate: Path) -> RealRun:
    """``evalgate gate`` of the baseline and ``candidate`` on the whole gold set, shipped thresholds, ``cache/``."""
    cache = ROOT / "cache"
    proc = evalgate_cli(
        "gate", "--backend", "local", "--no-progress",
        "--baseline", ROOT / "configs" / "baseline.toml", "--candidate", candidate,
        "--thresholds", ROOT / "configs" / "gate.toml", "--cache-dir", cache, "--out", out,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return RealRun(out, cache, proc)


@pytest.fixture(scope="session")
def shipped_run(tmp_path_factory) -> RealRun:
    """The gate on the shipped pair and the whole gold set (202 answers): the shipped run."""
    return full_gold_gate(tmp_path_factory.mktemp("shipped-run") / "results", ROOT / "configs" / "candidate.toml")


@pytest.fixture(scope="session")
def shipped_report(tmp_path_factory, shipped_run) -> Path:
    """The shipped report: the shipped run with the shipped labels, no appendices."""
    out = tmp_path_factory.mktemp("shipped-report") / "report"
    return _report(out, *shipped_report_args(shipped_run.out, shipped_run.cache))


@pytest.fixture(params=["small", pytest.param("shipped", marks=pytest.mark.full_gold)])
def report_of_run(request) -> tuple[Path, Path]:
    """(report, results) built by the shipped recipe: on the small run, and (``-m full_gold``) on the shipped run."""
    if request.param == "small":
        return request.getfixturevalue("small_shipped_report"), request.getfixturevalue("small_run").out
    return request.getfixturevalue("shipped_report"), request.getfixturevalue("shipped_run").out


@pytest.fixture(params=["small", pytest.param("shipped", marks=pytest.mark.full_gold)])
def run_of_pair(request) -> tuple[Path, int]:
    """(results, questions) of the shipped pair: the small run, and (``-m full_gold``) the whole gold set."""
    if request.param == "small":
        return request.getfixturevalue("small_run").out, SMALL_LIMIT
    return request.getfixturevalue("shipped_run").out, 101


# --------------------------------------------------------------------------- pages meant to be shared


def report_pages(report: Path) -> list[Path]:
    """Every HTML page of a built report: ``index.html`` and each executed notebook beside it."""
    return [report / "index.html", *sorted((report / "notebooks").glob("*.html"))]


def machine_paths_in(report: Path, *folders: Path) -> list[tuple[str, str]]:
    """``(page, folder)`` for every absolute folder of this machine (the checkout, the test's temporary folders,
    the home folder) that a page of ``report`` names: a page meant to be shared must name none."""
    roots = {str(ROOT), str(Path.home()), *(str(Path(f).resolve()) for f in folders)}
    roots.discard("/")
    found = []
    for page in report_pages(report):
        # embedded charts are base64, whose alphabet holds "/" and letters: "/root" could occur in one by chance
        text = re.sub(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+", "", page.read_text(encoding="utf-8"))
        found += [(page.name, root) for root in sorted(roots) if root in text]
    return found
