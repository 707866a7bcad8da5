"""The precision comparison's pure parts: what the numbers mean (speed against bytes per
token), greedy outputs compared token by token with teacher-forced logprobs, and llama.cpp's
own count of each prompt."""

from __future__ import annotations

import math

import pytest

from tokcheck.analysis.quality import GreedyOutput, compare_greedy
from tokcheck.engines.llama_cpp_log import model_buffer_bytes, prompt_token_counts
from tokcheck.errors import TokcheckError
from tokcheck.flows.precisions import PrecisionRow, check_rows, speed_vs_bytes


def _row(prec, file_bytes, tok_s, engine_tok_s, rss=None):
    return PrecisionRow(precision=prec, file=f"{prec}.gguf", file_bytes=file_bytes,
                        bits_per_weight=None, verdict="?", peak_rss_bytes=rss, ttft_ms=None,
                        generation_tok_s=tok_s, output_throughput_tok_s=None, token_agreement=None,
                        engine_decode_tok_s=engine_tok_s)


def test_speed_against_bytes_per_token():
    """Half the bytes and twice the speed: speed followed bytes 100 %; half the bytes and the
    same speed: 0 %; a quarter of the bytes and twice the speed: 50 %."""
    rows = [_row("F16", 4000, 100.0, 200.0, rss=100 * 2**20), _row("Q8_0", 2000, 200.0, 200.0,
                                                                  rss=98 * 2**20),
            _row("Q4_K_M", 1000, 200.0, None, rss=97 * 2**20)]
    lines = speed_vs_bytes(rows)
    assert lines[0] == ("The HTTP server and Python around llama.cpp add 5.00 ms per token (F16: "
                        "5.00 ms in llama.cpp, 10.00 ms seen by the client).")
    assert lines[1] == ("Q8_0 reads 2.00x fewer bytes per token than F16; the client measured "
                        "2.00x the speed (speed followed bytes 100%); llama.cpp timed its own "
                        "decode 1.00x the speed (speed followed bytes 0%).")
    assert lines[2] == ("Q4_K_M reads 4.00x fewer bytes per token than F16; the client measured "
                        "2.00x the speed (speed followed bytes 50%).")
    assert lines[3].startswith("Peak resident memory of the server: F16 105 MB, Q8_0 103 MB,"
                               " Q4_K_M 102 MB")  # 100, 98, 97 MiB
    assert math.isclose(math.log(2) / math.log(4), 0.5)
    cached = speed_vs_bytes(rows, cache_bytes=8000)
    assert cached[0].startswith("Every file fits in this CPU's last-level cache")
    assert not speed_vs_bytes(rows, cache_bytes=3000)[0].startswith("Every file fits")


def test_greedy_outputs_compared_token_by_token():
    ref = [GreedyOutput("p1", [" a", " b", " c", " d"], [-1.0, -2.0, -3.0, -4.0]),
           GreedyOutput("p2", [" x", " y"], [-0.5, -0.5])]
    same = [GreedyOutput("p1", [" a", " b", " c", " d"], None), GreedyOutput("p2", [" x", " y"], None)]
    q = compare_greedy(ref, same, [[-1.0, -2.0, -3.0, -4.0], [-0.5, -0.5]])
    assert q["mean_token_agreement"] == 1.0 and q["identical"] == 2
    assert q["median_first_divergence"] is None and q["mean_abs_logprob_diff"] == 0.0
    other = [GreedyOutput("p1", [" a", " b", " z", " d"], None), GreedyOutput("p2", [" x", " y"], None)]
    # p1's forced logprobs: +0.1, −0.1, a position the server tokenized otherwise (None), +0.3
    q = compare_greedy(ref, other, [[-1.1, -1.9, None, -4.3], None])
    assert q["mean_token_agreement"] == pytest.approx((3 / 4 + 1) / 2)
    assert q["median_first_divergence"] == 2 and q["identical"] == 1
    assert q["per_prompt"][0]["mean_logprob_diff"] == pytest.approx((0.1 - 0.1 + 0.3) / 3)
    assert q["mean_abs_logprob_diff"] == pytest.approx((0.1 + 0.1 + 0.3) / 3)
    with pytest.raises(TokcheckError, match="not of the same prompts"):
        compare_greedy(ref, same[:1], None)


def test_llama_cpp_counts_each_prompt_with_its_reused_prefix():
    log = ("llama_perf_context_print: prompt eval time =       4.65 ms /    32 tokens (0.15 ms)\n"
           "Llama.generate: 12 prefix-match hit, remaining 1 prompt tokens to eval\n"
           "llama_perf_context_print: prompt eval time =       0.20 ms /     1 tokens (0.20 ms)\n"
           "llama_perf_context_print:        eval time =      10.00 ms /    15 runs   (0.67 ms)\n"
           "llama_perf_context_print: prompt eval time =       4.00 ms /    32 tokens (0.12 ms)\n")
    assert prompt_token_counts(log) == [32, 13, 32]


def test_rows_that_do_not_compare_are_refused():
    r = _row("Q8_0", 1, 1.0, 1.0)
    r.server_prompt_tokens = [31, 32]
    with pytest.raises(TokcheckError, match=r"counted prompts of \[31, 32\] tokens, not 32"):
        check_rows([r], 32)
    r.server_prompt_tokens, r.exact_output_len = [32], False
    with pytest.raises(TokcheckError, match="exactly the asked number of output tokens"):
        check_rows([r], 32)
    r.exact_output_len, r.tokenizer_identical = True, False
    with pytest.raises(TokcheckError, match="tokenizes differently"):
        check_rows([r], 32)


def test_llama_cpp_model_buffers_from_its_log():
    """The three lines of a real Q4_K_M start (tiny model, CPU build 0.3.36): the plain and the
    repacked buffer together hold the weights once (1.09 + 1.09 MiB); KV and compute buffers
    are not weights."""
    log = ("load_tensors:          CPU model buffer size =     1.09 MiB\n"
           "load_tensors:   CPU_REPACK model buffer size =     1.09 MiB\n"
           "llama_kv_cache:        CPU KV buffer size =     4.00 MiB\n"
           "sched_reserve:        CPU compute buffer size =    23.01 MiB\n")
    assert model_buffer_bytes(log) == round(2.18 * 2**20)
    assert model_buffer_bytes("load_tensors:          CPU model buffer size =     6.51 MiB\n") == \
        round(6.51 * 2**20)
    assert model_buffer_bytes("nothing here") is None


def test_peaks_out_of_the_files_order_are_explained():
    """Peaks of 113.5, 109.6 and 110.3 MB (a real CI run) are not in the files' order; the
    weights' own buffers are, and the text says why the peak differs."""
    rows = [_row("F16", 6_955_520, None, None, rss=113_479_680),
            _row("Q8_0", 3_760_672, None, None, rss=109_629_440),
            _row("Q4_K_M", 2_411_552, None, None, rss=110_325_760)]
    for r, mib in zip(rows, (6.51, 3.46, 2.18)):
        r.model_buffer_bytes = round(mib * 2**20)
    lines = speed_vs_bytes(rows)[2:]  # after the two speed lines
    assert lines[0] == "Weights in memory, as llama.cpp accounts them: F16 6.83 MB, Q8_0 3.63 MB, Q4_K_M 2.29 MB."
    assert "The peaks are not in the files' order" in lines[1]
    rows[2].peak_rss_bytes = 108_000_000
    assert "not in the files' order" not in speed_vs_bytes(rows)[3]
