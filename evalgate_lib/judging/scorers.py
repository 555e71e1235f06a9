"""The one registry of sentence scorers: every name a config may give to ``sentence_scorer``.

The built-in scorers are listed here, explicitly, in :data:`BUILT_IN`: a reader sees in one
place which names exist and which class each one builds, and no scorer exists because some
module happened to be imported first. A user's own scorer joins through
:func:`register_scorer` (a notebook or a ``module:function`` plug-in), and may never shadow a
name by accident.
"""

from __future__ import annotations

from typing import Any, Callable

from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.inputs.config import DEFAULT_SENTENCE_SCORER
from evalgate_lib.judging.sentence_scorers import (
    LexicalCoverageScorer,
    SentenceScorer,
    TransformersNLIScorer,
    scorer_id,
)
from evalgate_lib.judging.support import ProseSupportScorer

#: The scorer a config gets when it names none (chosen by measured agreement with reviewers' labels).
DEFAULT_SCORER = DEFAULT_SENTENCE_SCORER

ScorerFactory = Callable[..., SentenceScorer]

#: Every scorer EvalGate ships, by the name configs use.
BUILT_IN: dict[str, ScorerFactory] = {
    ProseSupportScorer.name: ProseSupportScorer,
    LexicalCoverageScorer.name: LexicalCoverageScorer,
    TransformersNLIScorer.name: TransformersNLIScorer,
}

_registered: dict[str, ScorerFactory] = dict(BUILT_IN)


def register_scorer(name: str, factory: ScorerFactory, *, replace: bool = False) -> None:
    """Make ``factory`` available as ``get_scorer(name, **kwargs)``.

    Registering an existing name is an error unless ``replace=True``, so two plug-ins cannot
    silently shadow each other; a built-in name can never be replaced, because published rows
    name their scorer and must keep meaning the scorer EvalGate ships.
    """
    if not name:
        raise ValueError("scorer name must be non-empty")
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in scorer and cannot be replaced; register yours under another name")
    if name in _registered and not replace:
        raise ValueError(f"a scorer named {name!r} is already registered (pass replace=True to override)")
    _registered[name] = factory


def available_scorers() -> list[str]:
    """Registered scorer names (built-in and plug-ins), sorted."""
    return sorted(_registered)


def get_scorer(name: str, **kwargs: Any) -> SentenceScorer:
    """A new scorer instance; ``kwargs`` go to its factory (e.g. ``model_path``).

    An unknown name is a user error (it comes from a config file) and raises
    :class:`InputError` listing the registered names.
    """
    try:
        factory = _registered[name]
    except KeyError:
        known = ", ".join(available_scorers())
        removed = REMOVED_SCORERS.get(name)
        why = f" ({removed})" if removed else ""
        raise InputError(f"unknown sentence scorer {name!r}{why}; available: {known}") from None
    return factory(**kwargs)


#: Scorers EvalGate once shipped, and what took their place: a config that still names one is told, not just refused.
REMOVED_SCORERS: dict[str, str] = {
    "span": "removed with prose@4: its span rule is the prose scorer's S.words, docs/judge.md",
}


def known_scorer(scorer: str) -> SentenceScorer | None:
    """The scorer a row or manifest names (``name`` or ``name@version``), or ``None`` when it is unknown here
    or cannot be built without arguments (a model scorer): views describe it without failing."""
    try:
        return get_scorer(scorer.split("@")[0])
    except (InputError, BackendError, TypeError):
        return None


def scorer_floor(scorer: str) -> float | None:
    """The support score a scorer (``name`` or ``name@version``) calls supported, if it has one.

    Views draw scores on the scorer's own scale.
    """
    return getattr(known_scorer(scorer), "floor", None)


def judging_manifest(scorer_name: str, matching: str, row_schema: int) -> dict[str, Any]:
    """The manifest's ``judging`` section, built in one place for runs and scored logs alike."""
    return {
        "row_schema": row_schema,
        "sentence_scorer": scorer_id(get_scorer(scorer_name)),
        "answer_matching": matching,
    }
