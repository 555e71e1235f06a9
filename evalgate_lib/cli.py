"""The ``evalgate`` command line.

``evalgate run`` runs both configurations and writes the results folder;
``evalgate report`` renders the stakeholder HTML report; ``evalgate gate``
fails a build when the candidate regresses. Every user-fixable problem is an
:class:`~evalgate_lib.errors.EvalGateError`: it is printed as one clear message
and the command exits with status 2. Work already done is in the cache, so the
rerun after a fix picks up where the failed run stopped.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Callable, Sequence

from evalgate_lib.errors import BackendError, CacheError, EvalGateError, InputError
from evalgate_lib.generation.backends import BACKEND_CHOICES

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by every subcommand that (re)runs the evaluation."""
    parser.add_argument("--baseline", default="configs/baseline.toml", help="baseline config (TOML)")
    parser.add_argument("--candidate", default="configs/candidate.toml", help="candidate config (TOML)")
    parser.add_argument(
        "--backend",
        choices=BACKEND_CHOICES,
        default="auto",
        help="auto: Ollama if a server answers at OLLAMA_HOST, else the embedded local models",
    )
    parser.add_argument(
        "--hosts", default=None, help="Ollama host(s), comma-separated (default: $OLLAMA_HOST or 127.0.0.1:11434)"
    )
    parser.add_argument("--cache-dir", default="cache", type=Path, help="joblib cache folder")
    parser.add_argument("--limit", type=int, default=None, help="run only a slice of N gold questions")
    parser.add_argument("--jobs", type=int, default=1, help="concurrent generation requests")
    parser.add_argument(
        "--joblib-backend",
        default="threading",
        help="joblib backend for per-question work (threading, loky, dask, ray, ...)",
    )
    parser.add_argument(
        "--dtype",
        choices=("float32", "bfloat16"),
        default=None,
        help="dtype of the embedded generator (default float32, fastest here; bfloat16 where it wins)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_options(args: argparse.Namespace):  # noqa: ANN201 - RunOptions, imported lazily
    """Build :class:`RunOptions` from parsed arguments."""
    from evalgate_lib.run.pipeline import RunOptions

    if args.jobs < 1:
        raise EvalGateError(f"--jobs must be at least 1, got {args.jobs}")
    return RunOptions(
        backend=args.backend,
        hosts=args.hosts,
        cache_dir=args.cache_dir,
        limit=args.limit,
        jobs=args.jobs,
        joblib_backend=args.joblib_backend,
        progress=not args.no_progress,
        local_dtype=args.dtype,
    )


def cmd_run(args: argparse.Namespace) -> int:
    """Run both configs, print the summary table, write the results folder."""
    from evalgate_lib.run.results import evaluate_and_write
    from evalgate_lib.statistics.metrics import format_table

    comparison, summary, folder = evaluate_and_write(args.baseline, args.candidate, run_options(args), args.out)
    inputs = comparison.inputs
    calls = comparison.stats["model_calls"]
    print(
        f"backend: {comparison.backend['backend']} "
        f"(generator {comparison.backend['generator']}, embedder {comparison.backend['embedder']})"
    )
    print(f"differs: {', '.join(sorted(inputs.differences))}")
    for path, reason in inputs.skipped:
        print(f"skipped corpus file {path}: {reason}")
    print()
    print(format_table(summary))
    print()
    print(
        f"model calls: {calls['generate_calls']} generations, {calls['embed_calls']} embedding batches; "
        f"cache hits: {calls['hits']}; wall time {comparison.stats['wall_seconds']:.1f} s"
    )
    if calls["corrupt_entries"]:
        print(f"corrupt cache entries detected and recomputed: {calls['corrupt_entries']}")
    print(f"results: {folder.resolve()}/results.jsonl (+ summary.json, manifest.json)")
    return 0


def cmd_gate(args: argparse.Namespace) -> int:
    """Judge an existing results folder, or run the evaluation first; exit 1 on regression."""
    import json

    from evalgate_lib.statistics.gate import EXIT_REGRESSION, format_verdict, judge, load_gate

    gate = load_gate(args.thresholds)
    if args.results is not None:
        path = Path(args.results) / "summary.json"
        if not path.is_file():
            raise InputError(f"{path} does not exist: run 'evalgate run --out {args.results}' first")
        summary = json.loads(path.read_text(encoding="utf-8"))
    else:
        status = cmd_run(args)
        if status:
            return status
        summary = json.loads((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
    verdicts = judge(summary, gate)
    print(format_verdict(summary, gate, verdicts))
    return EXIT_REGRESSION if any(v.failed for v in verdicts) else 0


def cmd_report(args: argparse.Namespace) -> int:
    """Execute the notebooks and render the stakeholder report."""
    import time

    from evalgate_lib.reporting.report import build_report, notebook_parameters

    if args.jobs < 1:
        raise EvalGateError(f"--jobs must be at least 1, got {args.jobs}")
    started = time.perf_counter()
    parameters = notebook_parameters(
        args.baseline, args.candidate, args.backend, args.hosts, args.cache_dir, args.limit, args.jobs
    )
    parameters["labels"] = [str(Path(p).resolve()) for p in args.labels or []]
    index = build_report(
        args.out,
        parameters,
        results=args.results,
        notebooks=args.notebooks,
        no_appendices=args.no_appendices,
        log=(lambda msg: None) if args.no_progress else (lambda msg: print(msg, flush=True)),
    )
    print(f"report: {index} ({time.perf_counter() - started:.1f} s); open it in a browser, no server needed")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    """Measure every automatic judgement of a results folder against reviewers' labels."""
    import json

    from evalgate_lib.api import load_results
    from evalgate_lib.files import atomic_write
    from evalgate_lib.statistics.label_agreement import format_report, report_json

    report = load_results(args.results).agreement_report(
        args.labels, scorers=args.scorer or ("lexical", "span"), resamples=args.resamples
    )
    print(format_report(report), end="")
    if args.json is not None:
        atomic_write(args.json, json.dumps(report_json(report), indent=2, sort_keys=True) + "\n")
        print(f"agreement: {args.json}")
    return 0


def _configure_agreement(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", default=Path("results/latest"), type=Path, help="results folder to measure")
    parser.add_argument(
        "--labels", required=True, type=Path, action="append", help="reviewer labels (JSONL); repeat for several files"
    )
    parser.add_argument(
        "--scorer", action="append", default=None, help="sentence scorer(s) to compare (default: lexical and span)"
    )
    parser.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples for the intervals")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")


def _configure_run(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--out", default="results/latest", type=Path, help="results folder to write")


def _configure_gate(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--thresholds", default="configs/gate.toml", type=Path, help="gate thresholds (TOML)")
    parser.add_argument(
        "--results", default=None, type=Path, help="judge this results folder instead of running the evaluation"
    )
    parser.add_argument("--out", default="results/latest", type=Path, help="results folder when running")


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
        "--labels",
        default=None,
        type=Path,
        action="append",
        help="reviewer labels (JSONL): the report then shows every judgement's agreement with them; repeatable",
    )
    parser.add_argument(
        "--no-appendices", action="store_true", help="skip notebooks 01, 03, 04 (only run 02 if needed, and the report)"
    )


#: Every subcommand: name → (help, argument setup, handler). The CLI owns them all; the
#: library modules they call take plain parameters and know nothing of argparse.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "run": ("run both configs and write the results folder", _configure_run, cmd_run),
    "report": ("render the stakeholder HTML report (executes the notebooks)", _configure_report, cmd_report),
    "gate": ("fail (exit 1) when the candidate regresses beyond the thresholds", _configure_gate, cmd_gate),
    "agreement": (
        "measure every automatic judgement against reviewers' labels (Cohen's kappa, PPI)",
        _configure_agreement,
        cmd_agreement,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalgate", description="Before/after evaluation of a RAG pipeline.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log cache and backend activity")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, configure, handler) in COMMANDS.items():
        child = sub.add_parser(name, help=help_text, description=help_text)
        configure(child)
        child.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalgate`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="evalgate: %(levelname)s: %(message)s"
    )
    try:
        return args.handler(args)
    except EvalGateError as exc:
        print(f"evalgate: error: {exc}", file=sys.stderr)
        for note in getattr(exc, "__notes__", ()):
            print(f"evalgate: {note}", file=sys.stderr)
        if isinstance(exc, (BackendError, CacheError)) and getattr(args, "cache_dir", None) is not None:
            print(
                f"evalgate: everything computed so far is in the cache ({args.cache_dir}); "
                "rerun the same command to resume",
                file=sys.stderr,
            )
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("evalgate: interrupted; everything computed so far is in the cache, rerun to resume", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
