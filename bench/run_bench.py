"""EvalGate benchmark: cache speed-up, scoring throughput, retrieval latency, harness overhead, concurrency.

Run from the repository root (not part of the test suite)::

    .venv/bin/python bench/run_bench.py                # full gold set on the embedded backend
    .venv/bin/python bench/run_bench.py --limit 10     # a quicker slice

Every figure is a ratio or a rate measured within this one run, so it compares
like with like on whatever machine runs it. It prints a table (figure, value,
goal, pass/fail) and writes the same table as JSON to ``bench/out/bench.json``.
See bench/README.md for what each figure measures.

Throughput against Ollama-like servers over real HTTP (answers/s for --jobs 1, 2, 4, 8 and
two hosts, against the ideal jobs / delay) is measured by bench/bench_throughput.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the fake Ollama server lives with the tests

import numpy as np  # noqa: E402

import evalgate_lib as eg  # noqa: E402
from evalgate_lib.generation.backends import resolve_backend  # noqa: E402
from evalgate_lib.inputs.config import load_config  # noqa: E402
from evalgate_lib.retrieval.index import VectorIndex  # noqa: E402
from evalgate_lib.run import parallel, pipeline  # noqa: E402
from evalgate_lib.run.pipeline import RANKING_DEPTH, RunOptions  # noqa: E402
from evalgate_lib.run.results import PUBLISHED_FILES  # noqa: E402

BASELINE = ROOT / "configs" / "baseline.toml"
CANDIDATE = ROOT / "configs" / "candidate.toml"

# Goals from issue 5.
GOAL_CACHE_SPEEDUP = 50.0
GOAL_SCORING_RATE = 10_000.0
GOAL_RETRIEVAL_MS = 50.0
GOAL_OVERHEAD = 0.05
GOAL_GENERATOR_SPEEDUP = 4.0


# ----------------------------------------------------------------------------- helpers


class ModelTimer:
    """Wall time spent inside a backend's ``embed`` and ``generate`` (model loading included)."""

    def __init__(self) -> None:
        self.seconds = {"embed": 0.0, "generate": 0.0}
        self.calls = {"embed": 0, "generate": 0}
        self._lock = threading.Lock()

    def wrap(self, kind: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds[kind] += time.perf_counter() - start
                    self.calls[kind] += 1

        return timed

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


def instrument(backend: Any) -> ModelTimer:
    """Time every model call of ``backend`` (the per-process instance the pipeline will use)."""
    timer = ModelTimer()
    backend.embed = timer.wrap("embed", backend.embed)
    backend.generate = timer.wrap("generate", backend.generate)
    return timer


@contextmanager
def recording_scores(calls: list[tuple[tuple, dict]]) -> Iterator[None]:
    """Record every ``score_answer`` call the pipeline makes, to replay them without a model."""
    original = pipeline.score_answer

    def record(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    pipeline.score_answer = record
    try:
        yield
    finally:
        pipeline.score_answer = original


def full_run(options: RunOptions, out: Path) -> tuple[float, dict[str, Any]]:
    """What ``evalgate run`` does (run both configs, summarise, write the folder); returns (seconds, stats)."""
    start = time.perf_counter()
    results = eg.run_comparison(BASELINE, CANDIDATE, options, out)
    return time.perf_counter() - start, dict(results.run_stats)


def identical(a: Path, b: Path) -> bool:
    return all((a / name).read_bytes() == (b / name).read_bytes() for name in PUBLISHED_FILES)


def scoring_memos() -> list[Any]:
    """Every ``functools`` memo of the modules that judge answers (tokens, refusals, words, passages, ...).

    Found by looking, not listed by hand, so a memo added to a scorer later is cleared
    too and cannot make the "fresh process" figure quietly warm.
    """
    import importlib
    import pkgutil

    import evalgate_lib.judging as judging
    from evalgate_lib.text import markup
    from evalgate_lib.text import tokens as text

    modules = [importlib.import_module(f"{judging.__name__}.{m.name}") for m in pkgutil.iter_modules(judging.__path__)]
    modules += [text, markup]
    found = {id(v): v for m in modules for v in vars(m).values() if callable(getattr(v, "cache_clear", None))}
    return list(found.values())


def clear_scoring_memos() -> None:
    """Forget the scorers' per-process memos, as a new process starts without them."""
    for memo in scoring_memos():
        memo.cache_clear()


def fresh_process_state() -> None:
    """Forget per-process memoisation so a second run reads everything from the cache folder."""
    parallel._caches.clear()
    clear_scoring_memos()


def figure(name: str, value: float, unit: str, goal: str, ok: bool | None, note: str = "") -> dict[str, Any]:
    return {"figure": name, "value": value, "unit": unit, "goal": goal, "pass": ok, "note": note}


# ------------------------------------------------------------------- generator figures

#: float32 FLOPs one core can retire per cycle, by the widest vector FMA its flags show:
#: 2 FMA units x lanes x 2 (a fused multiply-add is two FLOPs). AVX-512: 2 x 16 x 2 = 64;
#: AVX2 with FMA: 2 x 8 x 2 = 32. Two FMA units is an assumption: most server cores have
#: them, but some (e.g. Xeon Bronze/Silver with AVX-512) have one, which halves the peak.
FLOPS_PER_CYCLE = (("avx512f", 64, "AVX-512, 2 FMA units x 16 float32 lanes x 2"),
                   ("avx2", 32, "AVX2 + FMA, 2 FMA units x 8 float32 lanes x 2"),
                   ("avx", 16, "AVX, 1 add + 1 multiply unit x 8 float32 lanes"),
                   ("", 8, "SSE, 1 add + 1 multiply unit x 4 float32 lanes"))  # fmt: skip


@dataclass(frozen=True)
class CpuPeak:
    """A CPU's peak float32 rate and how it was read."""

    cores: int
    ghz: float
    flops_per_cycle: int
    how: str

    @property
    def gflops(self) -> float:
        return peak_gflops(self.cores, self.ghz, self.flops_per_cycle)


def peak_gflops(cores: int, ghz: float, flops_per_cycle: int) -> float:
    """Peak float32 GFLOP/s: every core retiring its widest FMAs on every cycle at ``ghz``."""
    return cores * ghz * flops_per_cycle


def share_of_peak(tokens_per_s: float, flops_per_token: float, peak: float) -> tuple[float, float]:
    """``(achieved GFLOP/s, achieved / peak)`` of a model doing ``flops_per_token`` per token."""
    achieved = tokens_per_s * flops_per_token / 1e9
    return achieved, achieved / peak


def flops_per_token(body: int, lm_head: int) -> tuple[int, int]:
    """``(prefill, decode)`` FLOPs per token of a decoder, from its parameter counts.

    A matrix of n parameters costs 2n FLOPs per token (a multiply and an add per weight).
    Prefill runs every prompt token through the ``body`` (all parameters but the embedding and
    the output head) and computes logits for the last position only, so per prompt token it
    is 2 x body (the one head product per prompt is left out). Decode runs the head for every
    generated token: 2 x (body + lm_head). The embedding lookup is a gather, no FLOPs; a head
    tied to the embedding is one matrix, counted once, as the head. Attention-score FLOPs
    (about 4 x layers x width x position per token) are left out, so the shares are lower bounds.
    """
    return 2 * body, 2 * (body + lm_head)


def parse_cpu(lscpu: str, cpuinfo: str, cpu_count: int) -> CpuPeak:
    """Cores, clock and FLOPs per cycle from ``lscpu`` and ``/proc/cpuinfo`` text (either may be empty).

    Cores: sockets x cores per socket (hyper-threads share a core's FMA units), else ``cpu_count``.
    Clock: ``CPU max MHz`` when lscpu gives it, else the nominal clock in the model name
    ("@ 2.60GHz"), else the current ``cpu MHz``. Sustained AVX-512 often runs below both,
    so this overstates the peak a little and the share is conservative.
    """

    def field(text: str, name: str) -> str | None:
        found = re.search(rf"^{re.escape(name)}\s*:\s*(.+?)\s*$", text, re.MULTILINE | re.IGNORECASE)
        return found.group(1) if found else None

    sockets, per_socket = field(lscpu, "Socket(s)"), field(lscpu, "Core(s) per socket")
    if sockets and per_socket and sockets.isdigit() and per_socket.isdigit():
        cores, core_how = int(sockets) * int(per_socket), f"{sockets} socket(s) x {per_socket} cores"
    else:
        cores, core_how = cpu_count, f"{cpu_count} CPUs"
    model = field(lscpu, "Model name") or field(cpuinfo, "model name") or ""
    nominal = re.search(r"@\s*([\d.]+)\s*GHz", model)
    if field(lscpu, "CPU max MHz"):
        ghz, clock_how = float(field(lscpu, "CPU max MHz") or 0) / 1000, "lscpu max MHz"
    elif nominal:
        ghz, clock_how = float(nominal.group(1)), "nominal clock in the model name"
    else:
        ghz, clock_how = float(field(cpuinfo, "cpu MHz") or 0) / 1000, "/proc/cpuinfo cpu MHz"
    flags = set((field(lscpu, "Flags") or field(cpuinfo, "flags") or "").split())
    per_cycle, unit_how = next(
        (n, why) for flag, n, why in FLOPS_PER_CYCLE if not flag or flag in flags and (flag != "avx2" or "fma" in flags)
    )
    how = f"{core_how} x {ghz:.2f} GHz ({clock_how}) x {per_cycle} FLOP/cycle ({unit_how})"
    return CpuPeak(cores, ghz, per_cycle, how)


def machine_cpu() -> CpuPeak:
    """This machine's :class:`CpuPeak` (``lscpu`` and ``/proc/cpuinfo`` where they exist)."""
    lscpu = ""
    if shutil.which("lscpu"):
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = ""
    return parse_cpu(lscpu, cpuinfo, os.cpu_count() or 1)


class GenerationMeter:
    """Prompt and generated tokens of the embedded generator, with prefill and decode timed apart.

    It wraps the loaded backend's ``_tokens``, which gets the chat-templated prompt already
    tokenised and cut to the context budget (the prompt tokens) and fills a clock with the time
    each new token was chosen. Prefill is the start of the call to the first token (one pass over
    the whole prompt); decode is the first token to the last, over the tokens after the first.
    """

    def __init__(self) -> None:
        self.generations = 0
        self.prompt_tokens = 0
        self.prefill_s = 0.0
        self.decode_tokens = 0
        self.decode_s = 0.0
        self.params: dict[str, Any] = {}
        self._lock = threading.Lock()

    def attach(self, backend: Any) -> None:
        """Meter ``backend``'s generator once it is loaded (it loads lazily, inside ``generate``)."""
        load = backend._load_generator

        def load_and_meter() -> None:
            load()
            if not getattr(backend._tokens, "metered", False):
                backend._tokens = self._metered(backend._tokens)
                self.params = parameter_counts(backend._kept_conversion() / "model.safetensors")

        backend._load_generator = load_and_meter

    def _metered(self, tokens: Callable[..., Any]) -> Callable[..., Any]:
        def metered(ids: Any, options: Any, clock: list[float] | None = None) -> Any:
            times: list[float] = []
            start = time.perf_counter()
            out = tokens(ids, options, times)
            if times:
                with self._lock:
                    self.generations += 1
                    self.prompt_tokens += len(ids)
                    self.prefill_s += times[0] - start
                    self.decode_tokens += len(times) - 1
                    self.decode_s += times[-1] - times[0]
            return out

        metered.metered = True  # type: ignore[attr-defined]
        return metered


def parameter_counts(safetensors_file: Path) -> dict[str, Any]:
    """Parameters of the causal LM in a safetensors file: total (a tied matrix once), embedding, head, the body between.

    The file holds a tied output head once (under one of the two names: ``save_model`` keeps one of
    a shared tensor's names), so its tensors sum to the total.
    """
    from safetensors import safe_open

    with safe_open(str(safetensors_file), framework="np") as tensors:
        shapes = {name: tensors.get_slice(name).get_shape() for name in tensors.keys()}  # noqa: SIM118
    sizes = {name: int(np.prod(shape)) for name, shape in shapes.items()}
    tied = not ("model.embed_tokens.weight" in sizes and "lm_head.weight" in sizes)
    embedding = sizes.get("model.embed_tokens.weight") or sizes["lm_head.weight"]
    head = embedding if tied else sizes["lm_head.weight"]
    total = sum(sizes.values())
    body = total - embedding - (0 if tied else head)
    return {"total": total, "embedding": embedding, "lm_head": head, "tied": tied, "body": body}


def generator_figures(meter: GenerationMeter, cpu: CpuPeak) -> list[dict[str, Any]]:
    """Prefill and decode tokens/s of the cold run's generations, and the share of the CPU's peak they reach."""
    if not meter.generations or not meter.params or meter.prefill_s <= 0:
        return []
    params = meter.params
    prefill_flops, decode_flops = flops_per_token(params["body"], params["lm_head"])
    prefill_rate = meter.prompt_tokens / meter.prefill_s
    decode_rate = meter.decode_tokens / meter.decode_s if meter.decode_s > 0 else 0.0
    prefill_gflops, prefill_share = share_of_peak(prefill_rate, prefill_flops, cpu.gflops)
    decode_gflops, decode_share = share_of_peak(decode_rate, decode_flops, cpu.gflops)
    counted = (
        f"{params['total'] / 1e6:.1f} M parameters ({params['embedding'] / 1e6:.1f} M embedding, "
        f"{'tied to' if params['tied'] else 'apart from'} the output head)"
    )
    peak = f"peak {cpu.gflops:.1f} GFLOP/s = {cpu.how}"
    return [
        figure(
            "generator prefill (prompt tokens/s)",
            round(prefill_rate, 1),
            "tokens/s",
            "",
            None,
            f"{meter.prompt_tokens} prompt tokens of {meter.generations} generation(s) in {meter.prefill_s:.2f} s "
            "(start of generate to the first token)",
        ),
        figure(
            "generator decode (generated tokens/s)",
            round(decode_rate, 1),
            "tokens/s",
            "",
            None,
            f"{meter.decode_tokens} tokens after each generation's first, in {meter.decode_s:.2f} s",
        ),
        figure(
            "generator prefill, share of CPU float32 peak",
            round(100 * prefill_share, 2),
            "%",
            "",
            None,
            f"{prefill_gflops:.1f} GFLOP/s = {prefill_rate:.1f} tokens/s x {prefill_flops / 1e6:.1f} MFLOP/token "
            f"(2 x {params['body'] / 1e6:.1f} M non-embedding parameters; model: {counted}); {peak}",
        ),
        figure(
            "generator decode, share of CPU float32 peak",
            round(100 * decode_share, 2),
            "%",
            "",
            None,
            f"{decode_gflops:.1f} GFLOP/s = {decode_rate:.1f} tokens/s x {decode_flops / 1e6:.1f} MFLOP/token "
            f"(2 x {(params['body'] + params['lm_head']) / 1e6:.1f} M parameters, output head included); {peak}",
        ),
    ]


# ------------------------------------------------------------- generator paths, side by side

#: The embedded generator's paths compared on the same prompts: (label, keep the configured stop).
#: The first is the path before stop sequences (every answer decoded to ``max_tokens`` or the
#: end-of-turn token): the reference the other is measured against.
GENERATOR_PATHS = (
    ("no stop sequence (the earlier path)", False),
    ("stop sequence (the default)", True),
)


def spread(items: list[Any], count: int) -> list[Any]:
    """``count`` items evenly spaced over ``items`` (first included), so both configs' prompts are sampled."""
    if count <= 0 or not items:
        return []
    if count >= len(items):
        return list(items)
    return [items[(i * len(items)) // count] for i in range(count)]


def path_figures(seconds: dict[str, list[float]], reference: str, stop_consistent: bool) -> list[dict[str, Any]]:
    """Seconds per answer of each generator path and its speed-up over ``reference`` (same prompts, one run).

    The speed-up is total reference time / total path time over the same prompts, so a long
    answer weighs as much as it costs. ``stop_consistent`` says whether every answer of a stop
    path equals the reference answer cut at the stop sequence (greedy decoding must agree).
    """
    base = sum(seconds[reference])
    count = len(seconds[reference])
    rows = [
        figure(
            f"generator: {reference}",
            round(base / count, 2),
            "s/answer",
            "",
            None,
            f"{count} prompts of the shipped configs, embedded SmolLM2, one after another",
        )
    ]
    for label, times in seconds.items():
        if label == reference:
            continue
        speedup = base / sum(times)
        rows.append(
            figure(
                f"generator: {label}",
                round(sum(times) / len(times), 2),
                "s/answer",
                "",
                None,
                f"same {len(times)} prompts in the same run; {speedup:.2f}x the earlier path",
            )
        )
    best_label = min((label for label in seconds if label != reference), key=lambda label: sum(seconds[label]))
    best = base / sum(seconds[best_label])
    rows.append(
        figure(
            "generator speed-up over the earlier float32 path",
            round(best, 2),
            "x",
            f">= {GOAL_GENERATOR_SPEEDUP:.0f}x",
            best >= GOAL_GENERATOR_SPEEDUP,
            f"fastest path: {best_label}",
        )
    )
    rows.append(
        figure(
            "stop-sequence answers = earlier answers cut at the stop",
            int(stop_consistent),
            "bool",
            "identical",
            stop_consistent,
            "float32 greedy: stopping early must only shorten the text",
        )
    )
    return rows


def bench_generator_paths(prompts: list[tuple[str, Any]], count: int) -> list[dict[str, Any]]:
    """Each :data:`GENERATOR_PATHS` entry on the same ``count`` prompts, interleaved prompt by prompt.

    Interleaving (all paths on prompt 1, then on prompt 2, ...) spreads any drift of a shared
    machine over every path alike. Each generation is one prompt alone, as the pipeline runs it.
    """
    from dataclasses import replace

    from evalgate_lib.generation.backends.local import LocalBackend, cut_at_stop

    picked = spread(prompts, count)
    if not picked:
        return []
    backend = LocalBackend()
    backend._load_generator()  # loading is not generation: keep it out of the timings
    seconds: dict[str, list[float]] = {label: [] for label, _ in GENERATOR_PATHS}
    consistent = True
    reference = GENERATOR_PATHS[0][0]
    for number, (prompt, options) in enumerate(picked, 1):
        texts = {}
        for label, keep_stop in GENERATOR_PATHS:
            opts = options if keep_stop else replace(options, stop=())
            start = time.perf_counter()
            texts[label] = backend.generate(prompt, opts)
            seconds[label].append(time.perf_counter() - start)
        earlier = cut_at_stop(texts[reference], options.stop).strip()
        consistent &= all(texts[label] == earlier for label, keep in GENERATOR_PATHS if keep)
        print(
            f"  prompt {number}/{len(picked)}: "
            + ", ".join(f"{label.split(' (')[0]} {seconds[label][-1]:.1f} s" for label, _ in GENERATOR_PATHS),
            flush=True,
        )
    return path_figures(seconds, reference, consistent)


# ------------------------------------------------------------- runtimes, side by side


@dataclass
class DecodeTally:
    """Prefill and decode time of one runtime over the prompts it was run on."""

    prompt_tokens: int = 0
    prefill_s: float = 0.0
    decode_tokens: int = 0
    decode_s: float = 0.0
    same: int = 0
    runs: int = 0
    differing: list[int] | None = None

    def add(self, prompt_tokens: int, start: float, clock: list[float]) -> None:
        self.prompt_tokens += prompt_tokens
        self.prefill_s += clock[0] - start
        self.decode_tokens += len(clock) - 1
        self.decode_s += clock[-1] - clock[0]
        self.runs += 1


def torch_greedy_tokens(
    model: Any, input_ids: Any, max_new_tokens: int, eos_token_id: int | None,
    should_stop: Callable[[Sequence[int]], bool] | None, clock: list[float],
) -> list[int]:  # fmt: skip
    """The torch path before issue 29: greedy decoding as a plain loop over the transformers model's ``forward``.

    The same ``forward`` calls ``generate()`` makes for greedy decoding (the whole prompt once
    with a fresh ``DynamicCache``, an all-ones mask and ``logits_to_keep=1``, then one token at
    a time) and ``argmax`` of the float32 logits: the answers the shipped labels were made on.
    """
    import torch
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    mask = torch.ones_like(input_ids)
    step_ids = input_ids
    new: list[int] = []
    with torch.inference_mode():
        while len(new) < max_new_tokens:
            out = model(input_ids=step_ids, cache=cache, attention_mask=mask, use_cache=True, logits_to_keep=1)
            token = int(out.logits[0, -1].to(dtype=torch.float32).argmax())
            new.append(token)
            clock.append(time.perf_counter())
            if token == eos_token_id or (should_stop is not None and should_stop(new)):
                break
            step_ids = torch.tensor([[token]], dtype=input_ids.dtype)
            mask = torch.cat([mask, mask.new_ones((1, 1))], dim=-1)
    return new


class RuntimeVariants:
    """The embedded generator's greedy decode run by each runtime on the same weights and the same prompt ids.

    Every variant returns the new token ids and fills a clock with the time each was chosen,
    so prefill (call start to first token) and decode (first token to last) are split alike.
    The prompt ids are the backend's own (chat template, cut to the context budget).
    """

    def __init__(self) -> None:
        from evalgate_lib.generation.backends import onnx_genai
        from evalgate_lib.generation.backends.local import LocalBackend, _stop_check

        self.backend = LocalBackend()
        self.backend._load_generator()
        self.tokenizer = self.backend._tokenizer
        self._stop_check = _stop_check
        self._torch: Any = None
        self._one_thread: Any = None
        self._full_head: Any = None
        self._quantised: dict[str, Any] = {}
        self._onnx_genai = onnx_genai
        self.build_s: dict[str, float] = {}

    def stop(self, options: Any) -> Callable[[Sequence[int]], bool] | None:
        return self._stop_check(self.tokenizer, options.stop)

    def prepare(self, method: str) -> None:
        """Load (or build) what ``method`` runs, before any clock starts: loading is not generation."""
        from evalgate_lib.generation.backends.converted import scratch_folder

        if method == "torch_loop" and self._torch is None:
            self._torch = self.backend.torch_generator()[1]
        elif method == "onnx_genai_one_thread" and self._one_thread is None:
            self._one_thread = self._onnx_genai.load(self.backend.generator_folder, threads=1)[1]
        elif method == "onnx_genai_full_head" and self._full_head is None:
            folder = scratch_folder()
            options = tuple(o for o in self._onnx_genai.BUILD_OPTIONS if not o.startswith("prune_lm_head"))
            self.build_s["full LM head"] = self._onnx_genai.build(self.backend._kept_conversion(), folder, options)
            self._full_head = self._onnx_genai.load(folder)[1]
        elif method in ("onnx_genai_int8", "onnx_genai_int4") and method not in self._quantised:
            precision, folder = method.rsplit("_", 1)[1], scratch_folder()
            kept, options = self.backend._kept_conversion(), self._onnx_genai.BUILD_OPTIONS
            self.build_s[precision] = self._onnx_genai.build(kept, folder, options, precision=precision)
            self._quantised[method] = self._onnx_genai.load(folder)[1]

    def torch_loop(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """transformers + torch, float32, the greedy loop over ``forward()``: the path before issue 29."""
        import torch

        tensor = torch.tensor([ids], dtype=torch.long)
        return torch_greedy_tokens(self._torch, tensor, options.max_tokens, self.tokenizer.eos_token_id,
                                   self.stop(options), clock)  # fmt: skip

    def onnx_genai(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """ONNX Runtime GenAI, float32, as the local backend runs it (ONNX Runtime's own thread count)."""
        return self.backend._tokens(ids, options, clock)

    def _other_session(self, model: Any, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        eos = self.tokenizer.eos_token_id
        return self._onnx_genai.generate_tokens(model, ids, options.max_tokens, eos, self.stop(options), clock=clock)

    def onnx_genai_one_thread(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """The same built model in a second GenAI session held to one intra-op thread."""
        return self._other_session(self._one_thread, ids, options, clock)

    def onnx_genai_full_head(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """A model built without ``prune_lm_head``: the output head over every prompt position."""
        return self._other_session(self._full_head, ids, options, clock)

    def onnx_genai_int8(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """The builder's int8 CPU model (weights quantised again): how much faster, and how many answers change."""
        return self._other_session(self._quantised["onnx_genai_int8"], ids, options, clock)

    def onnx_genai_int4(self, ids: list[int], options: Any, clock: list[float]) -> list[int]:
        """The builder's int4 CPU model, likewise."""
        return self._other_session(self._quantised["onnx_genai_int4"], ids, options, clock)


#: (label, RuntimeVariants method). The first is the reference every other variant must match token for token.
DECODE_VARIANTS = (
    ("torch float32, greedy loop (before)", "torch_loop"),
    ("ONNX Runtime GenAI float32 (adopted)", "onnx_genai"),
    ("ONNX Runtime GenAI float32, full LM head", "onnx_genai_full_head"),
    ("ONNX Runtime GenAI float32, 1 thread", "onnx_genai_one_thread"),
    ("ONNX Runtime GenAI int8 (not used: answers differ)", "onnx_genai_int8"),
    ("ONNX Runtime GenAI int4 (not used: answers differ)", "onnx_genai_int4"),
)


def bench_decode_variants(
    prompts: list[tuple[str, Any]], count: int, rounds: int, only: Sequence[str] = ()
) -> tuple[list[dict[str, Any]], list[tuple[str, ...]]]:
    """Each :data:`DECODE_VARIANTS` entry on the same prompts, ``rounds`` times, interleaved prompt by prompt.

    On every prompt all variants run one after another, in an order rotated from prompt to
    prompt, so a shared machine's drift and any first-in-line penalty fall on every variant
    alike. Answers are compared as token ids with the reference's, per prompt and round.
    """
    variants = [v for v in DECODE_VARIANTS if not only or v[1] in only or v is DECODE_VARIANTS[0]]
    picked = spread(prompts, count)
    runner = RuntimeVariants()
    for _, method in variants:
        runner.prepare(method)
    if runner.backend.build_seconds is not None:
        runner.build_s["adopted (kept)"] = runner.backend.build_seconds
    print("  built: " + (", ".join(f"{k} in {v:.1f} s" for k, v in runner.build_s.items()) or "nothing (kept)"),
          flush=True)  # fmt: skip
    tallies = {label: DecodeTally(differing=[]) for label, _ in variants}
    for round_number in range(rounds):
        for number, (prompt, options) in enumerate(picked):
            ids = runner.backend.prompt_ids(prompt, options)
            shift = (number + round_number) % len(variants)
            answers: dict[str, list[int]] = {}
            for label, method in variants[shift:] + variants[:shift]:
                clock: list[float] = []
                start = time.perf_counter()
                answers[label] = getattr(runner, method)(ids, options, clock)
                tallies[label].add(len(ids), start, clock)
            reference = answers[variants[0][0]]
            for label, _ in variants:
                if answers[label] == reference:
                    tallies[label].same += 1
                elif number not in (tallies[label].differing or []):
                    (tallies[label].differing or []).append(number)
            print(f"  round {round_number + 1}, prompt {number + 1}/{len(picked)}: {len(ids)} prompt tokens, "
                  f"{len(reference)} new", flush=True)  # fmt: skip
    return decode_rows(tallies), decode_table(tallies)


def decode_table(tallies: dict[str, DecodeTally]) -> list[tuple[str, ...]]:
    """Rows of the printed table: runtime, prefill tok/s, decode ms/token, s/answer, speed-up, identical answers."""
    rows = [("runtime", "prefill tok/s", "decode ms/token", "s/answer", "vs before", "identical")]
    base = tallies[next(iter(tallies))]
    base_total = base.prefill_s + base.decode_s
    for label, t in tallies.items():
        total = t.prefill_s + t.decode_s
        rows.append(
            (
                label,
                f"{t.prompt_tokens / t.prefill_s:.1f}",
                f"{1000 * t.decode_s / t.decode_tokens:.1f}" if t.decode_tokens else "-",
                f"{total / t.runs:.2f}",
                f"{base_total / total:.2f}x",
                f"{t.same}/{t.runs}",
            )
        )
    return rows


def decode_rows(tallies: dict[str, DecodeTally]) -> list[dict[str, Any]]:
    """The comparison as benchmark figures (for bench JSON): seconds per answer, speed-up, identical answers."""
    base = tallies[next(iter(tallies))]
    base_total = base.prefill_s + base.decode_s
    out = []
    for label, t in tallies.items():
        total = t.prefill_s + t.decode_s
        ms_per_token = (1000 * t.decode_s / t.decode_tokens) if t.decode_tokens else 0.0
        note = (
            f"prefill {t.prompt_tokens / t.prefill_s:.1f} tok/s, decode {ms_per_token:.1f} ms/token; "
            f"{base_total / total:.2f}x the torch path; identical answers {t.same}/{t.runs}"
        )
        if t.differing:
            note += f" (differs on prompts {', '.join(str(n + 1) for n in t.differing)})"
        out.append(
            figure(f"runtime: {label}", round(total / t.runs, 2), "s/answer", "identical", t.same == t.runs, note)
        )
    return out


def print_plain_table(rows: list[tuple[str, ...]]) -> None:
    """A header row, a rule, then right-aligned numbers (the first column left-aligned)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            print("  ".join("-" * w for w in widths))


@contextmanager
def recording_prompts(prompts: list[tuple[str, Any]], answer: bool = True) -> Iterator[None]:
    """Record the prompt and decoding options of every generation the pipeline asks for.

    With ``answer=False`` the generation is not asked for at all (an empty answer, nothing read
    from or written to the cache): for a comparison that needs the prompts only.
    """
    original = pipeline.generate_task

    def record(spec: Any, cache_dir: str, options: Any, prompt: str) -> Any:
        prompts.append((prompt, options))
        return original(spec, cache_dir, options, prompt) if answer else ("", False, False)

    pipeline.generate_task = record
    try:
        yield
    finally:
        pipeline.generate_task = original


# ------------------------------------------------------------------------------ sections


def bench_cache(
    limit: int | None, work: Path, prompts: list[tuple[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], list[tuple[tuple, dict]]]:
    """Cold vs cached two-config run on the embedded backend, plus the harness overhead of the cold run.

    The cold run's prompts are appended to ``prompts`` (for the side-by-side generator paths).
    """
    models = load_config(BASELINE).models
    spec = resolve_backend("local", models)
    backend = spec.build()
    meter = GenerationMeter()
    meter.attach(backend)  # inside the timer's wrapper: metering counts as model time
    timer = instrument(backend)
    cache = work / "cache"
    options = RunOptions(backend="local", cache_dir=cache, limit=limit, progress=False)
    calls: list[tuple[tuple, dict]] = []
    print(f"cold run (fresh cache {cache}) ...", flush=True)
    with recording_scores(calls), recording_prompts(prompts if prompts is not None else []):
        cold_s, cold_stats = full_run(options, work / "cold")
    model_s = timer.total
    print(f"  {cold_s:.1f} s, {model_s:.1f} s of it inside model calls: {cold_stats['model_calls']}", flush=True)

    fresh_process_state()
    warm_timer_calls = dict(timer.calls)
    cached_s, cached_stats = full_run(options, work / "cached")
    assert timer.calls == warm_timer_calls, "the cached run called a model"
    print(f"cached run: {cached_s:.2f} s: {cached_stats['model_calls']}", flush=True)

    # The same cached run as a user types it: a fresh interpreter, imports included.
    cmd = [
        sys.executable,
        "-m",
        "evalgate_lib.cli",
        "run",
        "--backend",
        "local",
        "--cache-dir",
        str(cache),
        "--out",
        str(work / "cli"),
        "--no-progress",
        "--baseline",
        str(BASELINE),
        "--candidate",
        str(CANDIDATE),
    ]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    cli_s = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"cached CLI run failed:\n{proc.stderr}")
    print(f"cached run, fresh `evalgate run` process: {cli_s:.2f} s", flush=True)

    same = identical(work / "cold", work / "cached") and identical(work / "cold", work / "cli")
    zero = all(cached_stats["model_calls"][k] == 0 for k in ("embed_calls", "generate_calls"))
    speedup = cold_s / cached_s
    overhead = (cold_s - model_s) / cold_s
    questions = limit or "all"
    rows = [
        figure(
            "cold two-config run",
            round(cold_s, 2),
            "s",
            "",
            None,
            f"{questions} questions x 2 configs, {cold_stats['model_calls']['generate_calls']} generations",
        ),
        figure(
            "cached two-config run (in process)",
            round(cached_s, 3),
            "s",
            "",
            None,
            "0 model calls" if zero else "MODEL CALLED",
        ),
        figure(
            "cache speed-up (cold / cached)",
            round(speedup, 1),
            "x",
            f">= {GOAL_CACHE_SPEEDUP:.0f}x",
            speedup >= GOAL_CACHE_SPEEDUP and zero,
        ),
        figure(
            "cache speed-up, cached run as a fresh CLI process",
            round(cold_s / cli_s, 1),
            "x",
            f">= {GOAL_CACHE_SPEEDUP:.0f}x",
            cold_s / cli_s >= GOAL_CACHE_SPEEDUP,
            f"{cli_s:.2f} s incl. interpreter start and imports",
        ),
        figure(
            "cached results byte-identical to cold", int(same), "bool", "identical", same, ", ".join(PUBLISHED_FILES)
        ),
        figure(
            "harness overhead share of the cold run",
            round(100 * overhead, 2),
            "%",
            f"< {100 * GOAL_OVERHEAD:.0f}%",
            overhead < GOAL_OVERHEAD,
            f"(wall {cold_s:.1f} s - model {model_s:.1f} s) / wall",
        ),
    ]
    return rows + generator_figures(meter, machine_cpu()), calls


class _NoModel:
    """Stands in for the backend's model calls when every answer must come from the cache."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise SystemExit(
            "--scoring-only/--generator-only: the cache folder lacks an answer or an embedding "
            "(a model call was needed)"
        )


def calls_from_cache(
    cache: Path, limit: int | None, work: Path, prompts: list[tuple[str, Any]] | None = None, answers: bool = True
) -> list[tuple[tuple, dict]]:
    """The ``score_answer`` calls of a two-config run answered entirely from ``cache`` (no model is loaded).

    Lets the scoring figures be re-measured in seconds after a change to a scorer,
    without a cold model run: the calls are those of a run of the shipped configs,
    recorded the same way :func:`bench_cache` records them. With ``answers=False`` only the
    prompts are wanted (``prompts``): the cache needs the embeddings alone, and no answer is read.
    """
    spec = resolve_backend("local", load_config(BASELINE).models)
    backend = spec.build()
    backend.embed = backend.generate = _NoModel()  # a miss must fail loudly, not load a model for minutes
    calls: list[tuple[tuple, dict]] = []
    options = RunOptions(backend="local", cache_dir=cache, limit=limit, progress=False)
    with recording_scores(calls), recording_prompts(prompts if prompts is not None else [], answers):
        full_run(options, work / "from-cache")
    return calls


def bench_scoring(calls: list[tuple[tuple, dict]], seconds: float) -> list[dict[str, Any]]:
    """Answers scored per second on one core, replaying the run's own ``score_answer`` calls."""
    from evalgate_lib.judging.evaluation import score_answer

    if not calls:
        return []

    def rate(clear: bool) -> float:
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            if clear:
                clear_scoring_memos()
            for args, kwargs in calls:
                score_answer(*args, **kwargs)
            done += len(calls)
        return done / (time.perf_counter() - start)

    rate(clear=True)  # warm the interpreter (regex compilation, allocator)
    cold = rate(clear=True)
    warm = rate(clear=False)
    return [
        figure(
            "scoring throughput (fresh process)",
            round(cold),
            "answers/s",
            f">= {GOAL_SCORING_RATE:,.0f}/s",
            cold >= GOAL_SCORING_RATE,
            f"the run's {len(calls)} real score_answer calls replayed on one core, memos cleared before each "
            "pass: the figure a run sees",
        ),
        figure(
            "scoring throughput (memos warm)",
            round(warm),
            "answers/s",
            "",
            None,
            "same rows again, every context already tokenised",
        ),
    ]


def _search_latencies(index: VectorIndex, queries: np.ndarray, k: int) -> list[float]:
    for q in queries[:5]:
        index.search(q, k)
    times = []
    for q in queries:
        start = time.perf_counter()
        index.search(q, k)
        times.append(time.perf_counter() - start)
    return sorted(times)


def bench_retrieval(queries: int, dim: int = 384, k: int = RANKING_DEPTH) -> list[dict[str, Any]]:
    """Median search latency per query over random float32 embeddings, as the pipeline searches (top 10).

    Measured with numpy's default BLAS threading, and again with BLAS held to one
    thread (threadpoolctl, when installed): on small machines a multi-threaded
    matrix-vector product can be slower than a single-threaded one.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    rng = np.random.default_rng(0)
    out = []
    for n in (1_000, 10_000, 100_000):
        index = VectorIndex(rng.standard_normal((n, dim), dtype=np.float32))
        qs = rng.standard_normal((queries, dim), dtype=np.float32)
        times = _search_latencies(index, qs, k)
        single = None
        if threadpool_limits is not None:
            with threadpool_limits(limits=1, user_api="blas"):
                single = _search_latencies(index, qs, k)
        median_ms = 1000 * statistics.median(times)
        note = f"p95 {1000 * times[int(0.95 * len(times)) - 1]:.3f} ms"
        if single is not None:
            note += f"; with 1 BLAS thread: median {1000 * statistics.median(single):.3f} ms"
        note += f"; top-{k} of {dim}-d float32, {queries} queries"
        goal = f"< {GOAL_RETRIEVAL_MS:.0f} ms" if n == 100_000 else ""
        ok = median_ms < GOAL_RETRIEVAL_MS if n == 100_000 else None
        out.append(figure(f"retrieval latency, {n:,} chunks", round(median_ms, 3), "ms/query (median)", goal, ok, note))
    return out


def bench_server(limit: int, delay: float, jobs: int, work: Path) -> list[dict[str, Any]]:
    """Concurrent generation against a simulated Ollama server (fixed latency per request)."""
    from fake_ollama import FakeOllama, serving

    times, folders, embeds = {}, {}, {}
    for n in (1, jobs):
        srv = FakeOllama(delay=delay)
        with serving(srv):
            options = RunOptions(
                backend="ollama",
                hosts="bench-a.test,bench-b.test",
                cache_dir=work / f"srv{n}",
                limit=limit,
                jobs=n,
                progress=False,
            )
            times[n], _ = full_run(options, work / f"srv{n}-out")
        folders[n] = work / f"srv{n}-out"
        counts = srv.counts()
        embeds[n] = counts["/api/embed"]
    same = identical(folders[1], folders[jobs])
    speedup = times[1] / times[jobs]
    generations = 2 * limit
    return [
        figure(
            f"generation concurrency: --jobs {jobs} vs --jobs 1",
            round(speedup, 2),
            "x",
            "identical rows",
            same,
            f"simulated server, {1000 * delay:.0f} ms/request, {generations} generations: "
            f"{times[1]:.2f} s vs {times[jobs]:.2f} s; rows identical: {same}",
        ),
        figure(
            "embedding requests (batched)",
            embeds[1],
            "requests",
            "",
            None,
            f"all question and chunk texts of both configs in {embeds[1]} /api/embed requests",
        ),
    ]


# ---------------------------------------------------------------------------------- main


def print_table(rows: list[dict[str, Any]]) -> None:
    header = ("figure", "value", "unit", "goal", "pass")
    cells = [header] + [
        (
            r["figure"],
            f"{r['value']:,}" if isinstance(r["value"], (int, float)) else str(r["value"]),
            r["unit"],
            r["goal"],
            "" if r["pass"] is None else ("PASS" if r["pass"] else "FAIL"),
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for n, c in enumerate(cells):
        line = [x.rjust(w) if i == 1 else x.ljust(w) for i, (x, w) in enumerate(zip(c, widths, strict=True))]
        print("  ".join(line).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for r in rows:
        if r["note"]:
            print(f"  * {r['figure']}: {r['note']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="gold questions for the model run (default: all)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="JSON report (default bench/out/bench.json, scoring.json for --scoring-only)",
    )
    parser.add_argument("--queries", type=int, default=300, help="retrieval queries per index size")
    parser.add_argument("--scoring-seconds", type=float, default=3.0)
    parser.add_argument("--server-delay", type=float, default=0.05, help="simulated seconds per server request")
    parser.add_argument("--jobs", type=int, default=4, help="concurrent requests for the server figure")
    parser.add_argument("--server-limit", type=int, default=40, help="gold questions for the server figure")
    parser.add_argument(
        "--scoring-only",
        type=Path,
        metavar="CACHE",
        help="only the scoring figures, from the calls of a run answered entirely from the cache folder CACHE "
        "(e.g. cache/, warm for the shipped configs); no model is loaded",
    )
    parser.add_argument(
        "--generator-prompts",
        type=int,
        default=6,
        help="prompts on which the generator paths are compared side by side (0: skip the comparison)",
    )
    parser.add_argument(
        "--generator-only",
        type=Path,
        metavar="CACHE",
        help="only the side-by-side generator paths, on prompts of a run answered entirely from the cache "
        "folder CACHE (no cold run)",
    )
    parser.add_argument(
        "--decode-compare",
        type=Path,
        metavar="CACHE",
        help="only the generator's runtimes side by side (issue 29), on the prompts of a run whose embeddings are all "
        "in the cache folder CACHE; prints runtime, prefill tok/s, decode ms/token, s/answer, identical answers",
    )
    parser.add_argument("--decode-prompts", type=int, default=20, help="prompts for --decode-compare")
    parser.add_argument("--decode-rounds", type=int, default=2, help="passes over the prompts for --decode-compare")
    parser.add_argument(
        "--decode-variants",
        default="",
        help="comma-separated RuntimeVariants methods to run besides the reference (default: all)",
    )
    parser.add_argument(
        "--skip-model-run",
        action="store_true",
        help="skip the embedded-backend run (no cache, scoring or overhead figures)",
    )
    args = parser.parse_args(argv)
    if args.out is None:
        name = "bench.json"
        if args.scoring_only is not None:
            name = "scoring.json"
        elif args.generator_only is not None:
            name = "generator.json"
        elif args.decode_compare is not None:
            name = "decode.json"
        args.out = ROOT / "bench" / "out" / name

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="evalgate-bench-") as tmp:
        work = Path(tmp)
        prompts: list[tuple[str, Any]] = []
        if args.scoring_only is not None:
            calls = calls_from_cache(args.scoring_only, args.limit, work)
            print(f"scoring {len(calls)} recorded answers ...", flush=True)
            rows += bench_scoring(calls, args.scoring_seconds)
        elif args.generator_only is not None:
            calls_from_cache(args.generator_only, args.limit, work, prompts)
        elif args.decode_compare is not None:
            calls_from_cache(args.decode_compare, args.limit, work, prompts, answers=False)
            only = [v for v in args.decode_variants.split(",") if v]
            print(f"runtimes on {min(args.decode_prompts, len(prompts))} prompts x {args.decode_rounds} "
                  "rounds ...", flush=True)  # fmt: skip
            decode_rows_, table = bench_decode_variants(prompts, args.decode_prompts, args.decode_rounds, only)
            rows += decode_rows_
            print()
            print_plain_table(table)
            prompts = []
        elif not args.skip_model_run:
            cache_rows, calls = bench_cache(args.limit, work, prompts)
            rows += cache_rows
            rows += bench_scoring(calls, args.scoring_seconds)
        if prompts and args.generator_prompts > 0:
            shown = min(args.generator_prompts, len(prompts))
            print(f"generator paths side by side on {shown} prompts ...", flush=True)
            rows += bench_generator_paths(prompts, args.generator_prompts)
        if args.scoring_only is None and args.generator_only is None and args.decode_compare is None:
            print("retrieval ...", flush=True)
            rows += bench_retrieval(args.queries)
            print("simulated server ...", flush=True)
            rows += bench_server(args.server_limit, args.server_delay, args.jobs, work)
    print()
    print_table(rows)
    report = {
        "figures": rows,
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "numpy": np.__version__,
            "limit": args.limit,
            "bench_seconds": round(time.perf_counter() - started, 1),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.out}")
    return 0 if all(r["pass"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
