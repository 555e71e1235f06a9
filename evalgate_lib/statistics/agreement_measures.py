"""How far EvalGate's automatic judgements agree with human reviewers' labels.

Each automatic judgement (correct, hallucination, grounded_but_wrong, ...) is a binary prediction per
answer; the reviewer's label is the reference. Everything here is a pure function of its inputs and a
seed, and every published number is made by exactly one function (the point values by
:func:`agreement`, :func:`precision`, :func:`recall` and :func:`cohen_kappa`; the intervals by
:func:`bootstrap_agreement`, which calls those same functions on each resample), rounded to 6 places so
that a rerun is byte-identical.

Convention: *positive* means ``True``; ``auto`` is the prediction and ``human`` the reference, so
``fp`` counts answers EvalGate flagged and the reviewer did not.

:func:`census_rate` gives a headline rate when every answer is labelled: the labels' own, with the
exact interval of a census (the rates a plan's labels correct are
:mod:`evalgate_lib.statistics.label_estimates`').
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from scipy.stats import binomtest

from evalgate_lib.statistics.paired_tests import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED

# Upper bound on index draws materialised at once; depends on n only, so results depend on (data, seed).
_MAX_DRAWS_PER_BATCH = 2_000_000

STATISTICS = ("agreement", "precision", "recall", "kappa")


def _round(x: float | None) -> float | None:
    """Round to 6 places for byte-identical output; ``None`` and NaN stay undefined (``None``)."""
    return None if x is None or math.isnan(x) else round(float(x), 6)


def _bools(values: Sequence[bool | int], side: str) -> list[bool]:
    """Strict booleans: ``True/False`` or ``0/1``; ``None`` is refused because a missing label must be
    dropped by the caller explicitly, not counted as a negative."""
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool | np.bool_) or v in (0, 1):
            out.append(bool(v))
        else:
            raise ValueError(f"{side}[{i}] = {v!r} is not a binary verdict (expected bool, 0 or 1)")
    return out


def _check_pair(auto: Sequence[bool | int], human: Sequence[bool | int]) -> tuple[list[bool], list[bool]]:
    if len(auto) != len(human):
        raise ValueError(f"agreement needs paired verdicts: auto has {len(auto)} values, human has {len(human)}")
    return _bools(auto, "auto"), _bools(human, "human")


@dataclass(frozen=True)
class Confusion:
    """2×2 table of automatic prediction against human reference."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def confusion(auto: Sequence[bool | int], human: Sequence[bool | int]) -> Confusion:
    """Count the four cells; ``auto[i]`` and ``human[i]`` judge the same answer."""
    a, h = _check_pair(auto, human)
    tp = sum(1 for x, y in zip(a, h, strict=True) if x and y)
    fp = sum(1 for x, y in zip(a, h, strict=True) if x and not y)
    fn = sum(1 for x, y in zip(a, h, strict=True) if not x and y)
    return Confusion(tp, fp, fn, len(a) - tp - fp - fn)


def agreement(c: Confusion) -> float | None:
    """Share of items where auto and human agree, ``(tp + tn) / n``; ``None`` for an empty table."""
    return None if c.n == 0 else _round((c.tp + c.tn) / c.n)


def precision(c: Confusion) -> float | None:
    """``tp / (tp + fp)``: of the answers EvalGate flagged, the share the reviewer agrees with.

    ``None`` when EvalGate flagged nothing (0/0), rather than 0 or 1, which would both be inventions.
    """
    flagged = c.tp + c.fp
    return None if flagged == 0 else _round(c.tp / flagged)


def recall(c: Confusion) -> float | None:
    """``tp / (tp + fn)``: of the answers the reviewer marked positive, the share EvalGate caught.

    ``None`` when the reviewer marked nothing positive (0/0).
    """
    positives = c.tp + c.fn
    return None if positives == 0 else _round(c.tp / positives)


def cohen_kappa(c: Confusion) -> float | None:
    """Cohen's κ = (p_o − p_e) / (1 − p_e): agreement beyond what the two marginals give by chance.

    Computed in exact integer arithmetic as the equivalent
    ``2·(tp·tn − fp·fn) / ((tp + fp)·(fp + tn) + (tp + fn)·(fn + tn))``, so there is one division and no
    float cancellation.

    Convention for the undefined case: when p_e = 1 — both sides put every item in the *same* single
    class (e.g. all true negatives) — κ is 0/0 and this returns ``None`` (sklearn returns NaN with a
    warning). Agreement is then 1 but says nothing about discrimination, and neither 0 nor 1 would be
    honest. When both sides are constant but in *different* classes, p_e = 0 and κ = 0 is well defined.
    An empty table is also ``None``.
    """
    denominator = (c.tp + c.fp) * (c.fp + c.tn) + (c.tp + c.fn) * (c.fn + c.tn)
    if c.n == 0 or denominator == 0:
        return None
    return _round(2 * (c.tp * c.tn - c.fp * c.fn) / denominator)


_STAT_FUNCTIONS = {"agreement": agreement, "precision": precision, "recall": recall, "kappa": cohen_kappa}


#: Below this many items in a statistic's denominator a percentile bootstrap does not describe its uncertainty:
#: 8 labels that all agree resample to 8 labels that all agree, and "1.000 [1.000, 1.000]" reads as certainty.
SMALL_SAMPLE = 30

#: How an :class:`Interval` was made: ``bootstrap`` (percentile, over items); ``exact`` (Clopper-Pearson over the
#: statistic's own denominator: a share on a small sample, or one whose resamples all give one value);
#: ``too few labels`` (κ over fewer than :data:`SMALL_SAMPLE` items: no interval is given); ``no spread`` (κ
#: whose resamples all give one value: no interval is given); ``undefined`` (the point value itself is 0/0).
METHODS = ("bootstrap", "exact", "too few labels", "no spread", "undefined")


@dataclass(frozen=True)
class Interval:
    """A point value with its interval, and how the interval was made (:data:`METHODS`).

    ``resamples_used`` counts the resamples in which the statistic was defined (e.g. precision is
    undefined in a resample that happens to contain no flagged answer); a bootstrap interval is taken over
    those only, and is ``None`` when none was usable or the point value itself is undefined.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    resamples_used: int
    method: str = "bootstrap"


def _check_settings(resamples: int, confidence: float) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def _bootstrap(
    auto: Sequence[bool | int], human: Sequence[bool | int], seed: int, resamples: int, confidence: float
) -> tuple[Confusion, dict[str, Interval]]:
    """Point values and percentile intervals, resampling items (pairs) with replacement.

    Method, as in :func:`evalgate_lib.statistics.paired_tests.paired_bootstrap_ci`: ``resamples`` index
    vectors of length n from ``numpy.random.default_rng(seed)`` in batches sized from n only; for each,
    the four cell counts (vectorised) and then each statistic from the *same* scalar function that makes
    the point value; the interval is the ``(1 ± confidence) / 2`` percentiles (linear interpolation) of
    the defined values, rounded to 6 places.
    """
    _check_settings(resamples, confidence)
    table = confusion(auto, human)
    points = {name: fn(table) for name, fn in _STAT_FUNCTIONS.items()}
    n = table.n
    if n == 0:
        return table, {name: Interval(None, None, None, 0, "undefined") for name in STATISTICS}

    a, h = _check_pair(auto, human)
    # cell code per item: 3 = tp, 2 = fp, 1 = fn, 0 = tn
    codes = 2 * np.array(a, dtype=np.int64) + np.array(h, dtype=np.int64)
    rng = np.random.default_rng(seed)
    batch = max(1, _MAX_DRAWS_PER_BATCH // n)
    cells = np.empty((resamples, 4), dtype=np.int64)
    for start in range(0, resamples, batch):
        rows = min(batch, resamples - start)
        drawn = codes[rng.integers(0, n, size=(rows, n))]
        for column, code in enumerate((3, 2, 1, 0)):
            cells[start : start + rows, column] = (drawn == code).sum(axis=1)

    samples: dict[str, list[float]] = {name: [] for name in STATISTICS}
    for tp, fp, fn, tn in cells.tolist():
        resampled = Confusion(tp, fp, fn, tn)
        for name, stat in _STAT_FUNCTIONS.items():
            value = stat(resampled)
            if value is not None:
                samples[name].append(value)

    alpha = 1.0 - confidence
    intervals = {}
    for name in STATISTICS:
        values = samples[name]
        if points[name] is None or not values:
            intervals[name] = Interval(points[name], None, None, len(values), "undefined")
            continue
        low, high = np.percentile(np.array(values), [100.0 * alpha / 2.0, 100.0 * (1.0 - alpha / 2.0)])
        found = Interval(points[name], _round(float(low)), _round(float(high)), len(values))
        intervals[name] = small_sample_interval(name, table, found, confidence)
    return table, intervals


#: Each share's numerator and denominator in a table (κ is not a share: it has no exact binomial interval).
_SHARES = {
    "agreement": lambda c: (c.tp + c.tn, c.n),
    "precision": lambda c: (c.tp, c.tp + c.fp),
    "recall": lambda c: (c.tp, c.tp + c.fn),
}


def small_sample_interval(name: str, table: Confusion, found: Interval, confidence: float) -> Interval:
    """``found`` (a percentile bootstrap interval of statistic ``name`` over ``table``), or what replaces it where
    a bootstrap cannot describe the uncertainty: a denominator under :data:`SMALL_SAMPLE`, or no spread.

    A share (agreement, precision, recall) then gets the exact Clopper-Pearson interval of its count over its
    own denominator: 8 of 8 labels agreeing is 1.000 [0.631, 1.000], not [1.000, 1.000]. κ has no exact
    interval; it keeps its value and gets none, saying why (``too few labels`` or ``no spread``).
    """
    if found.value is None or found.ci_low is None:
        return found
    degenerate = found.ci_low == found.ci_high
    if name in _SHARES:
        k, n = _SHARES[name](table)
        if n >= SMALL_SAMPLE and not degenerate:
            return found
        exact = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
        return Interval(found.value, _round(exact.low), _round(exact.high), found.resamples_used, "exact")
    if table.n < SMALL_SAMPLE:
        return Interval(found.value, None, None, found.resamples_used, "too few labels")
    if degenerate:
        return Interval(found.value, None, None, found.resamples_used, "no spread")
    return found


def interval_text(stat: Interval | Mapping[str, Any], digits: int = 3) -> str:
    """One statistic with its interval as every view prints it (the CLI's tables, the report, the README's figures).

    ``0.700 [0.550, 0.820]``; a κ without an interval says why (``0.000 (too few labels to say)``); "—" for a
    value that is undefined (0/0). ``stat`` is an :class:`Interval` or its dict (``JudgementAgreement.to_dict()``).
    """
    item = asdict(stat) if isinstance(stat, Interval) else stat
    value = item.get("value")
    if value is None:
        return "—"
    if item.get("ci_low") is None or item.get("ci_high") is None:
        why = {"too few labels": "too few labels to say", "no spread": "no spread in the resamples to say"}
        reason = why.get(str(item.get("method")))
        return f"{value:.{digits}f}" + (f" ({reason})" if reason else " [—]")
    return f"{value:.{digits}f} [{item['ci_low']:.{digits}f}, {item['ci_high']:.{digits}f}]"


def bootstrap_agreement(
    auto: Sequence[bool | int],
    human: Sequence[bool | int],
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Agreement, precision, recall and κ with percentile bootstrap intervals, as a JSON-friendly dict.

    Keys: ``n, tp, fp, fn, tn, seed, resamples, confidence`` and, for each of
    ``agreement, precision, recall, kappa``, a dict ``{value, ci_low, ci_high, resamples_used}``
    (see :class:`Interval`; undefined values are ``None``). Deterministic for fixed inputs and seed.
    """
    table, intervals = _bootstrap(auto, human, seed, resamples, confidence)
    out: dict[str, Any] = {"n": table.n, **asdict(table), "seed": seed, "resamples": resamples}
    out["confidence"] = confidence
    out.update({name: asdict(intervals[name]) for name in STATISTICS})
    return out


def interrater(
    pass1: Sequence[bool | int],
    pass2: Sequence[bool | int],
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """Agreement and κ between two independent labelling passes over the same answers.

    This is the ceiling for any automatic judgement: EvalGate cannot be expected to agree with a reviewer
    more than two careful reviewers agree with each other. Precision and recall are left out because
    neither pass is the reference. Keys: ``n, tp, fp, fn, tn`` (pass 1 in the "auto" role), ``seed,
    resamples, confidence, agreement, kappa`` — the same values :func:`bootstrap_agreement` gives.
    """
    full = bootstrap_agreement(pass1, pass2, seed=seed, resamples=resamples, confidence=confidence)
    return {key: value for key, value in full.items() if key not in ("precision", "recall")}


@dataclass(frozen=True)
class JudgementAgreement:
    """One row of the agreement table: an automatic judgement measured against reviewers' labels."""

    name: str
    scorer: str
    confusion: Confusion
    agreement: Interval
    precision: Interval
    recall: Interval
    kappa: Interval
    seed: int
    resamples: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (for a report or ``summary.json``)."""
        return asdict(self)


def judgement_agreement(
    name: str,
    auto: Sequence[bool | int],
    human: Sequence[bool | int],
    scorer: str = "",
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> JudgementAgreement:
    """Build a :class:`JudgementAgreement` (``scorer`` names the sentence scorer behind the verdicts)."""
    table, iv = _bootstrap(auto, human, seed, resamples, confidence)
    return JudgementAgreement(
        name, scorer, table, iv["agreement"], iv["precision"], iv["recall"], iv["kappa"], seed, resamples, confidence
    )


def format_agreement_table(results: Sequence[JudgementAgreement]) -> str:
    """A fixed-width plain-text table, one row per judgement, with a footnote on how intervals were made.

    Values are shown to 3 places (the stored values keep 6); "—" marks an undefined statistic.
    """
    header = ["judgement", "answers", "TP", "FP", "FN", "TN", "agreement [CI]", "precision [CI]", "recall [CI]"]
    header.append("Cohen's κ [CI]")
    rows = [header]
    for r in results:
        label = f"{r.name} ({r.scorer})" if r.scorer else r.name
        c = r.confusion
        rows.append(
            [label, str(c.n), str(c.tp), str(c.fp), str(c.fn), str(c.tn)]
            + [interval_text(r.agreement), interval_text(r.precision), interval_text(r.recall), interval_text(r.kappa)]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]

    def line(row: list[str]) -> str:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells).rstrip()

    out = [line(rows[0]), "  ".join("-" * w for w in widths)] + [line(row) for row in rows[1:]]
    settings = sorted({(r.confidence, r.resamples, r.seed) for r in results})
    for confidence, resamples, seed in settings:
        out.append(
            f"{confidence:.0%} percentile bootstrap intervals over items, {resamples} resamples, seed {seed}; "
            "— = undefined (0/0)."
        )
    out += [small_sample_note()] if any(_small(r) for r in results) else []
    return "\n".join(out) + "\n"


def _small(result: JudgementAgreement) -> bool:
    return any(i.method in ("exact", "too few labels", "no spread") for i in (result.agreement, result.precision,
               result.recall, result.kappa))  # fmt: skip


def small_sample_note() -> str:
    """The footnote every view prints under a table holding an interval the small-sample rule replaced."""
    return (
        f"Where a share rests on fewer than {SMALL_SAMPLE} labels, or its resamples all give one value, its interval "
        "is the exact Clopper-Pearson interval of the count; κ there has no interval (too few labels to say)."
    )


@dataclass(frozen=True)
class CensusRate:
    """A headline rate when every answer is labelled (a census): the labels' own rate, beside the judge's.

    ``estimate`` is the labels' rate over the ``n_total`` answers; nothing was sampled, so it has no
    label-sampling error, and its interval (``ci_low``/``ci_high``) is the exact Clopper-Pearson
    interval of that share: the answers as a sample of the answers the system will give. It is not a
    prediction-powered estimate (which would add a label-sampling term a census does not have).
    ``naive_auto_rate`` is the judge's rate over the same answers.
    """

    estimate: float
    ci_low: float
    ci_high: float
    n_labelled: int
    n_total: int
    naive_auto_rate: float
    human_only_rate: float
    confidence: float = DEFAULT_CONFIDENCE
    interval: str = "Clopper-Pearson (exact binomial) over the answers"


def census_rate(
    auto: Sequence[bool | int], human: Sequence[bool | int], confidence: float = DEFAULT_CONFIDENCE
) -> CensusRate:
    """The labels' own rate of a census (every answer labelled), with its exact interval, beside the judge's.

    ``auto`` and ``human`` are the judge's and the reviewer's verdicts on the same answers, all of
    them. Example: 8 of 10 labels true, the judge 7 of 10: estimate 0.8, the Clopper-Pearson 95 %
    interval of 8/10 [0.443904, 0.974789]. Raises ``ValueError`` for no answers, unequal lengths or a
    confidence outside (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    f, y = _check_pair(auto, human)
    n = len(y)
    if n == 0:
        raise ValueError("census_rate needs at least one labelled answer")
    k = int(sum(y))
    interval = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return CensusRate(
        estimate=_round(k / n),  # type: ignore[arg-type]
        ci_low=_round(interval.low),  # type: ignore[arg-type]
        ci_high=_round(interval.high),  # type: ignore[arg-type]
        n_labelled=n,
        n_total=n,
        naive_auto_rate=_round(sum(f) / n),  # type: ignore[arg-type]
        human_only_rate=_round(k / n),  # type: ignore[arg-type]
        confidence=confidence,
    )
