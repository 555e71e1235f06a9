"""The ``evalgate`` command line.

``evalgate run`` runs both configurations and writes the results folder;
``evalgate report`` renders the stakeholder HTML report; ``evalgate gate``
fails a build when the candidate regresses. Every user-fixable problem is an
:class:`~evalgate_lib.errors.EvalGateError`: it is printed as one clear message
and the command exits with status 2. Anything else is a bug in EvalGate: it is
printed as one line naming the exception and the command exits with status 3
(``--debug`` shows the traceback). Work already done is in the cache, so the
rerun after a fix picks up where the failed run stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import re
import sys
import traceback
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, Sequence

from evalgate_lib.errors import BackendError, CacheError, EvalGateError, InputError

if TYPE_CHECKING:
    from evalgate_lib.run.external import ExternalRun

EXIT_INPUT = 2
#: The gate's thresholds file, as every subcommand that reads one defaults to it.
DEFAULT_THRESHOLDS = "configs/gate.toml"
THRESHOLDS_HELP = (
    f"gate thresholds (TOML); default {DEFAULT_THRESHOLDS} when it exists here, else EvalGate's packaged default"
)
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
#: What Ctrl-C prints, whenever it comes: one line, never a traceback.
INTERRUPTED = "evalgate: interrupted; everything computed so far is in the cache, rerun to resume"

#: The exit codes, as ``evalgate --help`` lists them (docs/troubleshooting.md says the same).
EXIT_CODES_HELP = """exit codes:
  0    success (the gate passed)
  1    the gate found a regression (evalgate gate), or warnings with gold check --strict,
       or rows gold import could not map
  2    a problem you can fix: bad input, option, config or backend; one line
       'evalgate: error: ...' says what and where (also argparse usage errors)
  3    an internal error: a bug in EvalGate; rerun with --debug for the traceback
  4    the gate is INCONCLUSIVE: no rule fails, but one cannot be shown within its limit
       on this data (evalgate gate; 0 with --allow-inconclusive)
  130  interrupted (Ctrl-C); what was computed is in the cache, rerun to resume"""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by every subcommand that (re)runs the evaluation."""
    parser.add_argument("--baseline", default="configs/baseline.toml", help="baseline config (TOML)")
    parser.add_argument(
        "--candidate",
        action="append",
        default=None,
        help="candidate config (TOML; default configs/candidate.toml); repeat it to try several candidates against "
        "the baseline (one pair folder each, p-values Holm-adjusted)",
    )
    add_model_arguments(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="generations at once (default: one worker process per core for the embedded generator, else 1)",
    )
    parser.add_argument(
        "--joblib-backend",
        default="threading",
        help="joblib backend for per-question work (threading, loky, dask, ray, ...)",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="hide the progress bar (the one-line count of model calls stays)"
    )


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Which models, where their calls are cached, and which slice of the gold set (``run`` and ``retrieve``)."""
    from evalgate_lib.generation.backends import BACKEND_CHOICES  # here: importing the command line stays light

    parser.add_argument(
        "--backend",
        choices=BACKEND_CHOICES,
        default="auto",
        help="auto: Ollama if a server answers at OLLAMA_HOST, else the embedded local models",
    )
    parser.add_argument(
        "--hosts", default=None, help="Ollama host(s), comma-separated (default: $OLLAMA_HOST or 127.0.0.1:11434)"
    )
    parser.add_argument(
        "--cache-dir", default="cache", type=Path, help="model-call cache folder (data only, checked on read)"
    )
    parser.add_argument("--limit", type=int, default=None, help="run only a slice of N gold questions")
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        default=None,
        help="seconds one Ollama request may wait for its answer (default: [shared.models.ollama] timeout, else 300)",
    )
    parser.add_argument(
        "--retries",
        metavar="N",
        default=None,
        help="retries after a transient Ollama failure (default: [shared.models.ollama] retries, else 3)",
    )


def _waiting_options(args: argparse.Namespace) -> tuple[float | None, int | None]:
    """``--timeout`` and ``--retries`` checked here, so a bad value is one error line, not argparse's usage text."""
    from evalgate_lib.inputs.config import waiting_problem

    values: dict[str, float | int | None] = {"timeout": None, "retries": None}
    for key, text, parse in (("timeout", args.timeout, float), ("retries", args.retries, int)):
        if text is None:
            continue
        try:
            values[key] = parse(str(text).strip())
        except ValueError:
            values[key] = None
        problem = waiting_problem(key, values[key], text)
        if problem is not None:
            raise EvalGateError(f"--{problem}")
    return values["timeout"], values["retries"]  # type: ignore[return-value]


#: Ceilings of the count options: more concurrent requests than any Ollama deployment serves would only
#: start threads until the system refuses one; more resamples than this change no printed digit and
#: would hold gigabytes of draws.
MAX_JOBS = 256
MAX_RESAMPLES = 1_000_000


def check_count(option: str, value: int, ceiling: int) -> None:
    """Refuse a count option below 1 or above ``ceiling``, in one line naming it."""
    if value < 1:
        raise InputError(f"{option} must be at least 1, got {value}")
    if value > ceiling:
        raise InputError(f"{option} must be at most {ceiling:,}, got {value:,}")


def check_limit(limit: int | None) -> None:
    """``--limit`` must be a positive count; a limit larger than the gold set is accepted and said (cmd_run)."""
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit} (leave it out to run every gold question)")


def config_corpus(config: str | Path) -> Path:
    """The corpus folder a config names (the config is loaded, so a bad one fails here with its own message)."""
    from evalgate_lib.inputs.config import load_config

    return load_config(config).corpus


def config_gold(config: str | Path) -> Path:
    """The gold file a config names."""
    from evalgate_lib.inputs.config import load_config

    return load_config(config).gold


def check_outputs(
    args: argparse.Namespace,
    corpora: Sequence[Path | None],
    *dests: str,
    inputs: Sequence[tuple[str, str | Path | None]] = (),
    results: Sequence[Path | None] = (),
    writes: Sequence[str] | None = None,
) -> None:
    """Check every output option ``dests`` of ``args`` that is set, with the one rule for where EvalGate writes.

    :func:`evalgate_lib.run.outputs.check_output`: not empty, not a file where a folder goes (or the
    other way round), not a dangling link, not inside a corpus folder, not over a file the command
    reads (``inputs``), not inside a results folder it reads (``results``), writable now; so a run
    never computes for twenty minutes and then fails to write. ``--out`` writes ``writes`` into its
    folder (default: a results folder's files). ``--json`` and ``gold import --out`` name files. Two
    outputs naming one file are refused (:func:`evalgate_lib.run.outputs.check_distinct_outputs`).
    """
    from evalgate_lib.run.outputs import check_distinct_outputs, check_output
    from evalgate_lib.run.results import WRITTEN_FILES

    named = [("--" + dest.replace("_", "-"), getattr(args, dest, None)) for dest in dests]
    for (option, value), dest in zip(named, dests, strict=True):
        if value is not None:
            folder = dest != "json" and dest not in getattr(args, "file_outputs", ())
            check_output(
                value, option, folder=folder, corpora=corpora, inputs=inputs, results=results,
                writes=((WRITTEN_FILES if writes is None else writes) if dest == "out" else ()),
            )  # fmt: skip
    check_distinct_outputs(named)


def results_and_labels(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """The results folder's files, the label files and the plan a command reads, as :func:`check_outputs` takes them."""
    from evalgate_lib.run.outputs import results_inputs

    found: list[tuple[str, Path | None]] = [*results_inputs(getattr(args, "results", None))]
    found += [("label file", Path(p)) for p in getattr(args, "labels", None) or []]
    return found + [("sampling plan", getattr(args, "plan", None))]


def results_corpus(folder: Path | None) -> list[Path | None]:
    """The corpus folder a results folder's manifest names (none when unreadable: its reader then says why)."""
    from evalgate_lib.inputs.structured import read_json

    manifest = None if folder is None else Path(folder) / "manifest.json"
    if manifest is None or not manifest.is_file():
        return []
    try:
        path = read_json(manifest, "manifest").get("corpus", {}).get("path")
    except (InputError, AttributeError):
        return []
    return [Path(path)] if isinstance(path, str) else []


def run_options(args: argparse.Namespace):  # noqa: ANN201 - RunOptions, imported lazily
    """Build :class:`RunOptions` from parsed arguments."""
    from evalgate_lib.run.pipeline import RunOptions

    jobs = getattr(args, "jobs", None)  # evalgate retrieve has no --jobs: it generates nothing
    if jobs is not None:
        check_count("--jobs", jobs, MAX_JOBS)
    timeout, retries = _waiting_options(args)
    check_limit(args.limit)
    return RunOptions(
        backend=args.backend,
        hosts=args.hosts,
        cache_dir=args.cache_dir,
        limit=args.limit,
        jobs=jobs,
        joblib_backend=getattr(args, "joblib_backend", "threading"),
        progress=not getattr(args, "no_progress", True),
        timeout=timeout,
        retries=retries,
        announce=lambda line: print(line, flush=True),
    )


def candidate_configs(args: argparse.Namespace) -> list[str]:
    """The ``--candidate`` configs given (repeatable), else the default one."""
    return list(args.candidate or ["configs/candidate.toml"])


def cmd_run(args: argparse.Namespace) -> int:
    """Run both configs through the public API, print the summary table, write the results folder.

    With several ``--candidate``: the baseline once and every candidate, one pair folder each and an index.
    """
    from evalgate_lib.api import run_candidates, run_comparison

    options = run_options(args)
    candidates = candidate_configs(args)
    corpora = [config_corpus(args.baseline), *map(config_corpus, candidates)]
    configs = [("config", Path(c)) for c in (args.baseline, *candidates)]
    check_outputs(args, corpora, "out", "cache_dir", inputs=[*configs, ("gold file", config_gold(args.baseline))])
    if len(candidates) == 1:
        results = run_comparison(args.baseline, candidates[0], options, args.out)
        _say_run(args, results.manifest, [f"differs: {', '.join(sorted(results.manifest.fairness['differs']))}"])
        print(results.table())
        print()
        print(results.model_calls_line())
        print(f"results: {results.folder.resolve()}/results.jsonl (+ summary.json, manifest.json)")
        return 0
    family = run_candidates(args.baseline, candidates, options, args.out)
    differs = [
        f"{p.candidate} differs from {p.baseline} in: {', '.join(sorted(p.manifest.fairness['differs']))}"
        for p in family.pairs
    ]
    _say_run(args, family.pairs[0].manifest, differs)
    print(family.table())
    print()
    print(family.model_calls_line())
    pairs = ", ".join(f"{p.folder.name}/" for p in family.pairs)
    print(f"results: {family.folder.resolve()}/candidates.json (+ one results folder per pair: {pairs})")
    return 0


def _say_run(args: argparse.Namespace, manifest: Any, differs: Sequence[str]) -> None:
    """What ``evalgate run`` prints before its table: the limit, the backend, what differs, skipped corpus files."""
    in_file = manifest.gold["questions_in_file"]
    if args.limit is not None and args.limit >= in_file:
        print(f"limit {args.limit} >= {in_file} gold questions: ran all {in_file}")
    backend = manifest.backend
    print(f"backend: {backend['backend']} (generator {backend['generator']}, embedder {backend['embedder']})")
    for line in differs:
        print(line)
    _say_matching(manifest.answer_matching)
    for skipped in manifest.corpus.get("skipped", []):
        print(f"skipped corpus file {skipped['path']}: {skipped['reason']}")
    print()


def resolve_thresholds(given: Path | None) -> Path:
    """The thresholds file a gate reads: ``given`` (a missing one is an error when read), else
    ``configs/gate.toml`` when it exists in the working directory, else the packaged default
    (:data:`~evalgate_lib.statistics.gate.PACKAGED_THRESHOLDS`): a gate run outside the repository still has
    rules. Prints which file was used when it was not given."""
    from evalgate_lib.statistics.gate import PACKAGED_THRESHOLDS

    if given is not None:
        return given
    if Path(DEFAULT_THRESHOLDS).is_file():
        return Path(DEFAULT_THRESHOLDS)
    print(f"thresholds: {PACKAGED_THRESHOLDS} (EvalGate's packaged default: no {DEFAULT_THRESHOLDS} here)")
    return PACKAGED_THRESHOLDS


def cmd_gate(args: argparse.Namespace) -> int:
    """Judge an existing results folder, or run the evaluation first; exit 1 on regression.

    The folder is verified before it is judged (:func:`evalgate_lib.load_results`), and a
    partial (``--limit``) run is refused unless ``--allow-partial``: a gate that passes on
    2 questions must not look like one that passed on all of them. The verdict is one decision
    (:meth:`evalgate_lib.Results.gate_decision`), printed, and written as JSON, JUnit XML and
    Markdown when asked.
    """
    from evalgate_lib.api import load_candidates, load_results
    from evalgate_lib.run.candidates import is_candidates_folder
    from evalgate_lib.run.folder import signature_line
    from evalgate_lib.statistics.candidates import HOLM_FAMILY, family_outcome, format_candidates_verdict
    from evalgate_lib.statistics.gate import load_gate
    from evalgate_lib.statistics.power import format_powers, summary_powers

    args.thresholds = resolve_thresholds(args.thresholds)
    gate = load_gate(args.thresholds)
    if args.plan is not None and not args.labels:
        raise InputError("--plan goes with --labels FILE: the labels made under the plan")
    if args.reviewer is not None and not args.labels:
        raise InputError("--reviewer goes with --labels FILE: it says whose labels count")
    read = [*results_and_labels(args), ("gate thresholds file", args.thresholds)]
    if args.results is None:  # the gate runs the configs first
        read += [("config", Path(c)) for c in (args.baseline, *candidate_configs(args))]
        read += [("gold file", config_gold(args.baseline))]
    check_outputs(
        args, results_corpus(args.results), "json", "junit", "markdown", inputs=read,
        results=[args.results if args.results is not None else args.out],
    )  # fmt: skip
    if args.results is None:
        status = cmd_run(args)  # checks --limit and --out
        if status:
            return status
    folder = args.results if args.results is not None else args.out
    if is_candidates_folder(folder):
        family = load_candidates(folder)
        if args.labels:
            raise InputError(
                f"{folder} holds several candidates: labels correct one pair's deltas; gate that pair's folder "
                f"with --labels ({', '.join(str(p.folder) for p in family.pairs)})"
            )
        partial_of = _partial_of(folder, family.pairs[0].manifest, args.allow_partial)
        judged = family.verdicts(args.thresholds)
        # every candidate answers the same questions: one power per rule, at Holm's best for the family's size
        powers = summary_powers(gate, family.pairs[0].summary, len(family.pairs))
        power = format_powers(powers, gate.alpha, gate.mode)
        print(signature_line(folder))
        print(format_candidates_verdict(judged, gate, questions_in_file=partial_of, power=power))
        verdict, code = family_outcome(judged, args.allow_inconclusive)
        _write_decisions(args, [
            replace(pair.gate_decision(args.thresholds), allow_inconclusive=args.allow_inconclusive,
                    junit_inconclusive=args.junit_inconclusive)
            for pair in family.pairs
        ], family=(verdict, code))  # fmt: skip
        return code
    results = load_results(folder)
    _partial_of(folder, results.manifest, args.allow_partial)
    # the summary is the one recomputed from the rows (load_results refuses a summary.json that differs)
    decision = results.gate_decision(
        args.thresholds, args.labels or (), args.plan, strict_labels=True, reviewer=args.reviewer
    )
    decision = replace(decision, allow_inconclusive=args.allow_inconclusive,
                       junit_inconclusive=args.junit_inconclusive)  # fmt: skip
    if results.family is not None:  # one pair of several: judged as the family judges it
        n = len(results.family.pairs)
        print(f"{results.candidate} is one of {n} candidates in {results.family.folder}: " + HOLM_FAMILY.format(n=n))
    print(decision.text())
    _write_decisions(args, [decision])
    return decision.exit_code


def _write_decisions(args: argparse.Namespace, decisions: Sequence[Any], family: tuple[str, int] | None = None) -> None:
    """``--json``, ``--junit``, ``--markdown``: the same decision(s) in the formats CI systems read.

    ``family``: several candidates' verdict and exit code (:func:`~evalgate_lib.statistics.candidates.family_outcome`),
    what the family's JSON writes at its top."""
    import json

    from evalgate_lib.files import atomic_write
    from evalgate_lib.reporting.gate_views import decision_junit, decision_markdown

    if args.json is not None:
        data = decisions[0].to_json() if family is None else {
            "verdict": family[0],
            "exit_code": family[1],
            "candidates": [d.to_json() for d in decisions],
        }  # fmt: skip
        atomic_write(args.json, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        print(f"gate decision (JSON): {args.json}")
    if args.junit is not None:
        atomic_write(args.junit, decision_junit(decisions))
        print(f"gate decision (JUnit XML, one test case per rule): {args.junit}")
    if args.markdown is not None:
        atomic_write(args.markdown, "\n".join(decision_markdown(d) for d in decisions))
        print(f"gate decision (Markdown summary): {args.markdown}")


def _partial_of(folder: Path, manifest: Any, allow_partial: bool) -> int | None:
    """The gold set's size when the run was partial (``--limit``) and ``--allow-partial`` judges it, else ``None``.

    A partial run without ``--allow-partial`` is refused: a gate that passed on 2 questions must not
    look like one that passed on all of them.
    """
    if manifest.limit is None:
        return None
    run, total = manifest.gold.get("questions_run"), manifest.gold.get("questions_in_file")
    if not allow_partial:
        raise InputError(
            f"{folder}: a partial run (--limit {manifest.limit}: {run} of {total} gold questions), which the "
            "gate does not judge; rerun without --limit, or pass --allow-partial to judge it anyway"
        )
    return total


def cmd_sample(args: argparse.Namespace) -> int:
    """Draw which answers to label: the review queue up to a share of the budget, a seeded random sample of the rest."""
    from evalgate_lib.api import draw_label_plan

    if args.plan_out is not None:  # the default goes into the results folder, beside its plans, never over one
        from evalgate_lib.run.outputs import check_output, results_inputs

        check_output(
            args.plan_out, "--out", folder=False, corpora=results_corpus(args.results),
            inputs=results_inputs(args.results),
        )  # fmt: skip
    if not 0 < args.target_width < 1:
        raise InputError(f"--target-width must be a fraction in (0, 1): 0.05 = ±5 points, not {args.target_width}")
    drawn = draw_label_plan(args.results, args.budget, args.seed, args.review_share, args.plan_out)
    print(drawn.describe())
    print(_width_lines(args.results, drawn.plan, args.target_width))
    print(_label_kit(args.results, drawn))
    return 0


def _width_lines(results: Path, plan: Any, target: float) -> str:
    """What the plan's budget buys: each labelled rate's forecast interval
    (:mod:`evalgate_lib.statistics.budget_width`), the budget ``target`` (a half-width) needs; a population
    the plan drew no question of, said."""
    from evalgate_lib.api import load_results
    from evalgate_lib.statistics.budget_width import JUDGE_ERROR, forecast, labels_for_width
    from evalgate_lib.statistics.metrics import in_population
    from evalgate_lib.statistics.power import POPULATION_WORDS

    rows = {(r.config, r.question_id): r for r in load_results(results).rows}
    base, cand = plan.configs[0], plan.configs[-1]
    every = [q for s in plan.strata for q in s.questions]
    drawn = {q for s in plan.strata for q in s.drawn}
    lines = [f"interval forecast at this budget (the labels alone, the judge's deltas and {JUDGE_ERROR:.0%} judge "
             "errors as their proxy; the judge-corrected interval the gate decides on is narrower when the judge is "
             "good):"]  # fmt: skip
    for label, population in (("accuracy on answerable", "answerable"), ("refusal accuracy", "no_answer")):
        ids = [q for q in every if in_population(rows[(base, q)], population)]
        if not ids:
            continue
        words = POPULATION_WORDS[population]
        labelled = sum(q in drawn for q in ids)
        deltas = [float(rows[(cand, q)].correct) - float(rows[(base, q)].correct) for q in ids]
        if not labelled:
            lines.append(f"  {label}: none of the {len(ids)} {words} drawn: its rule keeps the judge's delta")
            continue
        now = forecast(deltas, labelled)
        need = labels_for_width(deltas, target)
        said = (
            f"no budget: every one labelled leaves ±{now.floor * 100:.1f}" if need is None
            else f"about {need} of them labelled (a budget of about "
            f"{math.ceil(need * len(every) / len(ids)) * len(plan.configs)} answers)"
        )  # fmt: skip
        lines.append(
            f"  {label}: ±{now.half_width * 100:.1f} pts at {labelled} of {len(ids)} {words} labelled; "
            f"±{target * 100:.1f} pts needs {said}"
        )
    return "\n".join(lines)


def _label_kit(results: Path, drawn: Any) -> str:
    """Write the plan's blind label template and static labelling page beside it; what to print about them."""
    from evalgate_lib.api import load_results
    from evalgate_lib.reporting.label_template import write_label_kit

    loaded = load_results(results)
    try:
        articles = loaded.articles()
    except InputError:  # the corpus is gone or changed: the passages say their text is not available
        articles = []
    return write_label_kit(loaded.rows, articles, drawn.plan, drawn.path, drawn.sha256).describe()


def cmd_report(args: argparse.Namespace) -> int:
    """Execute the notebooks and render the stakeholder report.

    The report is written into a fresh folder inside ``--out`` and swapped in when complete
    (:func:`evalgate_lib.folders.staged_folder`), so an interrupted or failed report leaves the old one
    whole; the results folder it reads is read under the lock its writer takes.
    """
    import time

    from evalgate_lib.folders import staged_folder
    from evalgate_lib.run.candidates import reading_lock
    from evalgate_lib.statistics.gate import load_gate
    from evalgate_lib.workbench.report import report_entries

    if args.jobs is not None:
        check_count("--jobs", args.jobs, MAX_JOBS)
    check_limit(args.limit)
    if args.reviewer is not None and not args.labels:
        raise InputError("--reviewer goes with --labels FILE: it says whose labels count")
    args.thresholds = resolve_thresholds(args.thresholds)
    load_gate(args.thresholds)  # a missing or malformed thresholds file fails here, not inside a notebook
    read = [*results_and_labels(args), ("gate thresholds file", args.thresholds), ("set file", args.sets)]
    read += [("config", Path(c)) for c in (args.baseline, *candidate_configs(args))]
    check_outputs(
        args, _report_corpora(args), "out", *(("cache_dir",) if args.results is None else ()), inputs=read,
        results=[args.results], writes=report_entries(args.results is not None),
    )  # fmt: skip
    started = time.perf_counter()
    with reading_lock(args.results), staged_folder(args.out) as staging:
        index = Path(args.out).resolve() / _report_into(args, staging).relative_to(staging.resolve())
    print(f"report: {index} ({time.perf_counter() - started:.1f} s); open it in a browser, no server needed")
    return 0


def _report_into(args: argparse.Namespace, out: Path) -> Path:
    """Everything ``evalgate report`` writes, written into ``out`` (a staging folder); returns its ``index.html``."""
    from evalgate_lib.workbench.report import build_report, notebook_parameters

    results, candidate = args.results, candidate_configs(args)[0]
    if results is None and len(candidate_configs(args)) > 1:
        from evalgate_lib.api import run_candidates

        # notebook 02 runs one pair: several candidates are run here, into the report's results folder
        results = run_candidates(args.baseline, candidate_configs(args), run_options(args), out / "results").folder
    if results is not None:
        results, candidate = _lead_pair(results, args.thresholds, candidate)
    if results is not None:
        from evalgate_lib.api import load_results

        load_results(results).articles()  # a corpus changed since the run fails here, not inside a notebook
    if args.labels and results is not None:
        _check_labels_usable(args.labels, results, args.reviewer)  # all-stale labels fail here, not in a notebook
    parameters = notebook_parameters(
        args.baseline, candidate, args.backend, args.hosts, args.cache_dir, args.limit, args.jobs, args.thresholds
    )
    parameters["labels"] = [str(Path(p).resolve()) for p in args.labels or []]
    parameters["label_reviewer"] = args.reviewer
    if args.sets is not None:
        from evalgate_lib.inputs.labelled_sets import load_sets

        load_sets(args.sets)  # a bad set file fails here, not inside a notebook
        parameters["labelled_sets"] = str(Path(args.sets).resolve())
    return build_report(
        out,
        parameters,
        results=results,
        notebooks=args.notebooks,
        no_appendices=args.no_appendices,
        log=(lambda msg: None) if args.no_progress else (lambda msg: print(msg, flush=True)),
    )


def _lead_pair(results: Path, thresholds: Path, candidate: str) -> tuple[Path, str]:
    """The pair folder a report on ``results`` shows, and its candidate's config.

    A folder of several candidates leads with the best candidate that passes (its pair folder,
    and the config its run recorded); a pair folder is itself.
    """
    from evalgate_lib.api import load_candidates
    from evalgate_lib.run.candidates import is_candidates_folder

    if not is_candidates_folder(results):
        return results, candidate
    family = load_candidates(results)
    lead = family.lead(thresholds)
    print(
        f"report: {results} holds {len(family.pairs)} candidates; leading with {lead.candidate}, the best that "
        f"passes {thresholds} (or the best, if none passes)"
    )
    recorded = lead.manifest.configs.get(lead.candidate, {}).get("path")
    if not lead.manifest.is_external and recorded and Path(recorded).is_file():
        candidate = recorded
    return lead.folder, candidate


def _report_corpora(args: argparse.Namespace) -> list[Path | None]:
    """The corpus folders a report's output must stay out of: the results folder's, and the configs' when they load.

    With ``--results`` the configs are not read by the report, but the next ``evalgate run`` reads their corpus.
    """
    corpora = results_corpus(args.results)
    for config in (args.baseline, *candidate_configs(args)):
        try:
            corpora.append(config_corpus(config))
        except EvalGateError:
            if args.results is None:
                raise  # without --results the report runs these configs: a bad one is the error to show
    return corpora


def _check_labels_usable(labels: Sequence[Path], results: Path, reviewer: str | None = None) -> None:
    """Refuse label files none of whose labels describes an answer of ``results`` (all stale or unknown), or
    whose labels disagree silently (one answer labelled twice in one pass, without ``--reviewer``)."""
    from evalgate_lib.inputs.labels import load_label_files
    from evalgate_lib.run.results import load_rows
    from evalgate_lib.statistics.run_agreement import usable_labels

    selection = load_label_files(labels, reviewer)
    loaded = list(selection.labels)
    source = ", ".join(map(str, labels))
    if not loaded:
        raise InputError(selection.nothing_read())
    usable_labels(load_rows(results), loaded, source)


def cmd_agreement(args: argparse.Namespace) -> int:
    """Measure every automatic judgement against reviewers' labels: of a results folder, or of each labelled set."""
    import json

    from evalgate_lib.api import load_results
    from evalgate_lib.files import atomic_write
    from evalgate_lib.statistics.run_agreement import format_report, report_json

    check_count("--resamples", args.resamples, MAX_RESAMPLES)
    if args.sets is not None:
        return _agreement_by_set(args)
    if not args.labels:
        raise InputError("evalgate agreement needs --labels FILE (with --results) or --sets FILE")
    check_outputs(args, results_corpus(args.results), "json", inputs=results_and_labels(args), results=[args.results])
    report = load_results(args.results).agreement_report(
        args.labels, scorers=args.scorer or ("lexical",), resamples=args.resamples, reviewer=args.reviewer
    )
    print(format_report(report), end="")
    if args.json is not None:
        atomic_write(args.json, json.dumps(report_json(report), indent=2, sort_keys=True) + "\n")
        print(f"agreement: {args.json}")
    return 0


def _agreement_by_set(args: argparse.Namespace) -> int:
    """``evalgate agreement --sets FILE``: every judge on every labelled set, one block per set, never pooled."""
    import json

    from evalgate_lib.files import atomic_write
    from evalgate_lib.inputs.config import ANSWER_MATCHING
    from evalgate_lib.inputs.labelled_sets import load_sets
    from evalgate_lib.judging.scorers import get_scorer
    from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, Judge, format_set, measure_set, set_json

    sets = load_sets(args.sets)
    read = [("set file", Path(args.sets))]
    for s in sets:
        read += [("gold file", s.gold), ("label file", s.labels), *(("answer log", path) for _, path in s.answers)]
    check_outputs(args, [], "json", inputs=read)
    if args.set:
        known = {s.name for s in sets}
        for name in args.set:
            if name not in known:
                raise InputError(f"{args.sets}: no set named {name!r}; sets: {', '.join(sorted(known))}")
        sets = [s for s in sets if s.name in args.set]
    judges = list(DEFAULT_JUDGES)
    for spec in args.judge or ():
        scorer, _, matching = spec.partition(":")
        if not matching:
            raise InputError(f"--judge {spec!r}: write SCORER:MATCHING, e.g. span:token")
        if matching not in ANSWER_MATCHING:
            known = ", ".join(ANSWER_MATCHING)
            raise InputError(f"--judge {spec!r}: unknown matching {matching!r}; choose one of {known}")
        get_scorer(scorer)  # an unknown scorer name is refused here, with the registered names
        judges.append(Judge(f"{scorer} + {matching}", scorer, matching))
    results = [measure_set(s, judges, resamples=args.resamples) for s in sets]
    for result in results:
        print(format_set(result))
    if args.json is not None:
        atomic_write(args.json, json.dumps([set_json(r) for r in results], indent=2, sort_keys=True) + "\n")
        print(f"agreement: {args.json}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    """Judge two answer logs written by a pipeline EvalGate did not run; write a results folder.

    With several candidate logs: each paired with the baseline's, one pair folder each and an index.
    """
    from evalgate_lib.run.external import score_and_write, score_answer_logs
    from evalgate_lib.statistics.metrics import format_table

    names = None
    logs = 1 + len(args.candidate_log)
    if args.names is not None:
        from evalgate_lib.text.matching import canonical

        parts = [canonical(p.strip()) for p in args.names.split(",")]  # names are ids: one Unicode spelling
        if len(parts) != logs or not all(parts):
            raise InputError(f"--names takes {logs} names separated by commas (one per log), got {args.names!r}")
        names = tuple(parts)
    read = [("answer log", Path(log)) for log in (args.baseline_log, *args.candidate_log)] + [("gold file", args.gold)]
    check_outputs(args, [args.corpus], "out", inputs=read)
    if logs > 2:
        return _score_candidates(args, names)
    candidate_log = args.candidate_log[0]
    run = score_answer_logs(
        args.baseline_log,
        candidate_log,
        args.gold,
        names=names,
        corpus=args.corpus,
        matching=args.matching,
        scorer=args.scorer,
        declined_references=args.declined_references,
    )
    summary, folder = score_and_write(run, args.out)
    print(f"pipeline: external (answer logs {args.baseline_log}, {candidate_log})")
    print(f"names: {run.names[0]} (baseline), {run.names[1]} (candidate)")
    print("fairness: declared by you, not enforced (EvalGate did not run these pipelines)")
    _say_matching(args.matching)
    _print_log_shapes(run)
    for path, reason in run.skipped:
        print(f"skipped corpus file {path}: {reason}")
    for name, log in zip(run.names, run.logs, strict=True):
        empty = sum(1 for answer in log.answers if not answer.passages)
        if empty:
            print(f"{name}: {empty} answer(s) logged no passages (nothing retrieved): their retrieval counts as a miss")
    for name, count in run.stats["passages_assembled"].items():
        if count:
            print(
                f"{name}: {count} passage(s) placed as spans of the corpus joined by other text "
                "(merged chunks; each span and join is in its row)"
            )
    for name, count in run.located.items():
        if count:
            why = (
                "retrieval metrics"
                if not run.gold_from_log
                else "their articles; the gold from the rows names no gold article, so retrieval metrics stay empty: "
                "evalgate gold import --corpus writes a gold file that names them, for --gold"
            )
            print(f"{name}: {count} passage(s) without a doc_id placed in the corpus by their text ({why})")
    if not all(log.has_doc_ids for log in run.logs):
        print(
            "retrieval metrics: left empty for a log whose passages do not all carry a doc_id"
            + ("" if run.corpus_path is not None else " (--corpus places passages by their text)")
        )
    print()
    print(format_table(summary))
    print()
    print(f"scored {len(run.rows)} answers in {run.stats['wall_seconds']:.1f} s")
    print(f"results: {folder.resolve()}/results.jsonl (+ summary.json, manifest.json)")
    return 0


def _say_matching(matching: str) -> None:
    """One line when the answers are matched byte-exact (``raw``), which no reader of the verdicts would assume."""
    from evalgate_lib.inputs.config import RAW_MATCHING

    if matching == "raw":
        print(f"answer matching: raw, {RAW_MATCHING}")


def _gold_use(run: ExternalRun, log: int) -> Literal["source", "checked", "unused"]:
    """What the gold columns of log ``log`` (0: the baseline's) were for: ForeignLog.mapping's ``gold``."""
    return "unused" if not run.gold_from_log else "source" if log == 0 else "checked"


def _print_log_shapes(run: ExternalRun) -> None:
    """How each RAGAS / Hugging Face log was read and, with no --gold, the gold its rows gave."""
    from evalgate_lib.inputs.foreign_rows import LONG_ACCEPT_TOKENS, long_accepts

    for number, (name, log) in enumerate(zip(run.names, run.logs, strict=True)):
        if log.foreign is not None:
            print(f"{name}: {log.path} read as {log.foreign.mapping(_gold_use(run, number))}")
    if not run.gold_from_log:
        return
    answerable = sum(q.answerable for q in run.questions)
    declined = (
        f", {len(run.declined)} of them because the reference declines ({', '.join(list(run.declined)[:5])}"
        f"{', …' if len(run.declined) > 5 else ''}; --declined-references answerable keeps them answerable)"
        if run.declined
        else ""
    )
    print(
        f"gold: from {run.gold_path} ({len(run.questions)} questions: {answerable} answerable, "
        f"{len(run.questions) - answerable} no-answer{declined}; no gold article, so no retrieval metrics)"
    )
    long = long_accepts(run.questions)
    if long:
        shown = ", ".join(long[:10]) + (f" and {len(long) - 10} more" if len(long) > 10 else "")
        print(
            f"gold: {len(long)} reference(s) longer than {LONG_ACCEPT_TOKENS} tokens ({shown}): an answer is correct "
            "only if it states one (a short one may be said in other words), so most answers to these read as wrong; "
            "shorten each to its key fact in a gold file (evalgate gold import writes one) and pass --gold"
        )


def _score_candidates(args: argparse.Namespace, names: Sequence[str] | None) -> int:
    """``evalgate score BASELINE A B ...``: each candidate log judged against the baseline's, one pair folder each."""
    from evalgate_lib.api import load_candidates
    from evalgate_lib.run.candidates import score_and_write_candidates

    written = score_and_write_candidates(
        args.baseline_log,
        args.candidate_log,
        args.gold,
        args.out,
        names=names,
        corpus=args.corpus,
        matching=args.matching,
        scorer=args.scorer,
        declined_references=args.declined_references,
    )
    family = load_candidates(args.out)
    print(f"pipeline: external (answer logs {args.baseline_log}, {', '.join(map(str, args.candidate_log))})")
    print("fairness: declared by you, not enforced (EvalGate did not run these pipelines)")
    _say_matching(args.matching)
    _print_log_shapes(written[0][0])
    for run, _, _ in written[1:]:
        if run.logs[1].foreign is not None:
            print(f"{run.names[1]}: {run.logs[1].path} read as {run.logs[1].foreign.mapping(_gold_use(run, 1))}")
    for path, reason in written[0][0].skipped:
        print(f"skipped corpus file {path}: {reason}")
    print()
    print(family.table())
    print()
    print(f"scored {sum(len(run.rows) for run, _, _ in written)} answers in {family.run_stats['wall_seconds']:.1f} s")
    pairs = ", ".join(f"{p.folder.name}/" for p in family.pairs)
    print(f"results: {family.folder.resolve()}/candidates.json (+ one results folder per pair: {pairs})")
    return 0


def cmd_retrieve(args: argparse.Namespace) -> int:
    """Write an answer-log skeleton: EvalGate's chunker and retriever for one config over a gold file."""
    from evalgate_lib.api import retrieve
    from evalgate_lib.run.outputs import check_output

    options = run_options(args)
    config_file = Path(args.config)
    read = [("config", config_file), ("gold file", args.gold if args.gold is not None else config_gold(config_file))]
    # the skeleton is an answer log: inside the corpus, the next run would index it as an article
    check_output(args.out, "--out", folder=False, corpora=[config_corpus(config_file)], inputs=read)
    skeleton = retrieve(args.config, options, gold=args.gold, top_k=args.top_k, out=args.out, force=args.force)
    stats = skeleton.stats
    for path, reason in skeleton.skipped:
        print(f"skipped corpus file {path}: {reason}")
    calls = stats["model_calls"]
    print(
        f"retrieve: config {skeleton.config} ({skeleton.chunks} chunks of {skeleton.articles} articles), "
        f"top-k {skeleton.top_k}, {stats['questions']} of {stats['questions_in_file']} gold questions "
        f"of {skeleton.gold}"
    )
    print(
        f"embedder: {skeleton.backend.get('embedder')} ({skeleton.backend.get('backend')} backend); "
        f"{calls['embed_calls']} embedding batches made, {calls['hits']} from the cache; no generation"
    )
    print(f"skeleton: {args.out} ({len(skeleton.lines)} lines, every 'answer' empty) in {stats['wall_seconds']:.1f} s")
    print(
        "next: fill in each 'answer' with your generator (keep the passages it was given), then "
        "`evalgate score BASELINE.jsonl CANDIDATE.jsonl --gold GOLD --corpus CORPUS --names A,B`"
    )
    return 0


def _configure_retrieve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", default="configs/baseline.toml", type=Path, help="the config whose [chunking] and top_k retrieve"
    )
    parser.add_argument("--gold", default=None, type=Path, help="gold questions (JSONL; default: the config's)")
    parser.add_argument("--top-k", type=int, default=None, help="passages per question (default: the config's)")
    add_model_arguments(parser)
    parser.add_argument("--out", required=True, type=Path, help="the answer-log skeleton to write (JSONL)")
    parser.add_argument("--force", action="store_true", help="overwrite --out when it exists")


def _configure_score(parser: argparse.ArgumentParser) -> None:
    from evalgate_lib.inputs.config import ANSWER_MATCHING, DEFAULT_ANSWER_MATCHING, DEFAULT_SENTENCE_SCORER

    parser.add_argument(
        "baseline_log",
        type=Path,
        help="the baseline pipeline's answer log: JSONL, or RAGAS / Hugging Face rows (JSONL, CSV, a datasets folder)",
    )
    parser.add_argument(
        "candidate_log",
        type=Path,
        nargs="+",
        help="the candidate pipeline's answer log (either shape); several: each is a candidate against the baseline",
    )
    parser.add_argument(
        "--gold",
        default=None,
        type=Path,
        help="gold questions (JSONL) the logs answer (default: the questions and references of the baseline log's "
        "RAGAS / Hugging Face rows)",
    )
    parser.add_argument(
        "--corpus", default=None, type=Path, help="knowledge-base folder: checks doc ids, enables evidence metrics"
    )
    parser.add_argument(
        "--names", default=None, help="config names BASELINE,CANDIDATE[,...], one per log (default: the file stems)"
    )
    parser.add_argument(
        "--matching",
        choices=ANSWER_MATCHING,
        default=DEFAULT_ANSWER_MATCHING,
        help="answer matching (default claim; raw is byte-exact containment, case folded only)",
    )
    parser.add_argument("--scorer", default=DEFAULT_SENTENCE_SCORER, help="sentence scorer (registered name)")
    _add_declined_references(parser)
    parser.add_argument("--out", default=Path("results/external"), type=Path, help="results folder to write")


def _configure_agreement(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", default=Path("results/latest"), type=Path, help="results folder to measure")
    parser.add_argument(
        "--labels", type=Path, action="append", help="reviewer labels (JSONL) of --results; repeat for several files"
    )
    parser.add_argument(
        "--sets",
        type=Path,
        default=None,
        help="a labelled-set file (labels/sets.toml): every judge on each set and each of its configurations",
    )
    parser.add_argument("--set", action="append", default=None, help="with --sets: only this set (repeatable)")
    parser.add_argument(
        "--judge",
        action="append",
        default=None,
        help="with --sets: one more judge to measure, SCORER:MATCHING (e.g. prose:token); repeatable",
    )
    parser.add_argument(
        "--scorer",
        action="append",
        default=None,
        help="sentence scorer(s) to compare (default: lexical, beside the run's own)",
    )
    parser.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples for the intervals")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    _add_reviewer_argument(parser)


def _configure_run(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--out", default="results/latest", type=Path, help="results folder to write")


def _configure_gate(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--thresholds", default=None, type=Path, help=THRESHOLDS_HELP)
    parser.add_argument(
        "--results", default=None, type=Path, help="judge this results folder instead of running the evaluation"
    )
    parser.add_argument("--out", default="results/latest", type=Path, help="results folder when running")
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="judge a --limit run too (refused by default: it judged only part of the gold set)",
    )
    parser.add_argument(
        "--allow-inconclusive",
        action="store_true",
        help="exit 0 on an INCONCLUSIVE verdict (no rule fails, one cannot be shown within its limit); default: exit 4",
    )
    parser.add_argument(
        "--junit-inconclusive",
        choices=("failure", "error"),
        default="failure",
        help="how --junit shows an INCONCLUSIVE rule (with --allow-inconclusive: skipped)",
    )
    _add_label_arguments(parser)
    parser.add_argument("--json", type=Path, default=None, help="also write the gate's decision to this JSON file")
    parser.add_argument(
        "--junit", type=Path, default=None, help="also write it as JUnit XML: one test case per rule, a failure each"
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        default=None,
        help="also write it as Markdown (a CI job summary, e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.set_defaults(file_outputs=("junit", "markdown"))


def _configure_report(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--out", default=Path("report"), type=Path, help="report folder (index.html goes here)")
    parser.add_argument(
        "--results",
        default=None,
        type=Path,
        help="an existing results folder (from `evalgate run`); default: run the evaluation into <out>/results",
    )
    parser.add_argument("--notebooks", default=None, type=Path, help="folder holding the numbered notebooks")
    parser.add_argument(
        "--thresholds", default=None, type=Path, help="gate thresholds (TOML) whose verdict opens the report; "
        + THRESHOLDS_HELP
    )  # fmt: skip
    parser.add_argument(
        "--labels",
        default=None,
        type=Path,
        action="append",
        help="reviewer labels (JSONL): the report then shows every judgement's agreement with them; repeatable",
    )
    _add_reviewer_argument(parser)
    parser.add_argument(
        "--sets",
        default=None,
        type=Path,
        help="labelled sets (labels/sets.toml): the report then shows each judge's agreement, set by set",
    )
    parser.add_argument(
        "--no-appendices", action="store_true", help="skip notebooks 01, 03, 04 (only run 02 if needed, and the report)"
    )


#: Control characters an article's text may hold: shown as ``\x1b``, never sent to the terminal.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def cmd_corpus(args: argparse.Namespace) -> int:
    """``evalgate corpus show ARTICLE``: print an article as EvalGate reads it, each line with its number."""
    from evalgate_lib.inputs.corpus import scan_corpus
    from evalgate_lib.text.matching import canonical

    corpus = args.corpus
    if corpus is None:
        from evalgate_lib.gold_tools.gold_files import gold_sources

        corpus, _, _ = gold_sources(args.config, args.config)
    articles = {a.id: a for a in scan_corpus(corpus).articles}
    article = articles.get(canonical(args.article))
    if article is None:
        import difflib

        near = difflib.get_close_matches(args.article, sorted(articles), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; articles: {', '.join(sorted(articles)[:10])}"
        raise InputError(f"no article {args.article!r} in the corpus {corpus}{hint}")
    from evalgate_lib.gold_tools.gold_check import body_line_offsets

    offset = body_line_offsets([article]).get(article.id, 0)  # the front matter's lines: numbers are the file's
    lines = [""] * offset + article.body.split("\n")
    first, last = offset + 1, len(lines)
    if args.lines is not None:
        found = re.fullmatch(r"(\d+)(?:-(\d+))?", args.lines.strip())
        if found is None:
            raise InputError(f"--lines {args.lines!r}: write a line number or a range, e.g. 390-400")
        first, last = int(found.group(1)), int(found.group(2) or found.group(1))
        if not 1 <= first <= last or first > len(lines):
            raise InputError(f"--lines {args.lines!r}: the article {article.id!r} has lines 1-{len(lines)}")
    print(f"article {article.id}: {article.title} ({article.path}; lines {first}-{min(last, len(lines))} of the text "
          f"EvalGate reads, {len(lines)} in all)")  # fmt: skip
    width = len(str(min(last, len(lines))))
    for number in range(first, min(last, len(lines)) + 1):
        shown = _CONTROL.sub(lambda c: "\\x%02x" % ord(c.group()), lines[number - 1])  # noqa: UP031
        print(f"{number:>{width}}  {shown}")
    return 0


def _configure_corpus(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="corpus_command", required=True)
    show_help = "print an article as EvalGate reads it (an HTML page's main content as text), lines numbered"
    show = sub.add_parser("show", help=show_help, description=show_help)
    show.add_argument("article", help="the article's id (its file name without suffixes, or its front matter's id)")
    show.add_argument("--lines", default=None, help="only these lines: N or A-B (the numbers gold check prints)")
    show.add_argument("--corpus", default=None, type=Path, help="corpus folder (default: the config's)")
    show.add_argument("--config", default="configs/baseline.toml", help="config naming the corpus (%(default)s)")


def cmd_gold(args: argparse.Namespace) -> int:
    """``evalgate gold check`` / ``evalgate gold import``: run the chosen sub-subcommand."""
    return args.gold_handler(args)


def _cmd_gold_check(args: argparse.Namespace) -> int:
    """Check the gold file against its corpus; exit 2 on errors, 1 on warnings with --strict, else 0."""
    import json

    from evalgate_lib.files import atomic_write
    from evalgate_lib.gold_tools.gold_check_format import check_json, format_check
    from evalgate_lib.gold_tools.gold_files import check_gold_files, gold_sources

    if (args.corpus is None) != (args.gold is None):
        raise InputError("--corpus and --gold go together: give both, or neither (the configs then name them)")
    if args.corpus is not None and (args.baseline or args.candidate):
        raise InputError("give either --corpus/--gold or --baseline/--candidate, not both")
    matching = "token"
    read: list[tuple[str, str | Path | None]] = []
    if args.corpus is not None:
        corpus, gold = args.corpus, args.gold
    else:
        baseline, candidate = args.baseline or "configs/baseline.toml", args.candidate or "configs/candidate.toml"
        corpus, gold, matching = gold_sources(baseline, candidate)
        read = [("config", Path(baseline)), ("config", Path(candidate))]
    thresholds = args.thresholds if args.thresholds is not None else Path(DEFAULT_THRESHOLDS)
    read += [("gold file", Path(gold)), ("gate thresholds file", thresholds)]
    check_outputs(args, [corpus], "json", inputs=read)
    check, scan = check_gold_files(corpus, gold)
    for path, reason in scan.skipped:
        print(f"skipped corpus file {path}: {reason}")
    print(format_check(check, str(gold), str(corpus)), end="")
    if matching not in ("token", "claim"):  # the claim rule finds an accepted string token-bounded first
        print(f"note: the configs judge with answer_matching = {matching!r}, not the 'token' rule counted above")
    power = _gold_power(args.thresholds, [q.answerable for q in check.questions])
    if args.json is not None:
        data = check_json(check, str(gold), str(corpus))
        if power is not None:
            data["power"] = power
        atomic_write(args.json, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"findings: {args.json}")
    if check.errors:
        print(f"evalgate: error: {len(check.errors)} error(s) in {gold} (listed above)", file=sys.stderr)
        return EXIT_INPUT
    return 1 if args.strict and check.warnings else 0


def _gold_power(thresholds: Path | None, answerable: Sequence[bool]) -> dict[str, object] | None:
    """Print which gate rules can fail on a gold set of this size; return the figures for ``--json``.

    ``thresholds`` given is read (a missing file is an error); not given, ``configs/gate.toml`` when it exists,
    else the packaged default, and which one is said (:func:`resolve_thresholds`).
    """
    from evalgate_lib.statistics.gate import load_gate
    from evalgate_lib.statistics.power import cannot_fail, format_powers, gold_sizes, rule_powers

    path = resolve_thresholds(thresholds)
    gate = load_gate(path)
    sizes = gold_sizes(["answerable" if a else "no_answer" for a in answerable])
    powers = rule_powers(gate, sizes)
    counts = f"{sizes['answerable']} answerable, {sizes['no_answer']} no-answer"
    print(f"power of the gate {path} on this gold set ({counts}):")
    for line in format_powers(powers, gate.alpha, gate.mode):
        print(line)
    return {
        "thresholds": str(path),
        "mode": gate.mode,
        "alpha": gate.alpha,
        "cannot_fail": [p.rule.metric for p in cannot_fail(powers)],
        "rules": [
            {
                "metric": p.rule.metric,
                "questions": p.questions,
                "can_fail": p.can_fail,
                "smallest_change": p.smallest,
                "smallest_delta": p.delta,
                "p_value": p.p_value,
                "questions_needed": p.questions_needed,
                "questions_for_limit": p.questions_for_limit,
            }
            for p in powers
        ],
    }


def _cmd_gold_import(args: argparse.Namespace) -> int:
    """Import a JSONL/CSV question set into a gold file; exit 1 when some rows could not be imported."""
    from evalgate_lib.gold_tools.gold_files import import_gold_file
    from evalgate_lib.gold_tools.gold_import_format import format_import

    check_outputs(args, [args.corpus], "out", inputs=[("input file", args.input)])
    from evalgate_lib.run.external import reference_declines

    declines = reference_declines if args.declined_references == "no-answer" else None
    result = import_gold_file(args.input, args.out, args.corpus, args.force, declines)
    print(format_import(result, str(args.out), None if args.corpus is None else str(args.corpus)), end="")
    return 1 if result.skipped else 0


def _add_declined_references(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--declined-references",
        choices=("no-answer", "answerable"),
        default="no-answer",
        help="a reference that declines ('The documentation does not answer this.', read as the judge reads a "
        "refusal) makes its question no-answer (default), or stays an accept string (answerable)",
    )


def _configure_gold(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="gold_command", required=True)
    check_help = "validate the gold file against the corpus and show where accept strings and evidence occur"
    check = sub.add_parser("check", help=check_help, description=check_help, allow_abbrev=False)
    check.add_argument("--baseline", default=None, help="baseline config (TOML; default configs/baseline.toml)")
    check.add_argument("--candidate", default=None, help="candidate config (TOML; default configs/candidate.toml)")
    check.add_argument("--corpus", default=None, type=Path, help="corpus folder, instead of the configs (with --gold)")
    check.add_argument("--gold", default=None, type=Path, help="gold file (JSONL), instead of configs (with --corpus)")
    check.add_argument("--strict", action="store_true", help="exit 1 when there are warnings")
    check.add_argument("--json", default=None, type=Path, help="also write every finding to this JSON file")
    check.add_argument(
        "--thresholds",
        default=None,
        type=Path,
        help=f"gate thresholds (TOML) whose rules are checked for power at this size (default {DEFAULT_THRESHOLDS})",
    )
    check.set_defaults(gold_handler=_cmd_gold_check)
    import_help = "write a gold file from a RAGAS / Hugging Face style JSONL or CSV, reporting what it could not map"
    imp = sub.add_parser("import", help=import_help, description=import_help, allow_abbrev=False)
    imp.add_argument("input", type=Path, help="question set to import (.jsonl or .csv)")
    imp.add_argument("--out", required=True, type=Path, help="gold file to write (JSONL)")
    imp.add_argument(
        "--corpus", default=None, type=Path, help="corpus folder: find each gold article and evidence from the contexts"
    )
    imp.add_argument("--force", action="store_true", help="overwrite --out when it exists")
    _add_declined_references(imp)
    imp.set_defaults(gold_handler=_cmd_gold_import, file_outputs=("out",))


def cmd_diff(args: argparse.Namespace) -> int:
    """List what changed per question between the two configs of a results folder (fixed, broken, flag changed)."""
    import json

    from evalgate_lib.api import load_results
    from evalgate_lib.files import atomic_write
    from evalgate_lib.reporting.diff_text import changes_json, format_changes

    check_outputs(args, results_corpus(args.results), "json", inputs=results_and_labels(args), results=[args.results])
    results = load_results(args.results)
    if args.labels:
        from evalgate_lib.statistics.label_correction import format_correction

        print(format_correction(results.label_correction(args.labels, args.plan, args.reviewer)))
        print("evalgate gate --labels decides on the corrected deltas above; the changes below are the judge's")
        print()
    changes = results.changes()
    print(results.source_line())
    print(format_changes(changes, args.only), end="")
    if args.json is not None:
        data = changes_json(changes, args.only) | {"source": results.source_line()}
        atomic_write(args.json, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"changes: {args.json}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    """Print the trace behind one answer's verdicts: each sentence's role, every rule tried, which one decided."""
    from evalgate_lib.api import load_results

    results = load_results(args.results)
    for explanation in results.explain(args.question, args.config):
        print(explanation.text())
    return 0


def _configure_explain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", default=Path("results/latest"), type=Path, help="results folder to read")
    parser.add_argument("--question", required=True, help="the question id (as in the gold file, e.g. q004)")
    parser.add_argument("--config", default=None, help="only this configuration (default: every one)")


def _configure_diff(parser: argparse.ArgumentParser) -> None:
    from evalgate_lib.statistics.changes import CHANGE_KINDS

    parser.add_argument("--results", default=Path("results/latest"), type=Path, help="results folder to compare")
    parser.add_argument(
        "--only", choices=CHANGE_KINDS, default=None, help="only this kind of change (default: every changed question)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the changes to this JSON file")
    _add_label_arguments(parser)


def _add_label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        default=None,
        help="reviewer labels (JSONL): correct the deltas a label measures (a census, or a plan's labels); repeatable",
    )
    parser.add_argument(
        "--plan",
        type=Path,
        default=None,
        help="the sampling plan the labels were drawn by (default: the plan in the results folder the labels name)",
    )
    _add_reviewer_argument(parser)


def _add_reviewer_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reviewer",
        default=None,
        metavar="NAME",
        help="with --labels: only this reviewer's labels count (else two labels of one answer in one pass are an "
        "error naming both)",
    )


def _configure_sample(parser: argparse.ArgumentParser) -> None:
    from evalgate_lib.statistics.paired_tests import DEFAULT_SEED
    from evalgate_lib.statistics.sampling_plan import DEFAULT_REVIEW_SHARE

    parser.add_argument("--results", default=Path("results/latest"), type=Path, help="results folder to sample")
    parser.add_argument(
        "--budget", required=True, type=int, help="answers to label (every config of a drawn question is labelled)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the draw (recorded in the plan)")
    parser.add_argument(
        "--review-share",
        type=float,
        default=DEFAULT_REVIEW_SHARE,
        help="share of the budget for the review queue's questions (all of them if they fit)",
    )
    parser.add_argument(
        "--target-width", type=float, default=0.05,
        help="half-width (a fraction: 0.05 = ±5 points) whose label budget `sample` prints beside its forecast",
    )  # fmt: skip
    parser.add_argument(
        "--out", dest="plan_out", type=Path, default=None, help="plan file (default: <results>/label-plan.json)"
    )


def cmd_sign(args: argparse.Namespace) -> int:
    """Sign reviewers' label files or sampling plans made without the key: whoever holds the key vouches for them."""
    from evalgate_lib.inputs.labels import sign_label_file
    from evalgate_lib.inputs.structured import parse_json, read_text
    from evalgate_lib.signing import key_id, signing_key
    from evalgate_lib.statistics.sampling_plan import PLAN_FORMAT, sign_plan_file

    key = signing_key()
    if key is None:
        raise InputError("evalgate sign needs the team's signing key: --key-file FILE or EVALGATE_SIGNING_KEY")
    for path in args.files:
        text = read_text(path, "file to sign", "label file or plan")
        try:
            whole = parse_json(text, str(path))
        except ValueError:  # JSON Lines: several objects, not one
            whole = None
        if isinstance(whole, dict) and whole.get("format") != PLAN_FORMAT and "answer_sha256" not in whole:
            raise InputError(_not_signable(path, whole))
        if isinstance(whole, dict) and whole.get("format") == PLAN_FORMAT:
            digest = sign_plan_file(path)
            print(f"signed plan {path} (key id {key_id(key)}); its SHA-256 stays {digest}")
        else:
            count = sign_label_file(path)
            print(f"signed {count} label(s) in {path} (key id {key_id(key)})")
    return 0


def _not_signable(path: Path, whole: dict[str, Any]) -> str:
    """Why ``evalgate sign`` does not sign a JSON object that is neither a plan nor a label, and what signs it."""
    if "candidates" in whole and "baseline" in whole:
        what = "the index of several candidates (candidates.json)"
    elif "manifest_sha256" in whole:
        what = "a results folder's manifest"
    elif "model_calls" in whole or "wall_seconds" in whole:
        what = "a run's run_stats.json"
    else:
        what = "one JSON object"
    return (
        f"{path} is {what}, neither a label file (JSON Lines, one label per line) nor a sampling plan: evalgate sign "
        "vouches for labels and plans made without the key; a results folder, its index and its run stats are "
        "signed by the command that writes them, so rerun that command with the key set (--key-file FILE)"
    )


def _configure_sign(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", type=Path, nargs="+", help="label files (JSONL) or sampling plans to sign, each rewritten in place"
    )


def cmd_probe(args: argparse.Namespace) -> int:
    """``evalgate probe``: the judge on edits of the team's own documents, per kind of error (docs/judge.md)."""
    import json

    from evalgate_lib.files import atomic_write
    from evalgate_lib.probing.probe import format_probe, probe_corpus

    check_outputs(args, [args.corpus], "json", inputs=[("gold file", args.gold)])
    chunking = {"method": "markdown", "max_words": args.max_words}
    report = probe_corpus(args.corpus, args.gold, chunking=chunking, top_k=args.top_k, limit=args.limit)
    print(format_probe(report, f"probe of the judge on {args.corpus} with the gold evidence of {args.gold}"), end="")
    if args.json is not None:
        data = {**report.to_json(), "cases": [c.to_json() for c in report.cases]}
        atomic_write(args.json, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"every edited answer and its verdict: {args.json}")
    return 0


def _configure_probe(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", type=Path, required=True, help="the documents (a folder of .md, .rst, .html …)")
    parser.add_argument("--gold", type=Path, required=True, help="gold questions with evidence (JSONL)")
    parser.add_argument("--top-k", type=int, default=4, help="passages each faithful answer is given (default 4)")
    parser.add_argument("--max-words", type=int, default=250, help="words per markdown chunk (default 250)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions with evidence")
    parser.add_argument("--json", type=Path, default=None, help="write the table and every edited answer here")


#: Every subcommand: name → (help, argument setup, handler). The CLI owns them all; the
#: library modules they call take plain parameters and know nothing of argparse.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "run": ("run both configs and write the results folder", _configure_run, cmd_run),
    "report": ("render the stakeholder HTML report (executes the notebooks)", _configure_report, cmd_report),
    "gate": ("fail (exit 1) when the candidate regresses beyond the thresholds", _configure_gate, cmd_gate),
    "retrieve": (
        "write an answer-log skeleton: EvalGate's retriever for one config over a gold file, no generation",
        _configure_retrieve,
        cmd_retrieve,
    ),
    "score": ("judge answer logs from your own pipeline (one JSONL per config)", _configure_score, cmd_score),
    "agreement": (
        "measure every automatic judgement against reviewers' labels (Cohen's kappa, PPI)",
        _configure_agreement,
        cmd_agreement,
    ),
    "gold": ("check a gold set against its corpus, or import one (RAGAS / HF style)", _configure_gold, cmd_gold),
    "corpus": ("print an article as EvalGate reads it (the text gold check's line numbers count)", _configure_corpus,
               cmd_corpus),  # fmt: skip
    "diff": ("list the questions the candidate fixed, broke or re-flagged, both answers", _configure_diff, cmd_diff),
    "explain": (
        "show the trace behind one answer's verdicts: each sentence's role, every rule tried, which one decided",
        _configure_explain,
        cmd_explain,
    ),
    "sample": (
        "draw which answers to label (a sampling plan), so labels can correct the before/after delta",
        _configure_sample,
        cmd_sample,
    ),
    "sign": (
        "sign label files or sampling plans made without the team's key, so the gate trusts them with it set",
        _configure_sign,
        cmd_sign,
    ),
    "probe": (
        "measure the judge on your own documents: faithful answers from the gold evidence, each edited one way "
        "(a number swapped, a negation, …), and how often the judge flags each kind",
        _configure_probe,
        cmd_probe,
    ),
}


KEY_FILE_HELP = (
    "signing key (HMAC-SHA256) the team holds: results and cache entries are signed when written and "
    "verified when read (default: $EVALGATE_SIGNING_KEY_FILE or $EVALGATE_SIGNING_KEY)"
)
DEBUG_HELP = "show the traceback of any error (without it, an internal error is one line and exit 3)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalgate",
        description="Before/after evaluation of a RAG pipeline.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # an option is spelled out: 'report --set' was read as '--sets', silently
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log cache and backend activity")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    parser.add_argument("--key-file", type=Path, default=None, help=KEY_FILE_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, configure, handler) in COMMANDS.items():
        child = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXIT_CODES_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            allow_abbrev=False,
        )
        configure(child)
        # also accepted after the subcommand; SUPPRESS keeps a global --debug from being reset to False
        child.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
        child.add_argument("--key-file", type=Path, default=argparse.SUPPRESS, help=KEY_FILE_HELP)
        child.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalgate`` console script.

    Standard output is guarded for the whole command (:class:`~evalgate_lib.run.outputs.GuardedStdout`):
    a character the terminal's encoding lacks is escaped, and a full or closed stdout is one error
    line and exit 2, also when it happens in argparse's ``--help`` or in the last flush.
    """
    from evalgate_lib.errors import OutputError
    from evalgate_lib.run.outputs import GuardedStdout

    real = sys.stdout
    guard = GuardedStdout(real)
    sys.stdout = guard
    try:
        try:
            status = _run(argv)
        except SystemExit:  # argparse after --help or a usage error: what it printed must reach the reader
            guard.flush()
            raise
        guard.flush()
        return status
    except OutputError as exc:
        _say(f"evalgate: error: {exc}")
        return EXIT_INPUT
    except KeyboardInterrupt:  # while the parser or the libraries it needs load, before any command ran
        _say(INTERRUPTED)
        return EXIT_INTERRUPTED
    finally:
        sys.stdout = guard.restore()


def _say(line: str) -> None:
    """One line on stderr, its control characters shown as escapes (a name or path in it is text, never a terminal
    command); a stderr that refuses it (``2>/dev/full``) cannot be told anything: the exit code says it."""
    from evalgate_lib.text.escaping import terminal_text

    try:
        print(terminal_text(line), file=sys.stderr, flush=True)
    except OSError:
        pass


def _empty_value(parser: argparse.ArgumentParser, arguments: Sequence[str]) -> str | None:
    """The first option given an empty value (``--out ""``, ``--gold=``), as one line saying so, else ``None``.

    argparse turns ``--out ""`` into ``Path("")``, which is the current folder: a run wrote into it (over
    a user's ``summary.json``) and every empty file option was called "a directory". An empty value is
    never what was meant, so it is refused before anything is parsed, naming the option.
    """
    from evalgate_lib.run.outputs import EMPTY_PATH

    actions = {option: action for action in parser._actions for option in action.option_strings}
    current = parser
    for text in arguments:  # and the options of the subcommand (and sub-subcommand) named
        chooser = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        if chooser is not None and text in chooser.choices:
            current = chooser.choices[text]
            actions.update({option: action for action in current._actions for option in action.option_strings})
    for number, text in enumerate(arguments):
        option, equals, value = text.partition("=")
        if text.startswith("--") and equals:
            name = option
        elif number and arguments[number - 1] in actions and actions[arguments[number - 1]].nargs != 0:
            name, value = arguments[number - 1], text
        elif not text.strip():
            return f"argument {number + 1} of the command line is empty: {EMPTY_PATH}"
        else:
            continue
        if value.strip() or name not in actions:
            continue
        action = actions[name]
        if action.type is Path or action.dest in ("baseline", "candidate"):
            return f"{name} is empty: {EMPTY_PATH}"
        return f"{name} is empty: give it a value"
    return None


def _run(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run the subcommand: a user-fixable error is one line and exit 2, a bug one line and exit 3."""
    from evalgate_lib.errors import OutputError
    from evalgate_lib.signing import signing_key

    arguments = list(sys.argv[1:] if argv is None else argv)
    for text in arguments:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            _say(
                f"evalgate: error: argument {text!r} is not valid UTF-8 (a name in another encoding): EvalGate "
                "records paths and names as UTF-8 JSON; rename it, or pass it in UTF-8"
            )
            return EXIT_INPUT
    parser = build_parser()
    empty = _empty_value(parser, arguments)
    if empty is not None:
        _say(f"evalgate: error: {empty}")
        return EXIT_INPUT
    args = parser.parse_args(arguments)
    handler = logging.StreamHandler()
    handler.setFormatter(_TerminalFormatter("evalgate: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    try:
        with _key_file_in_environment(getattr(args, "key_file", None)), _quiet_interrupt():
            signing_key()  # a missing, unreadable or too short key fails here, before any work
            return args.handler(args)
    except EvalGateError as exc:
        if args.debug:
            traceback.print_exc()
        _say(f"evalgate: error: {exc}")
        for note in getattr(exc, "__notes__", ()):
            _say(f"evalgate: {note}")
        resumable = (BackendError, CacheError, OutputError)
        if isinstance(exc, resumable) and getattr(args, "cache_dir", None) is not None:
            _say(
                f"evalgate: everything computed so far is in the cache ({args.cache_dir}); "
                "rerun the same command to resume"
            )
        return EXIT_INPUT
    except KeyboardInterrupt:
        _say(INTERRUPTED)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the one place that turns a bug into one line and exit 3
        if args.debug:
            traceback.print_exc()
        message = " ".join(str(exc).split()) or "(no message)"
        _say(
            f"evalgate: internal error: {type(exc).__name__}: {message} "
            "(a bug in EvalGate; rerun with --debug for the traceback)"
        )
        return EXIT_INTERNAL


#: The loggers of the notebook machinery a report runs (papermill, nbclient through traitlets, jupyter_client, the
#: event loop): after a Ctrl-C they log the kernel's death and the tasks left pending, with tracebacks.
_NOTEBOOK_LOGGERS = ("asyncio", "traitlets", "nbclient", "papermill", "jupyter_client", "tornado")


@contextlib.contextmanager
def _quiet_interrupt() -> Iterator[None]:
    """Ctrl-C is one line (``evalgate: interrupted; ...``), whatever was running.

    It raises ``KeyboardInterrupt`` as Python's own handler does, and first silences the loggers of the
    notebook machinery (:data:`_NOTEBOOK_LOGGERS`): interrupted inside a report, nbclient logged "Kernel
    died" and asyncio "Task exception was never retrieved" with a traceback, while the interrupt unwound
    and again when the pending tasks were collected at exit. Only in the main thread, and only when
    Python's default handler is in place (a caller's own handler is left alone).
    """
    import signal
    import threading

    def interrupted(number: int, frame: Any) -> None:
        for name in _NOTEBOOK_LOGGERS:
            logging.getLogger(name).disabled = True
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(
        signal.SIGINT
    ) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class _TerminalFormatter(logging.Formatter):
    """Log lines as :func:`_say` writes its lines: a control character in a logged name or path shown as an escape."""

    def format(self, record: logging.LogRecord) -> str:
        from evalgate_lib.text.escaping import terminal_text

        return terminal_text(super().format(record))


@contextlib.contextmanager
def _key_file_in_environment(key_file: Path | None) -> Iterator[None]:
    """``--key-file`` as ``EVALGATE_SIGNING_KEY_FILE`` for the command (and the notebook kernels it starts).

    The option wins over a key in the environment, as a command-line option does; both are put
    back afterwards, so a caller of :func:`main` in a long-lived process keeps its own.
    """
    from evalgate_lib.signing import KEY_ENV, KEY_FILE_ENV

    if key_file is None:
        yield
        return
    saved = {name: os.environ.pop(name, None) for name in (KEY_ENV, KEY_FILE_ENV)}
    os.environ[KEY_FILE_ENV] = os.path.abspath(key_file)  # not resolved: a pipe (/dev/fd/63) is named as given
    try:
        yield
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value


if __name__ == "__main__":
    sys.exit(main())
