"""EvalGate: auditable, reproducible before/after evaluation of a RAG pipeline.

The public API, in the spirit of httpx: everything a notebook or script needs is
importable from here, and only what is in ``__all__`` is promised to stay::

    import evalgate_lib as eg

    results = eg.run_comparison("configs/baseline.toml", "configs/candidate.toml", eg.RunOptions(backend="local"))
    print(results.table())
    results.frame.groupby("config")["hallucination"].sum()

    verdict = eg.judge_answer(
        question="How many seats does Starter include?",
        answer="Starter includes 3 seats.",
        passages=[("Plans", "The Starter plan includes 3 seats.")],
        accept=["3 seats"],
    )
    verdict.correct, verdict.unsupported_sentences, verdict.reasons

The library is organised in layers along the data flow, one folder each (see
docs/DESIGN.md): text → inputs → chunks → retrieval → generation → judging →
statistics → run → reporting, with this API and the command line on top.
"""

# The names are imported when first used (PEP 562), not when the package is: the command line starts in a
# fraction of a second and a Ctrl-C while it starts is its own one line (evalgate_lib.cli), not a traceback
# from inside a library import; ``import evalgate_lib as eg; eg.run_comparison`` and ``from evalgate_lib import
# Results`` work as before. Static tools read the same names below.
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalgate_lib.api import (
        Candidates,
        DrawnPlan,
        Inputs,
        Results,
        draw_label_plan,
        labelled_set_agreement,
        labelled_set_agreement_html,
        load_candidates,
        load_inputs,
        load_results,
        prepare_configs,
        results_or_run,
        retrieve,
        run_candidates,
        run_comparison,
    )
    from evalgate_lib.errors import BackendError, CacheError, EvalGateError, FairnessError, InputError
    from evalgate_lib.inputs.answer_logger import AnswerLogger
    from evalgate_lib.judging.answer import judge_answer
    from evalgate_lib.judging.rows import Flags, Judgement, ResultRow, SentenceVerdict
    from evalgate_lib.judging.scorers import available_scorers, get_scorer, register_scorer
    from evalgate_lib.judging.sentence_scorers import ScoringContext, SentenceScorer
    from evalgate_lib.run.manifest import Manifest
    from evalgate_lib.run.pipeline import RunOptions
    from evalgate_lib.statistics.metrics import Summary
    from evalgate_lib.version import __version__
    from evalgate_lib.workbench.charts import show_chart

#: Where each public name lives: the one place ``__getattr__`` imports it from.
_SOURCES = {
    "Candidates": "evalgate_lib.api",
    "DrawnPlan": "evalgate_lib.api",
    "Inputs": "evalgate_lib.api",
    "Results": "evalgate_lib.api",
    "draw_label_plan": "evalgate_lib.api",
    "labelled_set_agreement": "evalgate_lib.api",
    "labelled_set_agreement_html": "evalgate_lib.api",
    "load_candidates": "evalgate_lib.api",
    "load_inputs": "evalgate_lib.api",
    "load_results": "evalgate_lib.api",
    "prepare_configs": "evalgate_lib.api",
    "results_or_run": "evalgate_lib.api",
    "retrieve": "evalgate_lib.api",
    "run_candidates": "evalgate_lib.api",
    "run_comparison": "evalgate_lib.api",
    "BackendError": "evalgate_lib.errors",
    "CacheError": "evalgate_lib.errors",
    "EvalGateError": "evalgate_lib.errors",
    "FairnessError": "evalgate_lib.errors",
    "InputError": "evalgate_lib.errors",
    "AnswerLogger": "evalgate_lib.inputs.answer_logger",
    "judge_answer": "evalgate_lib.judging.answer",
    "Flags": "evalgate_lib.judging.rows",
    "Judgement": "evalgate_lib.judging.rows",
    "ResultRow": "evalgate_lib.judging.rows",
    "SentenceVerdict": "evalgate_lib.judging.rows",
    "available_scorers": "evalgate_lib.judging.scorers",
    "get_scorer": "evalgate_lib.judging.scorers",
    "register_scorer": "evalgate_lib.judging.scorers",
    "ScoringContext": "evalgate_lib.judging.sentence_scorers",
    "SentenceScorer": "evalgate_lib.judging.sentence_scorers",
    "Manifest": "evalgate_lib.run.manifest",
    "RunOptions": "evalgate_lib.run.pipeline",
    "Summary": "evalgate_lib.statistics.metrics",
    "__version__": "evalgate_lib.version",
    "show_chart": "evalgate_lib.workbench.charts",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept (PEP 562)."""
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'evalgate_lib' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AnswerLogger",
    "BackendError",
    "CacheError",
    "Candidates",
    "DrawnPlan",
    "EvalGateError",
    "FairnessError",
    "Flags",
    "InputError",
    "Inputs",
    "Judgement",
    "Manifest",
    "ResultRow",
    "Results",
    "RunOptions",
    "ScoringContext",
    "SentenceScorer",
    "SentenceVerdict",
    "Summary",
    "__version__",
    "available_scorers",
    "draw_label_plan",
    "get_scorer",
    "judge_answer",
    "labelled_set_agreement",
    "labelled_set_agreement_html",
    "load_candidates",
    "load_inputs",
    "load_results",
    "prepare_configs",
    "register_scorer",
    "results_or_run",
    "retrieve",
    "run_candidates",
    "run_comparison",
    "show_chart",
]
