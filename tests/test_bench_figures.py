"""The benchmark's own arithmetic, checked by hand: CPU peak, FLOPs per token, share of peak.

``bench/`` is not a package; ``run_bench.py`` is imported from its folder, as the
benchmark itself runs it. Nothing here times anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import run_bench  # noqa: E402

from evalgate_lib.judging.answer import judge_answer  # noqa: E402

# lscpu on the 2-core machine the figures were first taken on (KVM guest, no "CPU max MHz").
LSCPU = """\
CPU(s):                                  2
Model name:                              Intel(R) Xeon(R) Processor @ 2.60GHz
Thread(s) per core:                      1
Core(s) per socket:                      2
Socket(s):                               1
Flags:                                   fpu sse sse2 avx f16c fma avx2 avx512f avx512dq avx512bw avx512vl
"""


def test_peak_of_two_avx512_cores_at_2_6_ghz() -> None:
    assert run_bench.peak_gflops(2, 2.6, 64) == pytest.approx(332.8)  # 2 x 2.6 x (2 FMA x 16 lanes x 2)
    cpu = run_bench.parse_cpu(LSCPU, "", cpu_count=2)
    assert (cpu.cores, cpu.ghz, cpu.flops_per_cycle) == (2, 2.6, 64)
    assert cpu.gflops == pytest.approx(332.8)
    assert "nominal clock" in cpu.how and "AVX-512" in cpu.how


def test_max_mhz_and_narrower_vectors() -> None:
    lscpu = "Model name: X @ 3.00GHz\nCPU max MHz: 4200.0000\nSocket(s): 2\nCore(s) per socket: 8\n"
    lscpu += "Flags: avx avx2 fma\n"
    cpu = run_bench.parse_cpu(lscpu, "", cpu_count=32)
    assert (cpu.cores, cpu.ghz, cpu.flops_per_cycle) == (16, 4.2, 32)  # hyper-threads add no FMA units
    assert cpu.gflops == pytest.approx(16 * 4.2 * 32)  # 2150.4
    cpuinfo = "model name\t: Y\ncpu MHz\t\t: 2000.000\nflags\t\t: sse sse2\n"
    assert run_bench.parse_cpu("", cpuinfo, cpu_count=4).gflops == pytest.approx(4 * 2.0 * 8)


def test_flops_per_token_of_smollm2_135m() -> None:
    # SmolLM2-135M as loaded: 134,515,008 parameters, a 49,152 x 576 = 28,311,552 embedding tied to the head.
    body = 134_515_008 - 28_311_552
    prefill, decode = run_bench.flops_per_token(body, lm_head=28_311_552)
    assert prefill == 2 * 106_203_456 == 212_406_912  # the head runs once per prompt, not per prompt token
    assert decode == 2 * 134_515_008 == 269_030_016  # every generated token runs the head


def test_share_of_peak() -> None:
    # 400 prompt tokens/s x 212,406,912 FLOP/token = 84.96 GFLOP/s; of 332.8 GFLOP/s that is 25.53 %.
    achieved, share = run_bench.share_of_peak(400.0, 212_406_912, 332.8)
    assert achieved == pytest.approx(84.9627648)
    assert share == pytest.approx(84.9627648 / 332.8) and share == pytest.approx(0.2553, abs=5e-5)
    # 20 generated tokens/s x 269,030,016 FLOP/token = 5.38 GFLOP/s = 1.62 % of the peak.
    achieved, share = run_bench.share_of_peak(20.0, 269_030_016, 332.8)
    assert achieved == pytest.approx(5.38060032) and share == pytest.approx(0.01617, abs=5e-6)


def test_generator_figures_from_a_meter() -> None:
    meter = run_bench.GenerationMeter()
    meter.generations, meter.prompt_tokens, meter.prefill_s = 4, 3200, 8.0  # 400 prompt tokens/s
    meter.decode_tokens, meter.decode_s = 200, 10.0  # 20 generated tokens/s
    meter.params = {"total": 134_515_008, "embedding": 28_311_552, "lm_head": 28_311_552, "tied": True}
    meter.params["body"] = 106_203_456
    rows = {r["figure"]: r["value"] for r in run_bench.generator_figures(meter, run_bench.parse_cpu(LSCPU, "", 2))}
    assert rows == {
        "generator prefill (prompt tokens/s)": 400.0,
        "generator decode (generated tokens/s)": 20.0,
        "generator prefill, share of CPU float32 peak": 25.53,
        "generator decode, share of CPU float32 peak": 1.62,
    }
    assert run_bench.generator_figures(run_bench.GenerationMeter(), run_bench.parse_cpu(LSCPU, "", 2)) == []


def test_fresh_process_figure_clears_every_scoring_memo() -> None:
    """The "fresh process" scoring figure must not run on memos a new process would not have."""
    judge_answer(
        question="How many seats does Starter include?",
        answer="Starter includes 3 seats. It costs $5.",
        passages=[("Plans", "## Seats\nThe Starter plan includes 3 seats.\n| Plan | Price |\n|---|---|\n| A | $5 |")],
        accept=["3 seats"],
    )
    memos = run_bench.scoring_memos()
    names = {memo.__wrapped__.__name__ for memo in memos}
    assert {"read_answer", "read_context", "passage_spans", "terms_of", "read_blocks", "normalise_text"} <= names
    assert any(memo.cache_info().currsize for memo in memos)
    run_bench.clear_scoring_memos()
    assert all(memo.cache_info().currsize == 0 for memo in memos)


def test_spread_takes_evenly_spaced_prompts_from_both_configs() -> None:
    items = list(range(10))  # 0-4 baseline prompts, 5-9 candidate prompts
    assert run_bench.spread(items, 4) == [0, 2, 5, 7]  # indices 0, 10//4, 20//4, 30//4
    assert run_bench.spread(items, 20) == items
    assert run_bench.spread(items, 0) == [] and run_bench.spread([], 3) == []


def test_generator_path_speed_up_is_total_time_over_total_time() -> None:
    seconds = {"old": [2.0, 4.0], "stop": [1.0, 2.0], "bf16": [3.0, 3.0]}
    rows = {r["figure"]: r for r in run_bench.path_figures(seconds, "old", stop_consistent=True)}
    assert rows["generator: old"]["value"] == 3.0  # (2 + 4) / 2 s per answer
    assert rows["generator: stop"]["value"] == 1.5
    assert "2.00x the earlier path" in rows["generator: stop"]["note"]  # 6 s / 3 s
    assert "1.00x the earlier path" in rows["generator: bf16"]["note"]  # 6 s / 6 s
    best = rows["generator speed-up over the earlier float32 path"]
    assert (best["value"], best["pass"]) == (2.0, False)  # the fastest path, short of 4x
    assert "fastest path: stop" in best["note"]
    assert rows["stop-sequence answers = earlier answers cut at the stop"]["pass"] is True


def test_parameter_counts_read_a_tied_head_once(tmp_path):
    import numpy as np
    from safetensors.numpy import save_file

    tensors = {"lm_head.weight": np.zeros((10, 4), np.float32), "model.layers.0.w": np.zeros((4, 3), np.float32)}
    save_file(tensors, str(tmp_path / "tied.safetensors"))  # a tied head is saved once, under one name
    assert run_bench.parameter_counts(tmp_path / "tied.safetensors") == {
        "total": 52, "embedding": 40, "lm_head": 40, "tied": True, "body": 12
    }  # fmt: skip
    apart = {**tensors, "model.embed_tokens.weight": np.zeros((10, 4), np.float32)}
    save_file(apart, str(tmp_path / "apart.safetensors"))
    assert run_bench.parameter_counts(tmp_path / "apart.safetensors") == {
        "total": 92, "embedding": 40, "lm_head": 40, "tied": False, "body": 12
    }  # fmt: skip


def test_clearance_of_a_census_interval_against_its_limit() -> None:
    """bench/gate_labels.py --margins: how far the all-labels interval clears the limit, by hand."""
    import gate_labels

    # a ceiling of +5 hallucinations: [5.568, 16.998] lies 0.568 past it, [-15.292, 3.348] 1.652 within it
    assert gate_labels.clearance(5.568, 16.998, 5.0, worse_up=True) == pytest.approx(0.568)
    assert gate_labels.clearance(-15.292, 3.348, 5.0, worse_up=True) == pytest.approx(-1.652)
    assert gate_labels.clearance(4.843, 15.830, 5.0, worse_up=True) == 0.0  # holds the limit: INCONCLUSIVE
    # a floor of -0.05 on accuracy: [-0.291, -0.066] lies 0.016 past it (below), [-0.03, +0.04] 0.02 within it
    assert gate_labels.clearance(-0.291, -0.066, -0.05, worse_up=False) == pytest.approx(0.016)
    assert gate_labels.clearance(-0.03, 0.04, -0.05, worse_up=False) == pytest.approx(-0.02)
