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
