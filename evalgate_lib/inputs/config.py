"""Run configurations and the fairness contract.

A before/after comparison is only meaningful if the two runs differ in exactly
what is being evaluated. A configuration file therefore has three parts:
``[chunking]`` and ``[prompt]`` (free to differ), and ``[shared]`` (corpus, gold
set, models, top-k, decoding options), which :func:`check_fairness` requires to
be identical, key by key, naming every key that is not.
"""

from __future__ import annotations

import difflib
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.errors import FairnessError, InputError
from evalgate_lib.inputs.options import DEFAULT_STOP, GenerationOptions
from evalgate_lib.inputs.prompts import validate_template
from evalgate_lib.inputs.structured import parse_toml, read_bytes
from evalgate_lib.text.matching import canonical

#: Top-level keys (and tables) that may differ between the two configurations.
VARIABLE_KEYS = ("name", "description", "chunking", "prompt")
_REQUIRED_SHARED = ("corpus", "gold", "top_k")
#: Types of the numeric [shared] settings (TOML gives int or float; bools are refused).
_SHARED_TYPES: dict[str, type | tuple[type, ...]] = {
    "top_k": int,
    "seed": int,
    "max_tokens": int,
    "num_ctx": int,
    "temperature": (int, float),
}
#: Which matching rule decides ``correct`` (every rule's verdict is always recorded; the
#: rules are in :mod:`evalgate_lib.judging.correctness`): ``claim`` (default) the accepted value
#: stated outside any decline, fluent declines recognised, only competing values given as the
#: answer count against it; ``token`` token-bounded containment with the conflicting-values and
#: bare-number rules (the default before fluent answers were measured); ``raw`` EvalGate 0.1's plain
#: substring containment; ``normalised`` token-bounded containment after normalisation.
ANSWER_MATCHING = ("claim", "token", "raw", "normalised")
DEFAULT_ANSWER_MATCHING = "claim"
#: What ``raw`` compares, as a run or a score that decides with it says: every other rule reads text as people
#: read it (case folded, composed, invisible characters dropped: :func:`evalgate_lib.text.tokens.fold`).
RAW_MATCHING = (
    "byte-exact containment of an accepted string, case folded only: no Unicode normalisation, so an accent spelt "
    "decomposed (NFD), a soft hyphen or a zero-width character is a difference; the other rules compare text as "
    "people read it"
)
#: The sentence scorer a config gets when ``[shared] sentence_scorer`` is absent
#: (a name registered in :mod:`evalgate_lib.judging.sentence_scorers`, checked when the run starts).
DEFAULT_SENTENCE_SCORER = "prose"

#: Every key a config may hold, table by table. Anything else is refused with the
#: nearest valid key: a typo must never run silently with a default.
TOP_LEVEL_KEYS = ("name", "description", "shared", "chunking", "prompt")
SHARED_KEYS = (
    "corpus",
    "gold",
    "top_k",
    "temperature",
    "seed",
    "max_tokens",
    "num_ctx",
    "answer_matching",
    "sentence_scorer",
    "stop",
    "models",
)
PROMPT_KEYS = ("template",)
#: ``timeout`` (seconds one Ollama request may wait for its answer) and ``retries`` (tries after a
#: transient failure) change how long a run waits, never an answer: they are checked here, shared
#: like every [shared] key, and kept out of every cache key (``--timeout``/``--retries`` override them).
MODEL_KEYS: dict[str, tuple[str, ...]] = {"ollama": ("generator", "embedder", "timeout", "retries")}


def check_keys(table: Mapping[str, Any], known: Sequence[str], file: Path | str, where: str) -> None:
    """Refuse any key of ``table`` not in ``known``, naming the file, the table, the key and the nearest valid key."""
    for key in table:
        if key not in known:
            near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f"; valid keys: {', '.join(known)}"
            raise InputError(f"{file}: unknown key {key!r} in {where}{hint}")


#: Ceilings of the waiting options. One request waiting more than a day is a wedged server, not a slow
#: one, and a larger number (``1e308``) would overflow the socket timeout; a hundred retries with
#: exponential backoff already wait for days.
MAX_TIMEOUT = 86_400.0
MAX_RETRIES = 100


def waiting_problem(key: str, value: object, shown: object = None) -> str | None:
    """What is wrong with a ``timeout`` (seconds, 0 < t <= a day) or ``retries`` (0..100) value, else ``None``.

    The one rule behind ``[shared.models.ollama] timeout/retries`` and ``--timeout``/``--retries``;
    ``shown`` is the value as the user wrote it (the option's text), when it differs from ``value``.
    """
    got = repr(value if shown is None else shown)
    if isinstance(value, bool) or (value is not None and not isinstance(value, (int, float))):
        value = None
    if key == "timeout" and not (value is not None and 0 < value <= MAX_TIMEOUT):  # NaN fails this too
        return f"timeout must be a number of seconds > 0 and at most {MAX_TIMEOUT:,.0f} (a day), got {got}"
    if key == "retries" and not (isinstance(value, int) and 0 <= value <= MAX_RETRIES):
        return f"retries must be a whole number from 0 to {MAX_RETRIES}, got {got}"
    return None


def check_waiting(table: Mapping[str, Any], where: str) -> None:
    """Refuse a ``timeout`` or ``retries`` outside :func:`waiting_problem`'s rule, naming where it was set."""
    for key in ("timeout", "retries"):
        problem = None if key not in table else waiting_problem(key, table[key])
        if problem is not None:
            raise InputError(f"{where} {problem}")


@dataclass(frozen=True)
class RunConfig:
    """One parsed configuration file."""

    name: str
    description: str
    path: Path
    sha256: str
    corpus: Path
    gold: Path
    top_k: int
    generation: GenerationOptions
    models: dict[str, dict[str, Any]]
    chunking: dict[str, Any]
    prompt_template: str
    answer_matching: str = DEFAULT_ANSWER_MATCHING
    sentence_scorer: str = DEFAULT_SENTENCE_SCORER
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


#: Inclusive bounds ``(low, high or None, why)`` of the numeric [shared] settings. ``top_k`` and
#: ``max_tokens`` have no fixed ceiling: whether top_k chunks, the prompt and max_tokens fit the
#: generator's context together is checked, with the numbers, once the corpus is chunked
#: (:mod:`evalgate_lib.run.context_fit`), before any model is called.
BOUNDS: dict[str, tuple[float, float | None, str]] = {
    "top_k": (1, None, ""),
    "max_tokens": (1, None, ""),
    "num_ctx": (64, 1_048_576, "; no generator EvalGate drives has a longer context"),
    "temperature": (0.0, 2.0, "; above 2 decoding is close to uniform random text"),
    "seed": (0, 2**32 - 1, "; a negative seed asks Ollama for a random one, which makes the run unrepeatable"),
}


def check_bounds(shared: Mapping[str, Any], file: Path | str) -> None:
    """Refuse a numeric [shared] setting outside :data:`BOUNDS` (or NaN / infinity), naming file, key and value.

    Also ``max_tokens < num_ctx``: the answer is generated inside the context window, after
    the prompt, so an answer budget as large as the window leaves no room for the prompt.
    """
    for key, (low, high, why) in BOUNDS.items():
        value = shared.get(key)
        if value is None:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{file}: [shared] {key} must be a finite number, got {value!r}")
        if value < low:
            reason = why if key == "seed" else ""
            raise InputError(f"{file}: [shared] {key} must be at least {low}, got {value!r}{reason}")
        if high is not None and value > high:
            raise InputError(f"{file}: [shared] {key} must be at most {high:,}, got {value:,}{why}")
    max_tokens, num_ctx = shared.get("max_tokens"), shared.get("num_ctx", GenerationOptions.num_ctx)
    if max_tokens is not None and max_tokens >= num_ctx:
        raise InputError(
            f"{file}: [shared] max_tokens {max_tokens:,} must be smaller than num_ctx {num_ctx:,} "
            "(the answer is generated inside the context window, after the prompt)"
        )


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` → ``{"a.b": 1}``: the key names the fairness message uses."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def load_config(path: str | Path) -> RunConfig:
    """Parse a TOML configuration; paths in ``[shared]`` are relative to the file's folder."""
    file = Path(path)
    data = read_bytes(file, "config file", "TOML file")
    raw = parse_toml(data, str(file))
    check_keys(raw, TOP_LEVEL_KEYS, file, "the top level")
    for table in ("shared", "chunking", "prompt"):
        if not isinstance(raw.get(table), dict):
            raise InputError(f"{file}: missing the [{table}] table")
    shared = raw["shared"]
    check_keys(shared, SHARED_KEYS, file, "[shared]")
    check_keys(raw["prompt"], PROMPT_KEYS, file, "[prompt]")
    models = shared.get("models", {})
    if not isinstance(models, dict):
        raise InputError(f"{file}: [shared] models must be a table ([shared.models.ollama])")
    check_keys(models, tuple(MODEL_KEYS), file, "[shared.models]")
    for backend, table in models.items():
        if not isinstance(table, dict):
            raise InputError(f"{file}: [shared.models.{backend}] must be a table")
        check_keys(table, MODEL_KEYS[backend], file, f"[shared.models.{backend}]")
        check_waiting(table, f"{file}: [shared.models.{backend}]")
    missing = [k for k in _REQUIRED_SHARED if k not in shared]
    if missing:
        raise InputError(f"{file}: [shared] is missing {missing}")
    template = raw["prompt"].get("template")
    if not isinstance(template, str):
        raise InputError(f"{file}: [prompt] needs a 'template' string")
    validate_template(template, str(file))
    if "method" not in raw["chunking"]:
        raise InputError(
            f"{file}: [chunking] needs a 'method' (fixed, markdown, sentence, or your own as 'package.module:function')"
        )
    base = file.parent
    for key, kinds in _SHARED_TYPES.items():
        value = shared.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
            kind = "a whole number" if kinds is int else "a number"
            raise InputError(f"{file}: [shared] {key} must be {kind}, got {value!r}")
    check_bounds(shared, file)
    stop = shared.get("stop", list(DEFAULT_STOP))
    if not isinstance(stop, list) or not all(isinstance(x, str) and x for x in stop):
        raise InputError(f"{file}: [shared] stop must be a list of non-empty strings, got {stop!r}")
    numeric = ("temperature", "seed", "max_tokens", "num_ctx")
    generation = GenerationOptions(**{k: shared[k] for k in numeric if k in shared}, stop=tuple(stop))
    top_k = shared["top_k"]
    matching = shared.get("answer_matching", DEFAULT_ANSWER_MATCHING)
    if matching not in ANSWER_MATCHING:
        raise InputError(f"{file}: [shared] answer_matching must be one of {ANSWER_MATCHING}, got {matching!r}")
    scorer = shared.get("sentence_scorer", DEFAULT_SENTENCE_SCORER)
    if not isinstance(scorer, str) or not scorer:
        raise InputError(f"{file}: [shared] sentence_scorer must be a scorer name, got {scorer!r}")
    return RunConfig(
        name=canonical(str(raw.get("name") or file.stem)),  # a name is an id: one Unicode spelling
        description=str(raw.get("description", "")),
        path=file,
        sha256=hashlib.sha256(data).hexdigest(),
        corpus=(base / shared["corpus"]).resolve(),
        gold=(base / shared["gold"]).resolve(),
        top_k=top_k,
        generation=generation,
        models={k: dict(v) for k, v in shared.get("models", {}).items()},
        chunking=dict(raw["chunking"]),
        prompt_template=template,
        answer_matching=matching,
        sentence_scorer=scorer,
        raw=raw,
    )


def shared_settings(config: RunConfig) -> dict[str, Any]:
    """The flattened ``[shared]`` table with paths resolved, i.e. what must be equal."""
    flat = flatten(config.raw["shared"], "shared.")
    flat["shared.corpus"] = str(config.corpus)
    flat["shared.gold"] = str(config.gold)
    return flat


def differences(a: RunConfig, b: RunConfig) -> dict[str, tuple[Any, Any]]:
    """Every flattened key whose value differs between the two configurations."""
    fa, fb = flatten(a.raw), flatten(b.raw)
    fa.update(shared_settings(a))
    fb.update(shared_settings(b))
    return {k: (fa.get(k), fb.get(k)) for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)}


def check_fairness(a: RunConfig, b: RunConfig) -> dict[str, tuple[Any, Any]]:
    """Refuse a pair that differs outside chunking and prompt; return the allowed differences.

    The error names each offending key with both values, so the user sees at a
    glance what to make equal.
    """
    diffs = differences(a, b)
    unfair = {k: v for k, v in diffs.items() if k.split(".")[0] not in VARIABLE_KEYS}
    if unfair:
        lines = "\n".join(f"  {k}: {va!r} ({a.path.name}) vs {vb!r} ({b.path.name})" for k, (va, vb) in unfair.items())
        raise FairnessError(
            f"configs {a.path} and {b.path} may differ only in [chunking] and [prompt], "
            f"but these shared keys differ:\n{lines}"
        )
    if a.name == b.name:
        raise InputError(f"configs {a.path} and {b.path} have the same name {a.name!r}; names label the results")
    return diffs
