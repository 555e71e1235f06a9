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

from evalgate_lib.backends import BACKEND_CHOICES
from evalgate_lib.errors import BackendError, CacheError, EvalGateError

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
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_options(args: argparse.Namespace):  # noqa: ANN201 - RunOptions, imported lazily
    """Build :class:`RunOptions` from parsed arguments."""
    from evalgate_lib.pipeline import RunOptions

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
    )


def cmd_run(args: argparse.Namespace) -> int:
    """Run both configs, print the summary table, write the results folder."""
    from evalgate_lib.metrics import format_table
    from evalgate_lib.results import evaluate_and_write

    comparison, summary, folder = evaluate_and_write(args.baseline, args.candidate, run_options(args), args.out)
    inputs = comparison.inputs
    calls = comparison.stats["model_calls"]
    print(
        f"backend: {comparison.backend['backend']} "
        f"(generator {comparison.backend['generator']}, embedder {comparison.backend['embedder']})"
    )
    print(f"differs: {', '.join(sorted(inputs.differences))}")
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


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def register(
    name: str,
    help_text: str,
    configure: Callable[[argparse.ArgumentParser], None],
    handler: Callable[[argparse.Namespace], int],
) -> None:
    """Add a subcommand (the report and gate modules register theirs)."""
    COMMANDS[name] = (help_text, configure, handler)


def _configure_run(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--out", default="results/latest", type=Path, help="results folder to write")


register("run", "run both configs and write the results folder", _configure_run, cmd_run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalgate", description="Before/after evaluation of a RAG pipeline.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log cache and backend activity")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, configure, handler) in COMMANDS.items():
        child = sub.add_parser(name, help=help_text, description=help_text)
        configure(child)
        child.set_defaults(handler=handler)
    return parser


def _load_plugins() -> None:
    """Import the modules that register the other subcommands."""
    import importlib

    for module in ("evalgate_lib.report", "evalgate_lib.gate"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalgate`` console script."""
    _load_plugins()
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
    # Run as ``python -m evalgate_lib.cli`` this file is ``__main__``, a second module object;
    # the report and gate modules register into ``evalgate_lib.cli``, so dispatch through that one.
    from evalgate_lib.cli import main as _main

    sys.exit(_main())
