"""What a run will cost before it starts: model calls cached and to make, and how long those take.

``evalgate run`` prints one line before its first generation (:func:`format_plan`), then a
progress bar whose total is the generations still to make and whose "left" figure comes
from :func:`seconds_per_call`. Nothing here reaches a results file: the estimate describes
this machine at this moment, not the evaluation.

The per-generation time starts from a prior per backend and is refined by the measured
rate as calls complete:

* ``local`` (SmolLM2 on the CPU): 4 s. Measured cold runs of the shipped pair on 2 cores:
  202 generations in 749.1 s on an idle machine (3.7 s each) and in 861 s with other work
  sharing the cores (4.3 s each); see docs/backends.md, "Runtime measurements".
* ``ollama``: no prior, since it depends on the server's hardware and model; the estimate
  starts after the first :data:`MIN_MEASURED` calls.

The prior counts as :data:`PRIOR_WEIGHT` calls already measured, so one slow first call
(the model loading) does not swing the estimate, and the measured rate takes over as the
calls add up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: Seconds per generation assumed before any is measured, per backend (see the module docstring).
PRIOR_SECONDS_PER_GENERATION: dict[str, float] = {"local": 4.0}
#: How many measured calls the prior is worth.
PRIOR_WEIGHT = 3
#: Without a prior, the calls measured before an estimate is given.
MIN_MEASURED = 3


@dataclass(frozen=True)
class CallPlan:
    """Model calls of a run, counted before its first generation (over both configs)."""

    generations: int
    generations_cached: int
    embed_batches: int
    embed_batches_cached: int

    @property
    def to_make(self) -> int:
        """Generations not in the cache: the ones that cost time."""
        return self.generations - self.generations_cached

    def as_dict(self) -> dict[str, int]:
        return {
            "generations": self.generations,
            "generations_cached": self.generations_cached,
            "embed_batches": self.embed_batches,
            "embed_batches_cached": self.embed_batches_cached,
        }


def seconds_per_call(prior: float | None, made: int, elapsed: float) -> float | None:
    """Estimated seconds per generation after ``made`` generations took ``elapsed`` seconds of wall time.

    With a prior: ``(prior * PRIOR_WEIGHT + elapsed) / (PRIOR_WEIGHT + made)``. Without one:
    ``elapsed / made`` once ``made >= MIN_MEASURED``, else ``None`` (no estimate yet). Wall time
    over completed calls is the throughput, so concurrent requests (``--jobs``) count as they should.
    """
    if prior is None:
        return elapsed / made if made >= MIN_MEASURED else None
    return (prior * PRIOR_WEIGHT + elapsed) / (PRIOR_WEIGHT + made)


def format_duration(seconds: float) -> str:
    """``208`` → ``3 min 28 s``; ``45.4`` → ``45 s``; ``3725`` → ``1 h 2 min`` (seconds dropped past an hour)."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def format_rate(seconds: float) -> str:
    """Seconds per call for a sentence: two significant figures below 10 (``4``, ``4.3``, ``0.27``), whole above."""
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.2g}"


def time_left(per_call: float | None, remaining: int) -> str:
    """The progress bar's estimate of the rest: ``about 3 min 28 s left``, or when it will have one."""
    if per_call is None:
        return f"estimate after the first {MIN_MEASURED} calls"
    return f"about {format_duration(per_call * remaining)} left"


def format_plan(plan: CallPlan, prior: float | None, at_once: int = 1) -> str:
    """The line ``evalgate run`` prints before its first generation.

    ``model calls: 202 generations (150 cached, 52 to make) + 14 embedding batches (14 cached);
    estimated 3 min 28 s at ~4 s per generation on this backend``. Embeddings are done by the
    time the line is printed (the prompts depend on retrieval), so those not cached read "made".
    ``at_once`` generations made at the same time (worker processes) divide the estimate, and
    the line says so: ``…; estimated 1 min 44 s at ~4 s per generation, 2 at once, on this backend``.
    """
    embed_made = plan.embed_batches - plan.embed_batches_cached
    embeds = f"{plan.embed_batches_cached} cached" + (f", {embed_made} made" if embed_made else "")
    line = (
        f"model calls: {plan.generations} generations ({plan.generations_cached} cached, {plan.to_make} to make)"
        f" + {plan.embed_batches} embedding batches ({embeds})"
    )
    if not plan.to_make:
        return line + "; nothing to generate"
    if prior is None:
        return line + f"; estimate after the first {MIN_MEASURED} calls"
    together = f", {at_once} at once," if at_once > 1 else ""
    return (
        line + f"; estimated {format_duration(prior * plan.to_make / at_once)} at ~{format_rate(prior)} s per"
        f" generation{together} on this backend"
    )


class GenerationProgress:
    """One bar over the generations still to make, both configs, with an estimate of the time left.

    Its total is known before the first generation (the cached answers are counted first), so
    it never grows; a cached answer does not move it. The estimate starts from the backend's
    prior and follows the measured rate (:func:`~evalgate_lib.run.estimate.seconds_per_call`).
    """

    def __init__(self, total: int, prior: float | None, enabled: bool) -> None:
        from tqdm.auto import tqdm

        self.total = total
        self.prior = prior
        self.made = 0
        self.started = time.perf_counter()
        self.bar = tqdm(
            total=total,
            desc="generating",
            unit="call",
            disable=not enabled or total == 0,
            leave=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",
            postfix=time_left(prior, total),  # tqdm puts ", " before it
        )

    def made_one(self) -> None:
        """A generation came back from the model (not from the cache)."""
        self.made += 1
        per_call = seconds_per_call(self.prior, self.made, time.perf_counter() - self.started)
        self.bar.set_postfix_str(time_left(per_call, max(self.total - self.made, 0)), refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
