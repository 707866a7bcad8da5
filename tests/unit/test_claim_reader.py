"""The claim reader on each kind of real-world phrasing, with the true value.

The texts are made up in the shape of real public claims (the corpus in tests/data/claims holds
the real ones, measured by benchmarks/claims_corpus.py); each assertion is what the words state.
"""

from __future__ import annotations

import pytest

from tokcheck.core.catalog import find_model
from tokcheck.core.claim import parse_claim
from tokcheck.errors import TokcheckError


def head(text):
    c = parse_claim(text)
    return c, c.headline


# --- 1. a word or a unit form between the number and the unit ----------------------------------

@pytest.mark.parametrize("text, value, unit, metric", [
    ("only 30 output tokens/s for a single request", 30, "tok/s", "generation_tok_s"),
    ("the cluster sustains 34,491 total tokens/s", 34491, "tok/s", "aggregate_throughput"),
    ("a rack serves 1.5 million tokens per second", 1.5e6, "tok/s", "aggregate_throughput"),
    ("the 8B model gives 40+ token/s", 40, "tok/s", "generation_tok_s"),
    ("13,386 output tokens per second per GPU on the rack", 13386, "tok/s", "aggregate_throughput"),
    ("Qwen3-8B at 108 T/s", 108, "tok/s", "generation_tok_s"),
    ("Llama 3.1 70B Q4 runs 22 t/s", 22, "tok/s", "generation_tok_s"),
    ("the 4090 does 0.42 秒/1k tokens", 0.42, "s/1k tok", None),
    ("decode costs 12 ms/token on one H100", 12, "ms/tok", "tpot"),
    ("gpt-oss-20b ran at 132,75 TPS on Vulkan", 132.75, "tok/s", "generation_tok_s"),
])
def test_unit_forms(text, value, unit, metric):
    _, h = head(text)
    assert (h.value, h.unit, h.metric) == (pytest.approx(value), unit, metric)


def test_ttft_change_in_chinese_keeps_the_result():
    c, h = head("优化后 TTFT 从 35.15 秒降到 8.66 秒")
    assert [(f.value, f.unit, f.metric) for f in c.figures] == [(35.15, "s", "ttft"), (8.66, "s", "ttft")]
    assert h.value == 8.66


# --- 2. several figures, each with its role ----------------------------------------------------

def test_prefill_and_generation():
    c, h = head("on a 3090: prompt processing 4668 tok/s, generation 93 tok/s")
    assert [(f.value, f.metric) for f in c.figures] == [(4668, "prefill_tok_s"), (93, "generation_tok_s")]
    assert h.value == 93


def test_prefill_and_generation_chinese_up_to():
    c, h = head("KTransformers 预处理最高 286 tokens/s，生成最高 14 tokens/s")
    assert [(f.metric, f.qualifier) for f in c.figures] == [("prefill_tok_s", "up_to"), ("generation_tok_s", "up_to")]
    assert h.value == 14


def test_single_stream_and_aggregate_each_keep_their_concurrency():
    c, h = head("210 tok/s single-stream and ~700 tok/s aggregate across 10 concurrent requests")
    a, b = c.figures
    assert (a.value, a.scope, a.concurrency) == (210, "request", 1)
    assert (b.value, b.scope, b.metric, b.concurrency, b.qualifier) == (700, "aggregate", "aggregate_throughput", 10, "approx")
    assert h is a and c.fields["concurrency"] == 1


def test_speculative_decoding_figure_is_the_headline():
    c, h = head("158 tok/s plain, 373 tok/s with MTP")
    assert [f.spec_decoding for f in c.figures] == [False, True]
    assert h.value == 373 and c.fields["speculative_decoding"] is True


def test_per_user_and_maximum_throughput():
    c, h = head("DeepSeek-R1 at 250 tokens per second per user, or 30,000 tokens per second maximum throughput")
    a, b = c.figures
    assert (a.scope, a.metric) == ("user", "generation_tok_s")
    assert (b.scope, b.metric) == ("aggregate", "aggregate_throughput")
    assert h is a


@pytest.mark.parametrize("text, value, qualifier", [
    ("Qwen3-32B 20~30 tok/s", (20, 30), None),
    ("Llama 3.1 8B at 190-195 tok/s", (190, 195), None),
    ("gpt-oss-120b up to 60 tok/s", 60, "up_to"),
    ("gpt-oss-120b over 60 tok/s", 60, "over"),
    ("Qwen3-8B 约 58 tok/s", 58, "approx"),
])
def test_ranges_and_qualifiers(text, value, qualifier):
    _, h = head(text)
    assert h.value == value and h.qualifier == qualifier


def test_every_figure_keeps_its_span():
    text = "prompt processing 4668 tok/s, generation 93 tok/s"
    c = parse_claim(text)
    assert [text[s:e] for s, e in (f.span for f in c.figures)] == ["4668 tok/s", "93 tok/s"]


# --- 3. counts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, gpu, count", [
    ("Llama 3.1 70B on H100 x2 at 40 tok/s", "H100 SXM", 2),
    ("Llama 3.1 70B on H100*2 at 40 tok/s", "H100 SXM", 2),
    ("Llama 3.1 70B on 2x H100 at 40 tok/s", "H100 SXM", 2),
    ("Llama 3.1 70B on two H100s at 40 tok/s", "H100 SXM", 2),
    ("Llama 3.3 70B on dual RTX 5090s at 30 tok/s", "RTX 5090", 2),
    ("Qwen3-32B on quad RTX 3090 at 30 tok/s", "RTX 3090", 4),
    ("Qwen3-235B-A22B on H200 with TP=8 at 80 tok/s", "H200", 8),
    ("Qwen3-235B-A22B on H200, -tp 2, 80 tok/s", "H200", 2),
    ("Qwen3-32B 8-way tensor parallel on H20 at 80 tok/s", "H20", 8),
    ("Qwen3-235B-A22B 8 卡 H20 跑出 80 tok/s", "H20", 8),
    ("Qwen3-32B 双卡 4090 跑出 30 tok/s", "RTX 4090", 2),
    ("Qwen3-32B 四卡 A100 跑出 60 tok/s", "A100 80GB SXM", 4),
    ("Qwen3-32B 单卡 H200 全精度 58 tok/s", "H200", 1),
    ("DeepSeek-R1 on an HGX B200 at 250 tok/s per user", "B200", 8),
    ("DeepSeek-R1 on a DGX H100 at 40 tok/s", "H100 SXM", 8),
    ("DeepSeek-R1 on a GB200 NVL72 at 1,000,000 tok/s total", "GB200", 72),
    ("Llama 3.1 405B on a p5.48xlarge at 30 tok/s", "H100 SXM", 8),
    ("eight Blackwell GPUs serve DeepSeek-R1 at 250 tok/s per user on a DGX B200", "B200", 8),
])
def test_gpu_counts(text, gpu, count):
    f = parse_claim(text).fields
    assert (f.get("gpu"), f.get("gpu_count")) == (gpu, count)


def test_a_gpu_model_number_is_not_a_length():
    f = parse_claim("Qwen3-8B on an RTX 4070 at 45 tok/s").fields
    assert f.get("input_tokens") is None and f.get("output_tokens") is None and f.get("max_model_len") is None


def test_a_compared_gpu_is_not_the_claims():
    f = parse_claim("MI355X GPUs broke 1 million tokens per second on Llama 2 70B, up to 3.1x the MI325X").fields
    assert f["gpu"] == "MI355X"


# --- 4. concurrency and scope ------------------------------------------------------------------

@pytest.mark.parametrize("text, concurrency", [
    ("Qwen3-8B at batch size 4: 400 tok/s", 4),
    ("Qwen3-8B bs=32 gives 2000 tok/s", 32),
    ("Qwen3-8B with 32 concurrent requests: 2000 tok/s", 32),
    ("Qwen3-8B with 64 users: 3000 tok/s total", 64),
    ("Qwen3-8B 并发 32 吞吐 2000 tok/s", 32),
    ("Qwen3-8B at concurrency 1: 120 tok/s", 1),
    ("Qwen3-8B single stream 120 tok/s", 1),
    ("Qwen3-8B 单请求 120 tok/s", 1),
])
def test_concurrency(text, concurrency):
    assert parse_claim(text).fields.get("concurrency") == concurrency


def test_the_speed_is_never_the_concurrency():
    f = parse_claim("Qwen3-8B reaches 195 tok/s, tested at concurrency 1").fields
    assert f["value"] == 195 and f["concurrency"] == 1


@pytest.mark.parametrize("text, scope", [
    ("DeepSeek-R1 at 250 tok/s per user", "user"),
    ("DeepSeek-R1 at 7,583 tok/s per GPU", "gpu"),
    ("DeepSeek-R1 at 22,300 tok/s per node", "node"),
    ("DeepSeek-R1 at 2,300 tok/s total", "aggregate"),
    ("DeepSeek-R1 throughput 2,300 tok/s", "aggregate"),
])
def test_scope(text, scope):
    assert parse_claim(text).headline.scope == scope


# --- 5. precision words, and what is not weight precision ------------------------------------

@pytest.mark.parametrize("text, precision", [
    ("Qwen3-32B Q4_K_M at 30 tok/s", "Q4_K_M"),
    ("Qwen3-32B Q8_0 at 20 tok/s", "Q8_0"),
    ("Qwen3-32B Q2_K at 40 tok/s", "Q2_K"),
    ("DeepSeek-R1 UD-IQ1_S at 7 tok/s", "UD-IQ1_S"),
    ("DeepSeek-R1 IQ2_XXS at 7 tok/s", "IQ2_XXS"),
    ("Qwen3-32B AWQ at 60 tok/s", "INT4"),
    ("Qwen3-32B GPTQ at 60 tok/s", "INT4"),
    ("Qwen3-32B W4A16 at 60 tok/s", "INT4"),
    ("Qwen3-32B W8A8 at 50 tok/s", "INT8"),
    ("Qwen3-32B in 4-bit at 60 tok/s", "INT4"),
    ("Qwen3-32B in 8-bit at 50 tok/s", "INT8"),
    ("Qwen3-32B FP8 at 50 tok/s", "FP8"),
    ("DeepSeek-R1 FP4 at 250 tok/s per user", "FP4"),
    ("DeepSeek-R1 NVFP4 at 250 tok/s per user", "NVFP4"),
    ("gpt-oss-120b MXFP4 at 60 tok/s", "MXFP4"),
    ("Qwen3-32B Q4 量化 30 tok/s", "INT4"),
    ("Qwen3-32B BF16 at 30 tok/s", "BF16"),
    ("Llama 2 70B f16 at 4.81 tok/s", "FP16"),
    ("Qwen3-32B 全精度 30 tok/s", "full"),
    ("满血版 DeepSeek-R1 10 tok/s", "full"),
    ("Qwen3-32B original weights, 30 tok/s", "full"),
])
def test_precision_words(text, precision):
    assert parse_claim(text).fields.get("precision") == precision


@pytest.mark.parametrize("text, kv", [
    ("Qwen3-8B BF16 weights with an FP8 KV cache: 120 tok/s", "FP8"),
    ("Qwen3-30B-A3B Q4_K_M with q8_0 KV cache at 90 tok/s", "Q8_0"),
])
def test_a_kv_cache_format_is_not_the_weights(text, kv):
    c = parse_claim(text)
    assert c.footprint["kv_cache_dtype"] == kv and c.fields["precision"] != kv


@pytest.mark.parametrize("text, key, value", [
    ("Qwen3-8B, not a quantized version, 120 tok/s", "quantization", "none"),
    ("Qwen3-8B 未量化 120 tok/s", "quantization", "none"),
    ("DeepSeek-V3 at 20 tok/s, no MTP", "speculative_decoding", False),
    ("Llama 3.1 8B at 150 tok/s without speculative decoding", "speculative_decoding", False),
    ("DeepSeek-R1 不开投机解码 20 tok/s", "speculative_decoding", False),
])
def test_negations(text, key, value):
    assert parse_claim(text).fields.get(key) == value


@pytest.mark.parametrize("text, key, value", [
    ("Mixtral 8x7B in 14GB of weights at 30 tok/s", "weights_gb", 14),
    ("Qwen3-32B 显存占用约 65GB，30 tok/s", "memory_used_gb", 65),
    ("DeepSeek-R1 on H200 at 40 tok/s, 182GB per card used", "memory_used_gb", 182),
    ("gpt-oss-120b at 20 tok/s with 18.5 GB in system RAM", "host_memory_gb", 18.5),
    ("Llama 3.1 70B at 3 tok/s with 16 of 80 layers on the GPU", "gpu_layers", 16),
    ("gpt-oss-120b at 25 tok/s with --n-cpu-moe 36", "n_cpu_moe", 36),
])
def test_stated_footprints(text, key, value):
    assert parse_claim(text).footprint.get(key) == value


# --- 6. names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, model", [
    ("DeepSeek 671B at 20 tok/s", "DeepSeek V3"),
    ("满血版 DeepSeek 10 tok/s", "DeepSeek V3"),
    ("满血版 DeepSeek-R1 10 tok/s", "DeepSeek R1"),
    ("V4-Flash at 80 tok/s on an H200", "DeepSeek V4 Flash"),
    ("gpt-oss:20b at 150 tok/s", "gpt-oss-20b"),
    ("qwen3:14b-fp8 at 70 tok/s", "Qwen3-14B"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct-AWQ at 100 tok/s", "Qwen3-Coder-30B-A3B"),
    ("Llama 3.3 70B at 30 tok/s", "Llama 3.3 70B"),
    ("Llama 3.1 70B at 30 tok/s", "Llama 3.1 70B"),
    ("7B 的 Deepseek-r1 跑出 50 tok/s", "DeepSeek-R1-Distill-Qwen-7B"),
])
def test_model_names(text, model):
    assert parse_claim(text).fields.get("model") == model


def test_hugging_face_id_gives_model_and_quantization():
    f = parse_claim("Qwen/Qwen3-Coder-30B-A3B-Instruct-AWQ at 100 tok/s").fields
    assert f["model"] == "Qwen3-Coder-30B-A3B" and f["precision"] == "INT4" and f["quantization"] == "AWQ"


def test_ollama_tag_names_the_precision():
    f = parse_claim("qwen3:14b-fp8 at 70 tok/s").fields
    assert f["precision"] == "FP8"


@pytest.mark.parametrize("text, gpu", [
    ("Qwen3-8B on an RTX 3090 Ti at 90 tok/s", "RTX 3090 Ti"),
    ("Qwen3-8B on an RTX 3090 at 90 tok/s", "RTX 3090"),
    ("Qwen3-8B on a 4090D at 90 tok/s", "RTX 4090 D"),
    ("Qwen3-8B on an H800 at 90 tok/s", "H800 SXM"),
    ("Qwen3-8B on an H20 at 90 tok/s", "H20"),
    ("Qwen3-8B on an A100 40GB at 90 tok/s", "A100 40GB"),
    ("Qwen3-8B on an A100 80GB at 90 tok/s", "A100 80GB SXM"),
    ("Qwen3-8B on an H100 PCIe at 90 tok/s", "H100 PCIe"),
    ("Qwen3-8B on an RTX Pro 6000 Blackwell at 90 tok/s", "RTX PRO 6000 Blackwell"),
    ("Qwen3-8B on an RTX 6000 Ada at 90 tok/s", "RTX 6000 Ada"),
])
def test_gpu_variants_are_different_gpus(text, gpu):
    assert parse_claim(text).fields.get("gpu") == gpu


def test_unknown_names_in_the_text_get_suggestions():
    c = parse_claim("Qwen3-8B on an RTX 4075 at 90 tok/s")
    assert c.unknown_names and c.unknown_names[0]["kind"] == "gpu" and c.unknown_names[0]["suggestions"]
    assert any("did you mean" in n for n in c.notes)


# --- words that belong to another run of the same text -------------------------------------------

def test_a_switch_between_two_figures_is_a_change_and_the_better_end_is_the_headline():
    c, h = head("On one RTX 4090, vLLM ran Qwen3-14B-AWQ at only 6 tok/s; switching to llama.cpp with "
                "Qwen3-30B-A3B it decodes 150 tok/s.")
    assert h.value == 150
    assert c.fields["model"] == "Qwen3-30B-A3B" and c.fields["engine"] == "llama.cpp"
    assert "precision" not in c.fields  # "-AWQ" is the 14B's, not the 30B's
    c, h = head("RTX 5090 单卡用 vLLM 跑 Qwen3-14B-AWQ 只有 6 tok/s，换成 llama.cpp 跑 Qwen3-30B-A3B 后解码达到 150 tok/s")
    assert h.value == 150 and c.fields["engine"] == "llama.cpp"


def test_the_same_figure_before_and_after_a_switch_keeps_the_first():
    c, h = head("8 张 H800 上用 vllm 只能到 1200 tokens/s；换成 8 卡 A800 也是 1200 tokens/s。")
    assert h.span[0] < 30 and c.fields["gpu"] == "H800 SXM"


def test_precision_written_with_another_model_is_not_the_headlines():
    c, _ = head("MLX compares M5 with M4 time to first token: Qwen3-8B (BF16) from 12.5s to 3.9s, "
                "Qwen3-14B 4bit from 30.1s to 7.7s.")
    assert c.fields["value"] == 3.9 and c.fields["precision"] == "BF16"
    c, _ = head("On a 3090 plus two 3060s, Qwen3 32B in Q8 went from 11.0 to 14.2 tokens per second, "
                "while Llama-3.1-70B in Q4 went from 8.1 to 9.9.")
    assert c.fields["precision"] == "Q8_0"


def test_an_engine_in_another_clause_belongs_to_that_clauses_figure():
    c, _ = head("在 4 卡 V100 上用 lmdeploy 部署 Qwen2.5-32B-Instruct-GPTQ-Int4，最高输出速度 70 token/s；"
                "同一台机器用 vllm 跑 Int8 版本，最高只有 40 token/s。")
    assert c.fields["value"] == 70 and c.fields["engine"] == "LMDeploy"


@pytest.mark.parametrize("text, engine", [
    ("A single RTX 4090 reaches a peak of 25 tokens/s on OPT-66B, up to 9x faster than llama.cpp.", None),
    ("A Ryzen AI Max+ 395 box under Ollama with the llama.cpp Vulkan backend ran gpt-oss:120b at 30 tokens/second.",
     "Ollama"),
])
def test_engines_compared_against_or_named_as_a_backend(text, engine):
    c, _ = head(text)
    assert c.fields.get("engine") == engine


@pytest.mark.parametrize("text", [
    "Llama 3.1 8B in INT8 runs at 80 tokens/sec on an A100 40GB, suggesting a batch size of 16 to start.",
    "RTX 5090 单卡 llama.cpp 跑 Qwen3-30B-A3B 解码 150 tok/s，可开 4 路并发。",
])
def test_a_concurrency_given_as_advice_or_capacity_is_not_the_runs(text):
    c, h = head(text)
    assert "concurrency" not in c.fields and h.metric == "generation_tok_s" and h.scope == "request"


@pytest.mark.parametrize("text, gpu", [
    ("AMD 在 MI300X 上跑 FP8 R1，吞吐量是 H200 的 4 倍、超过每秒 6k Tokens", "MI300X"),
    ("Llama3.1-70B on two H100 (PCI-E) cards under Ollama ran at 12.1 tokens/S.", "H100 PCIe"),
    ("在没有 GPU 的环境下，Ollama 跑 Qwen3-8B 可达 9 tokens/s", "CPU"),
])
def test_gpu_compared_by_ratio_variant_in_parentheses_and_no_gpu(text, gpu):
    c, _ = head(text)
    assert c.fields["gpu"] == gpu


def test_a_gpu_also_named_as_a_node_is_not_one_gpu():
    c, _ = head("SGLang 在 MI300X 上跑 R1，吞吐超过每秒 6k Tokens；MI300X 节点可处理 128 个并发请求。")
    assert c.fields["gpu"] == "MI300X" and "gpu_count" not in c.fields


def test_a_count_of_one_is_read_from_its_article():
    """'an RTX 4090' is one GPU, and the words it was read from start at the article (they once
    began inside the quantization name before it: 'K_M on an RTX 4090')."""
    c = parse_claim("Qwen3-30B-A3B Q4_K_M on an RTX 4090 with llama.cpp: generation 93 tok/s")
    assert c.fields["gpu_count"] == 1 and c.sources["gpu_count"] == "an RTX 4090"
    c = parse_claim("Llama 3.1 8B on a single H100 SXM: 95 tok/s")
    assert c.fields["gpu_count"] == 1 and c.sources["gpu_count"] == "a single H100 SXM"


@pytest.mark.parametrize("text, gpu, count", [
    # a range of counts is no count, and not the singular either
    ("KTransformers needs at least 14GB VRAM on 1~4x 4090D: prefill 255 token/s", "RTX 4090 D", None),
    ("DeepSeek-R1 with one to eight Arc A770s reaches 8 tokens/s", "Arc A770 16GB", None),
    ("Qwen3 8B on 2-4 H100s at 100 tok/s", "H100 SXM", None),
    # a count of systems multiplies the system's GPUs: 4 × 72
    ("four GB300 NVL72 systems processed 2.49 million tokens per second on DeepSeek-R1", "GB300", 288),
    ("two DGX H100 systems serve Llama 3.1 70B at 5,000 tok/s", "H100 SXM", 16),
    ("an HGX B200 runs Llama 3.1 70B at 1000 tok/s", "B200", 8),
])
def test_ranges_of_counts_and_counts_of_systems(text, gpu, count):
    c = parse_claim(text)
    assert (c.fields.get("gpu"), c.fields.get("gpu_count")) == (gpu, count)


def test_n_generated_is_an_output_length_and_single_stream_words_anywhere_give_one():
    c = parse_claim("llama-batched-bench: one sequence (512 prompt, 32 generated) decodes at 29.24 t/s on a DGX Spark")
    assert (c.fields.get("input_tokens"), c.fields.get("output_tokens")) == (512, 32)
    # 单流 (one stream) stated for the whole run, though written next to the prefill figure
    c = parse_claim("单台 DGX Spark 单流 2048 输入、128 输出：GPT-OSS-20B 为 3670.42 pp / 82.74 tg tok/s")
    assert c.fields["value"] == 82.74 and c.fields.get("concurrency") == 1


def test_a_figure_sharing_its_scope_with_another_takes_its_metric_too():
    """'each node achieves X input and Y output tok/s': Y is the node's total (aggregate), not one
    request's generation speed, though 'output tokens per second' alone would read as one."""
    c = parse_claim("DeepSeek-R1 on H20 GPUs: each node achieves 16.5k input tokens per second and "
                    "5.7k output tokens per second")
    assert [(f.value, f.metric, f.scope) for f in c.figures] == [
        (16500, "prefill_tok_s", "node"), (5700, "aggregate_throughput", "node")]
    assert c.fields["metric"] == "aggregate_throughput"


def test_concurrency_of_a_prefill_only_run_is_not_the_headlines():
    c = parse_claim("DeepSeek-R1 on 2 GB300: prefill only (ISL=2K, OSL=1, batch=256) 22476 tok/s per GPU; "
                    "mixed (ISL=2k, OSL=1k) output throughput 3072 tok/s per GPU")
    assert c.fields["value"] == 3072 and "concurrency" not in c.fields
    assert c.figures[0].concurrency == 256  # the prefill figure keeps its own
    # one query stated for the whole text, away from the figure
    c = parse_claim("Llama 4 Maverick at over 2,500 t/s on Cerebras. A commenter notes this is the speed for 1 query.")
    assert c.fields["concurrency"] == 1


def test_an_output_rate_word_without_a_unit_is_a_speed_and_disabled_cuda_graphs_are_off():
    # 出字率 (output character rate) names a tok/s figure even when other figures have units
    c = parse_claim("DeepSeek-V3 在 16 张 H800 上用 SGLang（--disable-cuda-graph），并发 96 时平均首 token 时延 0.57 s，出字率 622.05。")
    assert (c.fields["value"], c.fields["unit"]) == (622.05, "tok/s")
    assert c.fields["cuda_graph"] is False
    assert parse_claim("Llama 3 8B on an RTX 4090 with CUDA graphs: 120 tok/s").fields["cuda_graph"] is True
    # the prompt length a prefill figure was measured over makes it a prefill figure
    c = parse_claim("llama.cpp: 9.19 tokens per second for generation and 8.10 tokens per second for a 10-token prompt")
    assert [f.metric for f in c.figures] == ["generation_tok_s", "prefill_tok_s"]


def test_decoding_with_and_without_drafts_keeps_the_speculative_figure():
    # "standard decoding" is decoding without speculation, so rule 4 of the headline applies
    c = parse_claim("Llama 3.3 70B FP8 on an H200 at ~1,700 tokens/sec with standard decoding and "
                    "~6,200 tokens/sec with EAGLE-3 speculative decoding")
    assert [f.spec_decoding for f in c.figures] == [False, True] and c.fields["value"] == 6200
    c = parse_claim("Gemma 31B Q8_0 runs at 6.5-6.8 tok/s without a draft, while the MTP draft lifts it to 22.1 tok/s")
    assert c.figures[0].spec_decoding is False and c.fields["value"] == 22.1


def test_a_figure_called_the_maximum_is_stressed():
    c = parse_claim("Qwen 27B INT8 on an RTX 3090 gives ~95 tokens/s typically and ~155 tokens/s the maximum")
    assert c.fields["value"] == 155 and c.figures[1].qualifier == "up_to"


def test_rates_named_by_a_tps_word_and_results_set_side_by_side():
    # a log's camel-case keys: the generation figure is the headline, the prompt one is prefill
    c = parse_claim("Qwen3.5-35B-A3B-4bit on an M5 Max: generationTPS 133.47 and promptTPS 2756.56, TTFT 536.5 ms")
    assert [(f.value, f.metric) for f in c.figures] == [(133.47, "generation_tok_s"), (2756.56, "prefill_tok_s"),
                                                        (536.5, "ttft")]
    assert c.fields["value"] == 133.47
    # 而 sets the user's result against the README's: not a change, so the first stays the headline
    c = parse_claim("DeepSeek-R1 4bit 在单张 RTX 4090 上只能达到 6-7 token/s，而 readme 里 32 核就能到 8token/s")
    assert c.fields["value"] == [6, 7]
    # "from 6 to 8" is still a change to 8
    assert parse_claim("DeepSeek-R1 4bit 在单张 RTX 4090 上从 6 token/s 提升到 8 token/s").fields["value"] == 8


def test_more_than_and_under_make_one_range():
    c = parse_claim("Llama-2-70B Q2 on an 8GB card: more than 800 and under 1000 milliseconds per token")
    assert c.fields["value"] == [800, 1000] and c.fields["unit"] == "ms/tok"


def test_a_rate_written_after_per_second_with_a_stress_word_is_a_figure():
    # "每秒最多可处理 16 个 Tokens": the rate written before its number, with 最多 in between
    c = parse_claim("KTransformers 在 24 GB 显存的 PC 上跑 DeepSeek-R1 671B，每秒最多可处理 16 个 Tokens")
    assert (c.fields["value"], c.fields["unit"]) == (16, "tok/s")
    assert c.figures[0].qualifier == "up_to"


def test_a_figure_in_a_question_or_an_interactivity_level_is_a_condition_not_the_result():
    # the asker's target ("能否超过 30") is not a result; the answer's 36 is
    c = parse_claim("有人问 Qwen3-Next 的单请求 decode 能否超过 30tokens/s，回复称 4 卡运行单请求输出已平均在 36tokens/s 以上")
    assert [f.condition for f in c.figures] == ["a question", None]
    assert c.fields["value"] == 36
    c = parse_claim("Can Llama 3 8B reach 100 tok/s on a 3060? On mine it does 62 tok/s.")
    assert c.fields["value"] == 62
    # the per-user speed a throughput was read at is its condition
    c = parse_claim("DeepSeek R1 在 8k/1k、fp8、每用户 75 tok/s 的交互性下，B200 每 GPU 吞吐 2558 tok/s")
    assert c.figures[0].condition and c.fields["value"] == 2558
    assert (c.fields["metric"], c.headline.scope) == ("aggregate_throughput", "gpu")
    c = parse_claim("At an interactivity of 50 tok/s/user, GB200 NVL72 serves DeepSeek R1 at 5,790 tok/s per GPU")
    assert c.fields["value"] == 5790


def test_reading_a_prompt_at_a_rate_is_prefill_and_tgs_is_per_gpu():
    c = parse_claim("Qwen3-Coder-30B-A3B Q4_K_M read a 7,624-token prompt at 779 tok/s and generated at 66 tok/s")
    assert [f.metric for f in c.figures] == ["prefill_tok_s", "generation_tok_s"] and c.fields["value"] == 66
    c = parse_claim("GB300 上 DeepSeek-V3.2 NVFP4 TP2：单 GPU 纯 Prefill 吞吐 7360 TGS，混合场景输出吞吐 2816 TGS")
    assert [(f.metric, f.scope) for f in c.figures] == [("prefill_tok_s", "gpu"), ("aggregate_throughput", "gpu")]
    assert c.fields["value"] == 2816


def test_a_concurrency_changed_to_a_value_is_that_runs_concurrency():
    c = parse_claim("DeepSeek-V3 on 16 H800 with SGLang: with concurrency lowered to 32, TTFT 0.51 s and 1,266 output tok/s")
    assert c.fields["concurrency"] == 32
    # an output rate (出字率) at the run's concurrency of 32, with no per-user word, is the total
    c = parse_claim("H800 上 DeepSeek-V3 SGLang 测试，并发降到 32 时平均首 token 时延 0.51 s，出字率 266.11")
    assert c.fields["concurrency"] == 32 and c.fields["metric"] == "aggregate_throughput"
    assert c.headline.scope == "aggregate"


def test_an_output_rate_above_any_single_request_is_a_total():
    # "output tok/s" over a benchmark of many prompts: 7404 tok/s is no single request's speed
    c = parse_claim("gpt-oss-120b with -tp 8 on B200 reached 7404.72 output tok/s on 1000 ShareGPT prompts")
    assert (c.fields["metric"], c.headline.scope) == ("aggregate_throughput", "aggregate")
    # below that ceiling an output rate stays a generation speed
    assert parse_claim("Llama 3 8B on an RTX 4090: 130 output tok/s").fields["metric"] == "generation_tok_s"


def test_precision_written_with_its_method_or_as_a_dtype_or_against_a_baseline():
    # GPTQ says INT4 only when no width is written with it
    assert parse_claim("Qwen2-1.5B-Instruct-GPTQ-Int8 on a T4: 3-5 tokens/s").fields["precision"] == "INT8"
    assert parse_claim("Qwen2-7B-Instruct-GPTQ on a T4: 20 tokens/s").fields["precision"] == "INT4"
    # vLLM's --dtype half is FP16 weights
    assert parse_claim("Qwen3-32B with vLLM on 4 L20 (tensor-parallel-size 4, dtype half): 1 tokens/s").fields["precision"] == "FP16"
    # the baseline a precision is compared against is not the run's
    c = parse_claim("在单卡 H100 上用 vLLM 跑 Llama-3-8B，FP8 相比 BF16 基线把吞吐从 7,437 tok/s 提升至 11,921 tok/s")
    assert c.fields["precision"] == "FP8"
    c = parse_claim("Llama 3 8B on an H100: FP8 reaches 11,921 tok/s compared with the BF16 baseline's 7,437 tok/s")
    assert c.fields["precision"] == "FP8"


def test_llama_bench_type_names_and_weights_file_names_give_the_gguf_type():
    c = parse_claim("qwen35 27B Q4_K - Medium on two RX 7900 XTX: 34.50 t/s (tg128)")
    assert c.fields["precision"] == "Q4_K_M" and c.fields["model"] == "Qwen3.5-27B"
    # in a GGUF file's name the last type is the file's; "BF16" there is what it was made from
    c = parse_claim("DeepSeek-V3-BF16-256x20B-Q8_0.gguf CPU-only with llama-cli: 4-5 tokens/second")
    assert c.fields["precision"] == "Q8_0"


def test_lengths_written_as_counts_of_a_benchmark_log():
    # "3,000 prompts" is how many prompts, not a prompt length
    c = parse_claim("Llama-3.1-405B FP8 with TRT-LLM at TP 8 on B200, ISL 124 and OSL 2048 with 3,000 prompts: "
                    "output throughput 3,396 token per second")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (124, 2048)
    c = parse_claim("Llama 4 Scout bf16 on 8x H100 (1024-token prefill and 256-token decode): 1850 decode tok/s")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (1024, 256)
    c = parse_claim("Qwen3-4B 4bit on an M3 Pro: 44.6 tok/s generation for 1479 prompt tokens and 2023 completion tokens")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (1479, 2023)
    # Ollama's --verbose log: "prompt eval count" is the prompt, "eval count" the output
    c = parse_claim("KTransformers on an A100: prompt eval count 35, eval count 1000, eval rate 6.15 tokens/s")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (35, 1000)


def test_a_spread_written_with_plus_minus_is_not_a_figure():
    c = parse_claim("Llama 3.1 8B Q4_K_M on an RTX 3080 with llama.cpp: prompt evaluation 3806.89 ± 15.44 t/s and "
                    "token generation 111.95 ± 2.45 t/s")
    assert [f.value for f in c.figures] == [3806.89, 111.95] and c.fields["value"] == 111.95
    assert "output_tokens" not in c.fields


def test_chinese_token_words_ranges_after_per_second_and_hyphenated_units():
    # 词元 is "token"; 每秒 500-800 token is one range
    assert parse_claim("在 M4 Max 上跑 70B 4 位量化模型，每秒 10.2 个词元").fields["value"] == 10.2
    assert parse_claim("Groq 的云端 API 以每秒 500–800 token 的速度服务 Llama").fields["value"] == [500, 800]
    assert parse_claim("Qwen3 27B on an M1 Max reached 20.371 tokens-per-sec").fields["value"] == 20.371


def test_a_unit_written_once_as_a_heading_gives_the_bare_numbers_after_it():
    c = parse_claim("Output tokens/s on an H100 at batch size 1 with vLLM: vanilla Llama-3.1-8B-Instruct did 133, "
                    "EAGLE with K=2 did 201.69 (1.51x), and EAGLE 3 with K=2 did 220.21 (a 1.65x speedup).")
    assert [f.value for f in c.figures] == [133, 201.69, 220.21]
    assert [f.spec_decoding for f in c.figures] == [False, True, True] and c.fields["value"] == 201.69


def test_words_after_with_belong_to_the_next_figure():
    c = parse_claim("With Ollama on a 4060 Ti 16GB, gpt-oss 20b ran at an eval rate of 38.37 tokens/s with prompt eval "
                    "at 162.00 tokens/s.")
    assert [f.metric for f in c.figures] == ["generation_tok_s", "prefill_tok_s"] and c.fields["value"] == 38.37


def test_autoregressive_is_without_speculation_and_can_reach_is_no_change():
    c = parse_claim("On an M1 Max, Qwen3.6-27B measured 14.8 tok/s autoregressive and 21.4 tok/s with MTP depth 2")
    assert c.figures[0].spec_decoding is False and c.fields["value"] == 21.4
    # 能到 ("can reach") sets a second setup beside the first; it is not a change to it
    c = parse_claim("用一张 V100 跑 qwen1.5-14b-int4，xinference 大约只有 5tokens/s，直接用 transformers 能到 15tokens/s")
    assert c.fields["value"] == 5
    # "从 … 的 18 提升到调优后的 25" is a change, words between 到 and the number or not
    c = parse_claim("Ollama 跑 Llama 3 8B，RTX4090 的吞吐从默认配置的 18 tokens/s 提升到调优后的 25 tokens/s")
    assert c.fields["value"] == 25


def test_counts_not_read_from_a_cpu_model_number_or_a_bit_width():
    c = parse_claim("DeepSeek-R1 Q4_K_M on a dual-socket Xeon Gold 5218 server with 4x RTX 4090: 0.055 tokens/s")
    assert c.fields["gpu_count"] == 4
    c = parse_claim("Single-batch 4-bit Llama-2-7B-chat on an RTX 4090: 206.4 tokens/s")
    assert c.fields["concurrency"] == 1
    c = parse_claim("4 卡 A100 上跑 INT4 量化版 DeepSeek 只要 12.3ms/token；而在 8 卡昇腾 910B 集群上，FP16 吞吐量达 380tokens/s")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Ascend 910B", 8)
    # "较 FP32" is the baseline, TensorRT the engine
    c = parse_claim("启用 FP16 混合精度 + TensorRT 优化后，DeepSeek-R1 在 A10 上单 batch 吞吐达 14.2 tokens/sec，较 FP32 提升 3.9 倍")
    assert (c.fields["precision"], c.fields["engine"]) == ("FP16", "TensorRT")


def test_an_article_is_not_part_of_a_models_name():
    c = parse_claim("A LLaMA 65B in 4-bit on two RTX 3090 ran at 12 tokens/s")
    assert c.fields.get("model") != "A LLaMA 65B"


def test_the_precision_in_the_headline_models_own_name_wins():
    # the Ollama tag that ran says q3_K_M; the Q4_K_M build named later was rejected
    c = parse_claim("On an RTX PRO 6000 under Ollama, llama3.3:70b-instruct-q3_K_M (34 GB on disk) ran at 1.6 tokens "
                    "per second, after the Q4_K_M build was rejected for wanting 114 GiB of system RAM")
    assert c.fields["precision"] == "Q3_K_M"


def test_a_latency_that_is_neither_first_token_nor_per_token_is_end_to_end():
    c = parse_claim("Qwen3-32B（FP16）在单张 A100 上 batch_size=8 跑出 192 tokens/sec，输出 1K tokens 延迟 1.1s")
    assert [(f.value, f.metric) for f in c.figures] == [(192, "aggregate_throughput"), (1.1, "e2e_latency")]
    assert parse_claim("TTFT latency 350 ms on an H100 for Llama 3 8B").figures[0].metric == "ttft"


def test_a_target_someone_wants_is_a_condition_and_c8_is_concurrency_8():
    c = parse_claim("KTransformers 在 Xeon Gold 6133 和一张 RTX 4090 上跑 deepseek-R1 Q4_K_M，eval rate 为 4.5tokens/s，"
                    "想优化到 15s/token")
    assert c.figures[-1].condition and c.fields["value"] == 4.5
    c = parse_claim("Llama 3 8B on an A10 gives 30 tok/s; I am hoping to reach 60 tok/s")
    assert c.figures[1].condition == "a target" and c.fields["value"] == 30
    c = parse_claim("Qwen3.5-27B on one RTX 3090 with vLLM: 48.9 tok/s single-stream (C1) and 242.0 tok/s at C8")
    assert [f.concurrency for f in c.figures] == [1, 8]
    assert c.figures[1].metric == "aggregate_throughput"


def test_numbers_that_share_the_unit_of_a_figure():
    # a list before one unit ("分别为 217、83、45 tok/s")
    c = parse_claim("多卡运行后 7b、32b、70b 模型分别为 217、83、45 tok/s")
    assert [f.value for f in c.figures] == [217, 83, 45]
    # a second change written without the unit: "…, and from 1344.136 to 1588.662 for GPT OSS 20B"
    c = parse_claim("prompt processing rose from 1593.237 to 1731.991 tok/sec for Qwen3 30B A3B Q4, and from 1344.136 "
                    "to 1588.662 for GPT OSS 20B Q4")
    assert [f.value for f in c.figures] == [1593.237, 1731.991, 1344.136, 1588.662]
    assert [f.before_change for f in c.figures] == [True, False, True, False]
    c = parse_claim("Qwen3 32B in Q8 went from 13.0 to 15.6 tokens per second, while R1-Distill-Llama-70B in Q4 went from 10.3 to 12.1")
    assert [f.value for f in c.figures] == [13.0, 15.6, 10.3, 12.1]
    # latencies of a sentence that opened with a time-to-first-token change
    c = parse_claim("MLX 比较 M5 与 M4 的首个 token 时间：Qwen3-8B 从 16.92s 降到 4.67s，Qwen3-14B 4bit 从 35.15s 降到 8.66s，"
                    "GPT-OSS-20B 从 9.54s 降到 2.87s")
    assert [f.value for f in c.figures] == [16.92, 4.67, 35.15, 8.66, 9.54, 2.87]
    assert {f.metric for f in c.figures} == {"ttft"} and c.fields["value"] == 4.67


def test_a_model_name_is_not_found_inside_a_longer_one_nor_per_request_read_as_one_request():
    # "Qwen-7B-Chat" is not DeepSeek-R1-Distill-Qwen-7B (whose name ends in "Qwen 7B")
    c = parse_claim("在 A10 上用 text-generation-webui 部署 Qwen-7B-Chat，速度 17.62 tokens/s")
    assert c.fields.get("model") != "DeepSeek-R1-Distill-Qwen-7B"
    # "per request" under a serving load is each request's speed, not a concurrency of one
    c = parse_claim("SGLang serving DeepSeek V3 on H200 GPUs gave only 13 tokens/sec per request")
    assert c.headline.scope == "request" and "concurrency" not in c.fields
    assert parse_claim("Llama 3 8B on an RTX 4090: 120 tok/s for a single request").fields["concurrency"] == 1


def test_exllama_v1_cpu_in_brackets_and_ascend_variants():
    assert parse_claim("LLaMA 65B with ExLlama on dual 4090: 20.25 tps").fields["engine"] == "ExLlama"
    assert parse_claim("Mistral 7B with exllamav2 on a 3090: 80 tps").fields["engine"] == "ExLlamaV2"
    c = parse_claim("13B 模型参考数据：llama.cpp (CPU) 约 15-30 tokens/秒，vLLM (GPU) 100-200 tokens/秒")
    assert c.fields["gpu"] == "CPU"
    c = parse_claim("vLLM Ascend 在 910B2 上两卡运行 Qwen3-30B-A3B，平均 29.21 token/s")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Ascend 910B", 2)


def test_lengths_in_characters_are_not_token_counts():
    c = parse_claim("在 V100 上部署 Qwen2-7B，输入 664 个字符、输出 82 个字符，速度 17.62 tokens/s")
    assert "input_tokens" not in c.fields and "output_tokens" not in c.fields
    assert parse_claim("Qwen2-7B on a V100: 17.62 tokens/s, input 664 tokens").fields["input_tokens"] == 664


def test_a_prompt_length_written_for_a_prefill_figure_is_not_the_decode_headlines():
    c = parse_claim("DeepSeek-R1 IQ1_S with llama.cpp: 9.19 tokens per second for generation and 8.10 tokens per "
                    "second for a 10-token prompt")
    assert c.fields["value"] == 9.19 and "input_tokens" not in c.fields
    # the same words for a prefill headline keep it
    c = parse_claim("DeepSeek-R1 IQ1_S with llama.cpp: 8.10 tokens per second for a 10-token prompt")
    assert c.fields["input_tokens"] == 10


def test_words_before_against_belong_to_the_figure_before_it_and_bracketed_notes_do_not_separate():
    c = parse_claim("ExLlamaV2 on an A100-SXM4-80GB generated 119.64 tokens/second, with Llama2-7B exl2 at 4.0bpw, "
                    "against the 164 t/s listed in the project's table")
    assert c.fields["precision"] == "4.0bpw"
    c = parse_claim("13B 模型参考数据：llama.cpp (CPU) 约 15-30 tokens/秒，vLLM (GPU) 100-200 tokens/秒")
    assert c.fields["engine"] == "llama.cpp"


def test_single_batch_4_bit_in_traditional_chinese_and_lengths_before_a_full_stop():
    assert parse_claim("文章称 DeepSeek-R1 在 A10 上单 batch 吞吐达 14.2 tokens/sec").fields["concurrency"] == 1
    assert parse_claim("在 M4 Max 上跑 4 位元量化的 Llama 70B，每秒 10.2 個詞元").fields["precision"] == "INT4"
    c = parse_claim("DeepSeek-V3.2 NVFP4 on GB300 reaches an output throughput of 2816 TGS at ISL=2k, OSL=1k. More later.")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (2000, 1000)


def test_a_prompt_length_written_with_the_output_length_is_the_runs():
    c = parse_claim("Qwen3.5-35B-A3B-4bit on an M5 Max reports generationTPS 133.47 and promptTPS 2756.56 for a "
                    "1479-token prompt and 2023 completion tokens")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (1479, 2023)
    c = parse_claim("Qwen3 27B on a 3090: ~95 tokens/s single-user and ~67 tokens/s end-to-end after a 1,052-token prefill")
    assert "input_tokens" not in c.fields


def test_a_gguf_type_explained_in_brackets_fp8_attention_and_a_count_in_the_headlines_own_clause():
    c = parse_claim("KTransformers running DeepseekV3-q4km (int4) on a 4090 decoded at 13.5 token/s")
    assert c.fields["precision"] == "Q4_K_M"
    c = parse_claim("DeepSeek R1 on GB300 NVL72 with FP8 attention and FP8 KV cache: time to first token 8.6 seconds")
    assert "precision" not in c.fields
    c = parse_claim("在 A2 服务器 8 卡 910B3 上，回复称 4 卡运行单请求输出已平均在 36tokens/s 以上")
    assert c.fields["gpu_count"] == 4


def test_an_nx_count_before_a_machine_counts_its_gpus():
    c = parse_claim("QwQ-32B with vllm serve at --max-concurrency 1: the 8x H200 machine gives 115.31 tok/s output")
    assert c.fields["gpu_count"] == 8
    c = parse_claim("Llama 3.1 70B on a single H200 node: 2,000 tok/s total")
    assert c.fields.get("gpu_count") != 1


def test_a_slash_pair_of_close_speeds_is_a_range_and_x_and_y_share_a_unit():
    c = parse_claim("On a laptop RTX 5090, TinyLlama-1.1B EXL2 topped out around 350/370 tokens/s")
    assert c.fields["value"] == [350, 370]
    c = parse_claim("Qwen3.8-27B EXL3 under TabbyAPI decoded at 80.08 and 95.36 tok/s per stream at one concurrent request")
    assert [f.value for f in c.figures] == [80.08, 95.36] and c.fields["value"] == 80.08
    assert (c.fields["concurrency"], c.fields["engine"]) == (1, "TabbyAPI")
    # a prefill/decode pair written with a slash stays two figures
    assert len(parse_claim("Qwen3 8B Q4_K_M: 3670.42 pp / 82.74 tg tok/s on a 4090").figures) == 2


def test_a_figure_with_a_draft_beside_one_without_a_word_for_it_is_the_headline():
    c = parse_claim("On an RTX 3060, llama-cli ran llama3.1 8b q8_0 at 32.49 tokens per second, and llama-speculative "
                    "with a llama3.2 1b draft decoded at 55.473 t/s")
    assert c.fields["value"] == 55.473


def test_can_reach_is_not_stress_and_generating_n_tokens_is_the_output_length():
    c = parse_claim("在 A100 80GB 上跑 DeepSeek-67B，单卡吞吐量约 12 tokens/秒，4卡并联可达 45 tokens/秒")
    assert c.fields["value"] == 12
    assert parse_claim("最高可达 45 tokens/秒，平时 30 tokens/秒").fields["value"] == 45
    c = parse_claim("ExLlama on an RTX 3060 with llama-7b-4bit: 36.62 tokens/second when generating 128 tokens")
    assert c.fields["output_tokens"] == 128


def test_the_draft_models_name_and_type_are_not_the_targets():
    c = parse_claim("On an RTX 3060, llama-cli ran llama3.1 8b-instruct q8_0 at 32.49 tokens per second, and "
                    "llama-speculative with a llama3.2 1b-instruct q4_0 draft decoded at 55.473 t/s")
    assert c.fields["model"] == "Llama 3.1 8B" and c.fields["precision"] == "Q8_0"
    c = parse_claim("llama.cpp speculative sampling with a 70b f16 target and a 7b q8_0 draft on CPU only: 0.52 t/s")
    assert c.fields["precision"] == "F16" or c.fields["precision"] == "FP16"


def test_a_family_named_once_and_a_size_by_the_figure_make_the_model():
    c = parse_claim("An article on Llama 3.1 lists decode speeds on A100 GPUs of 200+ tokens/s for the 405B model "
                    "and 1,000+ for the 8B")
    assert c.fields["model"] == "Llama 3.1 405B"


def test_an_unknown_model_named_by_the_headline_is_its_model_not_a_known_one_after_it():
    c = parse_claim("llama.cpp 在 AVX512 CPU 上：LFM2-8B-A1B 在 Q2_K 下最快，达 18.1 TPS；Qwen3-30B-A3B 的 Q2_K 为 6.8 TPS")
    assert c.fields["model"] == "LFM2-8B-A1B"
    assert any(u["kind"] == "model" and u["words"] == "LFM2-8B-A1B" for u in c.unknown_names)


def test_a_change_result_stays_the_headline_beside_a_speculative_step():
    c = parse_claim("TensorRT-LLM raised DeepSeek-R1 on 8xB200 from 67 to 368 tokens per second, with three MTP layers "
                    "(253 TPS) plus relaxed acceptance giving the 368")
    assert c.fields["value"] == 368
    # two readings written with spaces around the slash are two figures
    assert parse_claim("LLaMA 65B with ExLlama on dual 4090 gave 20.25 / 25.00 tps").fields["value"] == 20.25


def test_exllamas_first_pass_is_the_prompt():
    c = parse_claim("ExLlama's benchmark on an RTX 3060 12GB with llama-7b-4bit reported 1423.20 tokens/second on the "
                    "first inference pass and 36.62 tokens/second when generating 128 tokens")
    assert c.figures[0].metric == "prefill_tok_s" and c.fields["value"] == 36.62


def test_n_tokens_in_seconds_a_variant_written_after_the_name_and_q40_files():
    c = parse_claim("A LLaMA 65B model on a single 3090 produced 40 tokens in 29.10 seconds (1.37 tokens/s)")
    assert c.fields["output_tokens"] == 40
    c = parse_claim("部署 DeepSeek 时，NVIDIA A100 的 40GB 版本在 FP16 精度下可实现约 200 Tokens/s 的推理速度")
    assert c.fields["gpu"] == "A100 40GB" and c.fields["gpu_memory_gb"] == 40
    c = parse_claim("distributed-llama on an RTX 3090: llama3_1_8b_instruct_q40 predicted at 45.33 tokens/s")
    assert c.fields["precision"] == "Q4_0"
    c = parse_claim("On 2x RTX 5090 vLLM ran Qwen3.6-35B-A3B INT4 at 252.0 decode TPS, and prefill reached 20,879 tok/s "
                    "on a ~10K prompt")
    assert "input_tokens" not in c.fields


def test_python_bindings_and_engines_named_by_their_kernel():
    c = parse_claim("After moving to llama-cpp-python 0.1.74, LLaMA 65B on a 3090 gave 1.37 tokens/s")
    assert (c.fields["engine"], c.fields["engine_version"]) == ("llama-cpp-python", "0.1.74")
    assert parse_claim("internlm-chat-7b under TurboMind on an A100: 70.98 token/s").fields["engine"] == "LMDeploy"


def test_time_spent_and_inference_time_are_latencies():
    c = parse_claim("有人用 4090 跑 ChatGLM-6B 解一道数学题：76 token 的提示，ChatGLM-6B 花了 20s 输出 578 token")
    assert (c.fields["value"], c.fields["unit"], c.fields["metric"]) == (20, "s", "e2e_latency")
    assert c.fields["output_tokens"] == 578
    c = parse_claim("在 RTX 4090 上用 transformers 以 float16 加载 Mixtral-8x7B，生成 50 个新 token 的推理时间为 12.4s")
    assert (c.fields["value"], c.fields["metric"], c.fields["output_tokens"]) == (12.4, "e2e_latency", 50)


def test_a_full_gguf_type_beats_a_bare_width_and_six_bit_is_six_bits():
    c = parse_claim("Qwen3.8-27B as an Unsloth UD-Q4_K_XL GGUF on 1x RTX 3090 with Q4 MTP averaged 40.7 decode tok/s")
    assert c.fields["precision"].upper() == "UD-Q4_K_XL"
    c = parse_claim("mlx_lm.generate on an M4 Max ran mlx-community/Qwen2.5-72B-Instruct-6bit at 7.919 tokens-per-sec")
    assert c.fields["precision"] == "6bpw"


def test_output_for_n_tokens_cpus_of_a_system_and_alternative_gpus():
    c = parse_claim("BLOOMChat-176B on 4 A100 80G GPUs with int8 took about 160seconds for 500 tokens")
    assert c.fields["output_tokens"] == 500
    c = parse_claim("llama.cpp on the CPUs of a dual Epyc 9175F system with DDR5 6400: Llama 3.1 70B f16 at 4.31 t/s")
    assert c.fields["gpu"] == "CPU"
    c = parse_claim("Ollama ran DeepSeek R1 671B on an AmpereOne A192-32X CPU at 4.18 tokens/sec")
    assert c.fields["gpu"] == "CPU"
    c = parse_claim("A guide says a 16 GB RTX 4080 or RTX 5080 runs Devstral Small 24B Q4_K_M at 110-140 tok/sec")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("RTX 5080", 1)  # the one nearest the figure


def test_one_token_every_n_ms_and_reads_per_second():
    c = parse_claim("On an H100 a 70B model produces one token every 30-50ms, because each pass reloads the weights")
    assert (c.fields["value"], c.fields["unit"], c.fields["metric"]) == ([30, 50], "ms/tok", "tpot")
    c = parse_claim("At batch size 1 an H100 can read a 70 GB model approximately 48 times per second, the ceiling on "
                    "token generation speed")
    assert (c.fields["value"], c.fields["unit"]) == (48, "tok/s")


def test_a_name_ending_in_s_is_not_read_as_a_plural_of_a_shorter_one():
    c = parse_claim("修正网络拓扑后，在 32 张 L40S 上用 SGLang 跑 DeepSeek-R1 INT8，128 并发的吞吐 777.92 token/s")
    assert c.fields["gpu"] == "L40S"
    assert parse_claim("Llama 3 8B on two H100s: 150 tok/s").fields["gpu"].startswith("H100")


def test_a_raspberry_pi_is_a_cpu_a_size_in_brackets_and_a_previous_record_is_not_stressed():
    c = parse_claim("On a Raspberry Pi 5 paging Qwen2.5 (7B) in from swap, throughput rose from 0.10 tps to 0.16 tps")
    assert (c.fields["gpu"], c.fields["model"]) == ("CPU", "Qwen2.5-7B")
    c = parse_claim("Qwen3-30B-A3B runs on four Raspberry Pi 5 boards with distributed-llama at 15.143 tok/s decode, "
                    "above the previous public record of 13.04 tok/s")
    assert c.fields["value"] == 15.143
    c = parse_claim("用 KTransformers 部署 Deepseek-r1-q4-k-m，解码速度 6.5 tokens/s")
    assert c.fields["precision"] == "Q4_K_M"


def test_a_model_named_after_another_with_its_own_size_is_not_that_model():
    # a 3B model distilled from R1 is not the 671B R1: the size written in the name decides
    c = parse_claim("DeepSeek-R1-Distill-Mistral-3B at 120 tok/s on an RTX 4090")
    assert c.fields.get("model") != "DeepSeek R1"
    with pytest.raises(TokcheckError, match="3B"):
        find_model("DeepSeek-R1-Distill-Mistral-3B")
    # the teacher's own size, and a size within the model's rounding, still name it
    assert find_model("DeepSeek R1 671B").name == "DeepSeek R1"
    assert find_model("Llama 2 7B").name == "Llama 2 7B"
    assert find_model("Mixtral 8x7B").name == "Mixtral 8x7B"
    assert parse_claim("DeepSeek-R1 at 20 tok/s on 8x H200").fields["model"] == "DeepSeek R1"


def test_a_possessive_before_a_size_is_no_model_name():
    assert parse_claim("Our 13B model runs at 40 tok/s on an RTX 4090 in FP16").fields.get("model") is None
    # a family before a size is: Falcon-40B (a catalog model since the eleventh round of entries)
    assert parse_claim("Falcon 40B runs at 20 tok/s on two A100s").fields.get("model") == "Falcon-40B"


def test_a_range_of_concurrencies_is_its_top_end_and_its_low_end_is_no_single_stream():
    # a sweep "batch size 1-4" reports its peak at the top; its "1" is not "batch size 1"
    for text, n in (("Llama 3.1 8B on an H100 with vLLM, batch size 1-4: up to 400 tok/s total", 4),
                    ("Qwen3-8B on an RTX 4090, concurrency 1 to 64, peak throughput 2,000 tok/s", 64),
                    ("并发 1~32 下 Qwen3-32B 在 H200 上吞吐最高 3000 tokens/s", 32)):
        c, h = head(text)
        assert c.fields["concurrency"] == n and h.concurrency == n
        assert h.scope == "aggregate"
    c, h = head("batch size 1: 50 tok/s on an RTX 4090 with Llama 3.1 8B")
    assert c.fields["concurrency"] == 1 and h.scope == "request"


def test_a_time_per_generated_token_and_a_speed_written_as_a_bare_token_count():
    c, h = head("On one phone, distributed-llama ran Llama-3-8B in Q40 at about 808 ms per generated token")
    assert (h.value, h.unit, h.metric) == (808.0, "ms/tok", "tpot") and c.fields["precision"] == "Q4_0"
    c, h = head("用 4 张 3090 跑 ktransformers，--max_new_tokens 设为 16384 时速度 2.5token，8192 时 3.2token，"
                "2048 时 4.1token")
    assert [f.value for f in c.figures] == [2.5, 3.2, 4.1] and (h.value, h.unit) == (2.5, "tok/s")
    c, h = head("双卡 RTX 4090D 上部署 gpt-oss-20b，从提交提问到网页完整返回第一段回答稳定在 1.47 秒以内，最短 1.32 秒")
    assert (h.value, h.unit, h.metric) == (1.47, "s", "e2e_latency")


def test_bits_per_weight_memory_used_and_counts_written_with_a_multiplication_sign():
    c = parse_claim("an EXL2 quant of Llama 3 70B at ~2.4 bits per weight hits 35 tokens/sec on a single RTX 4090")
    assert c.fields["precision"] == "2.4bpw"
    # memory a run used is not the card's memory, and "4.27–4.35" is no "35"
    c = parse_claim("Mistral 7B AWQ on a T4 at 34.8 tokens/s using 4.27–4.35 GB of VRAM")
    assert c.fields.get("gpu_memory_gb") is None
    assert parse_claim("DeepSeek-R1 8bit 可在单张 RTX 4090 上运行，内存占用仅 22GB，速度 5 tokens/s").footprint["memory_used_gb"] == 22
    assert parse_claim("DeepSeek-R1 4bit 量化后模型仅 84GB，RTX 4090 上 7.3tokens/s").footprint["weights_gb"] == 84
    for text, gpu, n in (("70B 模型 FP16 在 RTX 4090×2（SLI 模式）上吞吐量 12tokens/s", "RTX 4090", 2),
                         ("H100×8 上 2000 tokens/s", "H100 SXM", 8),
                         ("该模型在双 4090 上最高推理速度约为 90 Tokens/s", "RTX 4090", 2)):
        c = parse_claim(text)
        assert (c.fields["gpu"], c.fields["gpu_count"]) == (gpu, n)
    assert parse_claim("Llama 3.1 70B on 8 HPUs at 15,008 tokens/sec at batch size 4,000").fields["concurrency"] == 4000


def test_a_named_server_cpu_with_no_gpu_is_the_device():
    c = parse_claim("stock llama.cpp runs a 70B Q4 model at 7-8 tok/s on an EPYC 9754 (12x DDR5-4800, 460.8 GB/s)")
    assert c.fields["gpu"] == "CPU" and c.fields.get("gpu_count") is None
    assert parse_claim("i9-13900K 加 RTX4090 运行 DeepSeek-R1 7.3tokens/s").fields["gpu"] == "RTX 4090"


def test_a_change_a_technique_makes_is_the_techniques_and_stock_is_without_it():
    c, h = head("stock llama.cpp runs a 70B Q4 model at 7-8 tok/s on an EPYC 9754 (12x DDR5-4800, 460.8 GB/s), and "
                "its speculative decoding with a 1B draft model takes it from 7-8 tok/s to 60-75 tok/s")
    assert h.value == (60.0, 75.0) and h.spec_decoding is True
    assert c.figures[0].spec_decoding is False  # "stock"


def test_hpus_are_counted_and_sizes_written_in_yi_or_mib():
    c = parse_claim("Intel's table lists LLaMA 3.1 70B in FP8 on 8 HPUs at 15,008 tokens/sec throughput at batch size 4,000.")
    assert (c.fields["gpu_count"], c.fields["concurrency"]) == (8, 4000)
    # 亿 is 10⁸: 67亿 parameters is the 7B distill, not the 671B R1
    c = parse_claim("在 M2 Pro 的 Mac mini 上测试 67亿参数的 DeepSeek R1，启用 8 位量化，持续生成速度为 18.7tok/s")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Qwen-7B" and c.fields["precision"] == "INT8"
    c = parse_claim("ds4-bench on an Apple M5 Max ran DeepSeek V4 Flash from ds4flash.gguf (82697.67 MiB mapped) at 31.25 tok/s")
    assert c.footprint["weights_gb"] == pytest.approx(82697.67 * 1.048576 / 1000, abs=0.01)
    c = parse_claim("GLM-5.1-MXFP4-Q8 (378GB, 256 MoE experts) on two M3 Ultra Mac Studios decodes at 0.27 tok/s")
    assert c.footprint["weights_gb"] == 378
    assert parse_claim("Two RTX 3090 (24GB) at 20 tok/s with Llama 3.1 70B").footprint.get("weights_gb") is None


def test_a_figure_someone_tries_to_reproduce_is_a_target_and_tokens_per_user_keeps_its_unit():
    c, h = head("Trying to reproduce NVIDIA's 253 tok/sec per user for DeepSeek-R1-FP4 on 8xB200, a trtllm-serve "
                "deployment only reached 40 output tokens per user.")
    assert (h.value, h.unit) == (40.0, "tok/s")
    assert c.figures[0].condition == "a target"


def test_prefill_throughput_is_prefill_per_npu_is_per_gpu_and_a_following_it_sentence_names_the_hardware():
    c, h = head("在 CloudMatrix384 上运行 INT8 量化的 DeepSeek-R1，预填充吞吐量达 6688 token/s/NPU，解码阶段 1943 token/s/NPU")
    assert [f.metric for f in c.figures] == ["prefill_tok_s", "aggregate_throughput"]
    assert (h.value, h.scope) == (1943.0, "gpu")
    c = parse_claim("EAGLE 3 lifted its GPT-OSS 120B API from ~400 to ~650 tokens per second, as verified by Artificial "
                    "Analysis. It serves the model with TensorRT-LLM at TP8 across 8 B200 GPUs.")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("B200", 8)
    # another speaker's sentence still names no hardware for the figure
    assert parse_claim("Llama 3.1 8B at 2,500 t/s. A commenter says a DGX B200 would do more.").fields.get("gpu") is None


def test_a_cpu_device_before_the_headline_wins_over_a_gpu_named_after_it_and_a_gguf_types_own_bpw():
    c = parse_claim("ByteShape 以 GGUF 量化 Qwen3-30B-A3B-Instruct-2507，在 Raspberry Pi 5（16GB）上用 Q3_K_S-2.70bpw 跑出 "
                    "8.03 TPS，RTX 5090（32GB）在约 4-bit 时则约 300 TPS。")
    assert (c.fields["gpu"], c.fields["precision"], c.fields["quantization"]) == ("CPU", "Q3_K_S", "GGUF")


def test_bare_ollama_names_are_their_default_tags_a_bandwidth_is_no_memory_and_until_marks_a_before():
    assert parse_claim("Generating with llama3 in torchchat on the mps device at 1.74 tokens/sec").fields["model"] == "Llama 3.1 8B"
    assert parse_claim("ollama run llama3.2 gives 40 tok/s on an M2").fields["model"] == "Llama 3.2 3B"
    assert parse_claim("llama3.2-vision at 20 tok/s on an M2").fields.get("model") is None
    c = parse_claim("On a Jetson Orin Nano 8GB (102 GB/s), Qwen2.5-Coder-1.5B Q4_K_M decoded at 32.1 tok/s with llama.cpp")
    assert c.fields["gpu_memory_gb"] == 8
    c, h = head("On an A100, llama.cpp produced only 11.30 tokens/s for a 7B LLaMA Q4_1 model until the -ngl flag "
                "offloaded its layers to the GPU, after which it generated 75.91 tokens per second.")
    assert h.value == 75.91
    assert parse_claim("ExLlamaV2 lists Llama2 70B at EXL2 2.5 bpw at 37 t/s on a 4090").fields["model"] == "Llama 2 70B"


def test_in_chinese_the_words_before_a_figure_are_its_own_and_a_full_stop_ends_the_sentence():
    # paraphrase of a Chinese article's table (RTX 4090, Qwen3-14B): FP8 goes with 80, BF16 with 42;
    # the batch size of the next sentence is not read into the third figure's role
    t = ("文章表格称在 RTX 4090 上，Qwen3-14B 的 FP8 量化版占 14 GB 显存、推理速度 80 token/s，BF16 原模占 28 GB、约 "
         "42 token/s，GPTQ-4bit 约 75 token/s。这些数字被说成是 128k 上下文、batch_size=1、prefill 与 decode 混合负载下的实测均值。")
    c, h = head(t)
    assert (h.value, c.fields["precision"], c.fields["concurrency"]) == (80.0, "FP8", 1)
    assert [f.metric for f in c.figures] == ["generation_tok_s"] * 3
    assert "gpu_memory_gb" not in c.fields  # 占 14 GB 显存 is what the run took, not the card's memory


def test_sixteen_bit_words_and_mlc_codes_name_the_weights_and_a_full_precision_kv_cache_does_not():
    assert parse_claim("MLX LM ran Llama 3.1 70B in 16-bit precision at 4.7 toks/sec on an M2 Ultra").fields["precision"] == "full"
    c = parse_claim("On a Jetson AGX Orin 64GB, Qwen3-8B decoded at ~20.2 TPS in W16A16, ~35.5 in W8A16 and ~52.2 in W4A16")
    assert c.fields["precision"] == "full"
    assert parse_claim("llama-7B with MLC LLM on an RTX 3080Ti using q8f16_0 gives about 10 tok/s").fields["precision"] == "INT8"
    assert parse_claim("Llama-2-7b with MLC LLM q4f16_1 runs at 30 tok/s on an RTX 3060").fields["precision"] == "INT4"
    c = parse_claim("gpt-oss-20b in MXFP4 generates 642.5 tok/s at 5 concurrent requests on an RTX Pro 6000 "
                    "Blackwell, with no speculative decoding and a full-precision KV cache.")
    assert c.fields["precision"] == "MXFP4"
    # a named type next to the full-size words still says more ("满血版" names the full model)
    c = parse_claim("i9-13900K 加 RTX4090 在 4bit 量化下运行 DeepSeek-R1 满血版（671B）可达 7.3tokens/s 的生成速度")
    assert c.fields["precision"] == "INT4"


def test_a_size_before_a_name_a_tag_after_a_size_and_a_family_given_its_size_by_the_figure():
    # "a 7B LLaMA … model" is the first LLaMA's 7B; "Qwen3-4B-VL" is the vision model, not Qwen3-4B
    assert parse_claim("llama.cpp produced 75.91 tokens per second for a 7B LLaMA Q4_1 model on an A100").fields["model"] == "LLaMA 7B"
    assert parse_claim("On a Jetson AGX Orin 64GB, Qwen3-4B-VL decoded at ~20.2 TPS").fields["model"] == "Qwen3-VL-4B"
    # a size and a name the catalog does not know, nearer the figure than a bare family name
    c = parse_claim("tinygrad's llama3 example with the 70B Nemotron model in int8 on an M4 Max went from 3.04 tok/s "
                    "to 5.94 tok/s")
    assert c.fields["model"] == "Nemotron-70B" and c.unknown_names[0]["words"] == "Nemotron-70B"
    # DeepSeek-R1 named for an article, "70B 参数模型" for the figure: Ollama's deepseek-r1:70b
    c = parse_claim("文章给出的 DeepSeek-R1 消费级方案为 RTX 4090×2 配 128GB 内存：70B 参数模型 FP16 精度下吞吐量 12tokens/s")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Llama-70B"
    assert parse_claim("DeepSeek-R1 671B 模型在 8 卡 H200 上 20 tok/s").fields["model"] == "DeepSeek R1"


def test_a_model_compared_with_is_not_the_claims_model_and_a_cpu_named_before_the_figure_is_its_device():
    c = parse_claim("在 Jetson AGX Orin 上用 llama.cpp 推理 MiniCPM4.1 的 Q4_K_M 模型只得到 25t/s 的输出速度，与同等量化的 "
                    "qwen3 8b 差不多")
    assert c.fields.get("model") is None
    assert parse_claim("Qwen3-8B runs at 60 tok/s on a 4090, faster than Llama 3.1 8B").fields["model"] == "Qwen3-8B"
    c = parse_claim("用同一款模型各跑一輪，以 x86 CPU 運算的 Mini PC 平均 1.45 tok/s，MacBook Air M3 平均 9.75 tok/s")
    assert c.fields["gpu"] == "CPU" and "gpu_count" not in c.fields
    # a memory written with a GPU picks the row of that memory
    c = parse_claim("Orin AGX(32G)上 InternLM2-1.8B 为 56.57 token/s")
    assert (c.fields["gpu"], c.fields["gpu_memory_gb"]) == ("Jetson AGX Orin 32GB", 32.0)


def test_single_request_throughput_a_thousands_batch_a_size_by_the_figure_and_compute_formats():
    c, h = head("在昇腾 NPU 环境上部署 Llama-2-7b：单请求吞吐量稳定在 15.6-17.6 tokens/秒，batch=4 时总吞吐量达 63.33 tokens/秒")
    assert (h.metric, h.scope, c.fields["concurrency"]) == ("generation_tok_s", "request", 1)
    # "batch size 1,750" is not batch size 1: a rate at 1,750 in flight is their total
    c, h = head("Gaudi 2 lists LLaMA 2 70b in fp8 on 2 HPUs at 2,844 tokens/sec with batch size 1,750")
    assert (h.metric, h.scope, c.fields["concurrency"]) == ("aggregate_throughput", "aggregate", 1750)
    c = parse_claim("Arm ran Llama 3 70B, Phi3-Mini 3.8B and Llama 3 8B with llama.cpp and Q_4_0_4_8 quantization on an "
                    "AWS Graviton4 C8g.16xlarge instance. The 70B model reached 5-10 tokens per second.")
    assert (c.fields["model"], c.fields["precision"], c.fields["gpu"]) == ("Llama 3.1 70B", "Q4_0_4_8", "CPU")
    c = parse_claim("Neural Speed runs llama2-7b int4 (sym, g128, fp32 compute) at 8.6ms/token on an A770")
    assert c.fields["precision"] == "INT4"


def test_integrated_gpus_machines_of_datacenter_gpus_and_a_gpu_a_figure_is_likened_to():
    c = parse_claim("On a mini PC whose Ryzen 7 5800U drives a Radeon Vega 8 iGPU from 64GB of DDR4-3200, Ollama "
                    "generated 12.0 TPS with qwen3:30b-a3b at Q4_K_M.")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Radeon Vega 8", 1)
    assert parse_claim("A laptop's Intel UHD Graphics 620 ran Qwen3-4B at 6.07 tok/s").fields["gpu"] == "Intel UHD Graphics 620"
    assert parse_claim("On a B200 machine, vLLM reached 10865.38 output tok/s").fields.get("gpu_count") is None
    assert parse_claim("an RTX 4090 machine does 100 tok/s on Llama 3.1 8B").fields["gpu_count"] == 1
    c = parse_claim("Qwen3-14B 的 FP8 量化版在 RTX 4090(24GB)上实测生成速度可达 80 token/s,接近 A100 水平的三分之二。")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("RTX 4090", 1)


def test_pipeline_parallel_is_no_prefill_a_v_before_a_version_and_partial_layers_and_a_types_own_bpw():
    c, h = head("NVIDIA's Max Throughput data for Llama 3.3 70B on 1x B200 (PP=1 TP=1, FP4, TensorRT-LLM 1.0) shows "
                "9,922 tok/s for 128 input / 2,048 output tokens")
    assert (h.metric, h.scope) == ("aggregate_throughput", "aggregate")
    c = parse_claim("Qualcomm's card for Llama-v3-8B-Chat, quantized to w4a16 with a few w8a16 layers, lists 66.14 tokens "
                    "per second on a Snapdragon 8 Elite with QNN")
    assert (c.fields["model"], c.fields["precision"], c.fields["engine"]) == ("Llama 3.1 8B", "INT4", "QNN")
    c = parse_claim("ByteShape's Q3_K_S-2.70bpw quant of Qwen3-30B-A3B hits 8.03 TPS in llama.cpp on a Raspberry Pi 5 "
                    "at 2.70 BPW")
    assert (c.fields["precision"], c.fields["quantization"]) == ("Q3_K_S", "GGUF")
    assert parse_claim("BitNet b1.58 2B reaches 16.1 tok/s on a Raspberry Pi 5").fields["precision"] == "1.58bpw"


@pytest.mark.parametrize("text, engine", [
    ("DeepSeek-R1-Distill-Llama-8B in INT4 on a Core Ultra 7 NPU decodes at 6.10 tok/s with OpenVINO", "OpenVINO"),
    ("赤兔推理引擎在 A800 上跑 DeepSeek-R1 达到 30 tokens/s", "Chitu"),
    ("Using Distributed Llama over a gigabit switch, 8 Raspberry Pi 5 boards ran Llama 3 8B at ~14 tokens/second",
     "distributed-llama"),
    ("在 A100 上用 fastllm 测 chatglm-6b 达到 176tokens/s", "fastllm"),
])
def test_more_engines_are_named(text, engine):
    assert parse_claim(text).fields["engine"] == engine


def test_a_systems_own_card_count_is_not_multiplied():
    c = parse_claim("单机 Atlas 800T A2 八卡（tensor-parallel-size 8）用 vllm-ascend 部署 qwen3.5-27B，回复速度不到 5 tokens/s")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Ascend 910B", 8)
    assert parse_claim("2 DGX H100 systems serve Llama 3.1 70B at 9,000 tok/s").fields["gpu_count"] == 16


def test_headline_a_rate_read_at_a_per_user_speed_a_change_of_scope_and_records_as_a_verb():
    # "At 73 tok/s/user …": the per-user speed the per-GPU throughput was read at
    c, h = head("At 73 tok/s/user on DeepSeek R1 (B200), FP4 posts 9789 tok/s/GPU against 2754 tok/s/GPU for FP8.")
    assert (h.value, h.scope, c.fields["precision"]) == (9789.0, "gpu", "FP4")
    c, h = head("研报称硅基流动基于 CloudMatrix384 部署 DeepSeek-R1，在单用户 20TPS 负载下实现 1920tokens/秒的吞吐量")
    assert (h.value, h.metric) == (1920.0, "aggregate_throughput")
    # batch 1 then batch 8 is no before/after change of one figure: the first stays the headline
    c, h = head("On one socket of a Xeon Gold 6430 (CPU only), llama2 13b reached 7.41 token/sec at batch size 1. "
                "Throughput climbed to 38.94 token/sec at batch size 8.")
    assert (h.value, c.fields["concurrency"], c.fields["gpu"]) == (7.41, 1, "CPU") and "gpu_count" not in c.fields
    c, h = head("gpt-oss-120b on vLLM across two DGX Spark nodes decodes at 75.96 tokens per second. A single-node "
                "run of gpt-oss-120b records 58.82 tok/s.")
    assert (h.value, c.fields["gpu_count"]) == (75.96, 2)


def test_decode_throughput_a_prefill_buffer_an_unknown_gpus_count_and_minutes():
    c, h = head("a contributor measured mlc-llm decode throughput of 170.7 tok/s on an RTX 3090")
    assert (h.metric, h.scope) == ("generation_tok_s", "request")
    c, h = head("on an RTX 2050 with 4GB, Qwen3.6-35B-A3B-NVFP4 runs at ~21 tok/s using a CPU MoE prefill buffer")
    assert h.metric != "prefill_tok_s" and (c.fields["gpu"], c.fields["gpu_count"]) == ("RTX 2050", 1)
    assert parse_claim("two RTX 2050s run Qwen3-8B at 21 tok/s").fields["gpu_count"] == 2
    c, h = head("在 2080TI 上用 AirLLM 跑未量化的 Qwen-14B-Chat（max_new_tokens=5），推理大约需要两分半。")
    assert (h.value, h.unit, h.metric, c.fields["output_tokens"], c.fields["engine"]) == (150.0, "s", "e2e_latency", 5, "AirLLM")
    # a named type over the words "满血部署" (the full-size model)
    c = parse_claim("用改进的 GPTQ 8bit 量化把 671B 的 DeepSeek 模型压缩到 326GB，在 RTX 4090 单卡上“满血部署”，推理延迟 620ms")
    assert c.fields["precision"] == "INT8"


def test_a_glued_family_size_is_a_model_and_n_batch_is_a_concurrency():
    c = parse_claim("A comparison of mlc and vLLM with Qwen7B int4 on a 3090 measured 1-batch decode at 9.6ms per token for "
                    "vLLM versus 6.1ms for mlc, and 10-batch decode at 14ms versus 30.7ms.")
    assert (c.fields["model"], c.fields["concurrency"], c.fields["precision"]) == ("Qwen-7B", 1, "INT4")
    assert c.unknown_names[0]["words"] == "Qwen-7B"


def test_lower_case_family_sizes_an_apu_and_w4afp8():
    c = parse_claim("an RX 7900 XTX running llama 8B Q4_K_M went from 105.75 to 105.81 t/s on tg64")
    assert c.fields["model"] == "llama-8B" and c.unknown_names[0]["words"] == "llama-8B"
    c = parse_claim("a user had read that an AMD 5700G manages around 100 ms/token on 4-bit Llama 7B")
    assert c.fields["gpu"] == "CPU"
    assert parse_claim("SGLang TP8 DeepSeek-R1 w4afp8 gave 1437.23 tok/s output").fields["precision"] == "INT4"


def test_a_figure_on_another_device_is_no_change_and_a_used_subset_is_the_count():
    # "A100 上可优化至 180ms": a second device's figure, not the first setup improved
    c, h = head("7B 模型以 FP16 在 RTX 4090 上的首 Token 生成时延为 420ms，相同模型在 A100 上可优化至 180ms")
    assert (h.value, h.unit, c.fields["gpu"]) == (420.0, "ms", "RTX 4090")
    # the same words on one device stay a change, whose better end is the headline
    c, h = head("7B 模型在 RTX 4090 上的首 Token 时延为 420ms，调优后可优化至 180ms")
    assert h.value == 180.0
    c = parse_claim("一台 8 卡 RTX 5090 服务器只用前 4 张卡、以 vLLM 部署 Qwen3.6-27B，并发 30 时首字延迟 P99 为 223 ms")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("RTX 5090", 4)
    c = parse_claim("An 8x H100 server, using only 4 of the GPUs, ran Llama 3.1 70B at 30 tok/s")
    assert c.fields["gpu_count"] == 4
    assert parse_claim("8 x H100 ran Llama 3.1 70B at 30 tok/s").fields["gpu_count"] == 8


def test_macs_counted_and_a_decoder_s_tokens_per_step_are_no_prompt():
    c = parse_claim("Two Mac Studio M3 Ultra machines ran DeepSeek R1 at 20 tok/s over Thunderbolt")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Apple M3 Ultra", 2)
    assert parse_claim("A Mac Studio M3 Ultra ran DeepSeek R1 at 20 tok/s").fields["gpu_count"] == 1
    c = parse_claim("Llama 3 8B runs at 66.14 tokens per second on a Snapdragon 8 Elite; its token generator takes "
                    "1 input token per step.")
    assert "input_tokens" not in c.fields
    assert parse_claim("Llama 3 8B: 512 input tokens, 66 tok/s on an RTX 4090").fields["input_tokens"] == 512


def test_engines_as_components_baselines_advice_and_beside_their_gpu():
    c = parse_claim("With KTransformers 0.5.2 (kt-kernel + SGLang) on one RTX 5090, Qwen3-30B-A3B decoded at 52.5 tok/s "
                    "for a 969-token prompt")
    assert (c.fields["engine"], c.fields["engine_version"], c.fields["metric"]) == ("KTransformers", "0.5.2", "generation_tok_s")
    assert (c.fields["value"], c.fields["input_tokens"]) == (52.5, 969)
    c = parse_claim("BeeLlama v0.2.0 reaches 164 tok/s on a 27B model with one RTX 3090 (llama.cpp build b9275 as the baseline)")
    assert c.fields["engine"] == "BeeLlama"
    c = parse_claim("xinference 0.15.0 的 transformers 推理引擎在 4 张 4090 上跑 Qwen72B-AWQ，平均生成速度仅 0.33 tokens/s；"
                    "维护者建议改用 vllm 或 sglang。")
    assert c.fields["engine"] == "Xinference"
    c = parse_claim("对比 4 卡 H20(SGLang)和 4 卡 910B(vLLM v0.11.0)：单并发文本生成 H20 约 157 tokens/秒、910B 约 40 tokens/秒")
    assert (c.fields["gpu"], c.fields["engine"]) == ("H20", "SGLang")
    c = parse_claim("在 DGX Spark 上用 llama.cpp 开 MTP 解码为 25.6 tok/s，而仓库默认的 SGLang 路径为 32-40。")
    assert c.fields["engine"] == "llama.cpp"
    assert parse_claim("MLC's chat app on a GTX 1060 timed 13,46 t/sec in int3").fields["engine"] == "MLC-LLM"
    assert parse_claim("MLC's chat app on a GTX 1060 timed 13,46 t/sec in int3").fields["precision"] == "INT3"


def test_lists_share_their_setting_and_a_tpot_list_keeps_its_unit():
    c, h = head("at concurrency 1 with TP 2 it measured 210 ms TTFT, 14.94 ms TPOT and 65 tok/s on MI300X")
    assert (h.value, h.metric, h.concurrency) == (65.0, "generation_tok_s", 1)
    c, h = head("For Llama 3.1 8B at batch size 1, vLLM's TPOT was 7.07 ms without speculation, 4.29 ms with EAGLE 1")
    assert [(f.metric, f.unit) for f in c.figures] == [("tpot", "ms/tok"), ("tpot", "ms/tok")]
    c = parse_claim("On an A100 at ISL 128 / OSL 128 and concurrency 1 it gave 103.92 tok/s per user, and at 8192 "
                    "input tokens 93.94 tok/s per user.")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (128, 128)
    c = parse_claim("在 2 卡 RTX 4090 上用 vLLM 部署 Qwen3-32B-AWQ，实现 29 路高并发稳定推理，平均响应时间 41s。")
    assert c.fields["concurrency"] == 29
    assert parse_claim("111.2 tok/s on a single slot for Qwen3.6-27B on an RTX 5090").fields["concurrency"] == 1


def test_counts_per_gpu_figures_and_other_figures_clauses():
    # a per-GPU figure is a deployment's total over GPUs: one GPU named gives no count
    c = parse_claim("On MI355X, at 66 tok/s/user FP4 delivers 1848 tok/s/GPU with about 232 concurrent requests")
    assert "gpu_count" not in c.fields
    assert parse_claim("報導稱 B200 在 gpt-oss 上可達每顆 GPU 每秒 60,000 個詞元").figures[0].scope == "gpu"
    # "单卡" is the 1.2 万 figure's; the 3 万 headline's count is the 8 cards
    c = parse_claim("满血版 DeepSeek 推理速度达每秒 3 万 Tokens：在 H100 上单卡推理吞吐量达到 1.2 万 Tokens/秒，8 卡并行时线性扩展效率达 92%")
    assert (c.fields["value"], c.fields["gpu_count"]) == (30000.0, 8)
    c = parse_claim("DeepSeek-R1 以 73.7k 输入 token/s 的速度运行，把专家分散到 144 张 H800 显卡，合计在解码阶段每秒输出 14.8k token。")
    assert c.fields["metric"] == "aggregate_throughput" and "input_tokens" not in c.fields
    assert parse_claim("RTX 5090 32GB GPUs at TP 1 ran Qwen3-30B-A3B at 52.5 tok/s").fields["gpu_count"] == 1


def test_a_format_asked_about_and_one_owned_by_the_last_figure_are_not_the_headline_s():
    c = parse_claim("A user asks whether llama3-8b producing 14 tokens/s on a Jetson AGX Orin means it runs in FP16")
    assert "precision" not in c.fields
    c = parse_claim("a community Qwen3.5-397B-A17B GGUF quant runs at ~20 t/s on an M1 Ultra, while the demo shows "
                    "5-6 tokens per second at 2-bit.")
    assert c.fields["value"] == 20.0 and "precision" not in c.fields
    # closing words that follow the headline itself stay its own
    assert parse_claim("Qwen3-32B runs at 20 t/s on an RTX 4090 with Q4_K_M").fields["precision"] == "Q4_K_M"


def test_a_laptop_gpu_isl_osl_of_the_headline_and_a_memory_total():
    assert parse_claim("On a laptop RTX 5090 24GB, TinyLlama ran at 350 tokens/s").fields["gpu"] == "RTX 5090 Laptop GPU"
    assert parse_claim("On an RTX 5090 24GB, TinyLlama ran at 350 tokens/s").fields["gpu"] == "RTX 5090"
    c = parse_claim("在 2 张 GB300 上：纯 Prefill（ISL=2K、OSL=1、batch=256）达 22476 TGS，混合场景（ISL=2k、OSL=1k）输出吞吐 3072 TGS")
    assert (c.fields["value"], c.fields["input_tokens"], c.fields["output_tokens"]) == (3072.0, 2000, 1000)
    # "RAM+VRAM 合计" is memory, not a total throughput
    c, h = head("Kimi-K2 有 256GB 内存时约 1-2 令牌/秒；RAM+VRAM 合计至少 247GB 才能达到 5+ 令牌/秒。")
    assert c.figures[1].scope != "aggregate"
    assert parse_claim("ipex-llm's llama.cpp build on an Intel B580 gives about 20 TPS").fields["engine"] == "llama.cpp"


def test_unit_words_in_brackets_and_as_headings_and_targets_expected():
    c, h = head("Serving DeepSeek-R1 with SGLang on 2 nodes of 8 H100 each, the user expected around 4000 tokens/sec. "
                "The decode log instead showed gen throughput (token/s): 324.86 with 92 running requests.")
    assert (h.value, h.metric, h.concurrency) == (324.86, "aggregate_throughput", 92)
    c = parse_claim("a user served DeepSeek-R1 with SGLang at --tp 8 on an MI300X x8 machine and the TPS only reached around 2000")
    assert c.fields["value"] == 2000.0
    c = parse_claim("Ollama for Intel (ipex-llm) on an Arc B580 GPU ran qwen3 8b at 28 tks, 14b at 5 tks")
    assert (c.fields["value"], c.fields["engine"]) == (28.0, "Ollama")


def test_ratios_a_per_request_throughput_and_a_memory_sized_gpu():
    c = parse_claim("Groq lifted Llama 3.1 70B to 1660 T/s on its LPU; it measured 1,665 output tokens per second, "
                    "over 6x Groq's previous endpoint.")
    assert "gpu_count" not in c.fields
    c = parse_claim("Llama-3.3-70B with Modular MAX on one MI355X (550-token input, 256 output tokens): the run took "
                    "58.90 s for 128000 generated tokens. Mean per-request output token throughput was 6.69 tok/s.")
    assert (c.fields["engine"], c.fields["metric"], c.fields["output_tokens"]) == ("MAX", "generation_tok_s", 256)
    assert parse_claim("a 70B Llama in Q4_K_M runs on a 16GB GPU at 8-12 tok/sec").fields["gpu_memory_gb"] == 16.0
    c = parse_claim("two RTX 5090s give 85 tok/s for LLaMA 3.1 70B in FP16 and 72 tok/s for DeepSeek V3 in FP8")
    assert c.fields["precision"] == "FP16"


def test_set_thirteen_words_engines_counts_and_sizes():
    c = parse_claim("有人在两台 Mac Studio M4 Max 上通过 Exo + Thunderbolt 5 RDMA 池化运行 Qwen3.5-122B-A10B，持续吞吐约 52 tok/s，并发 c=2")
    assert (c.fields["gpu"], c.fields["gpu_count"], c.fields["engine"]) == ("Apple M4 Max", 2, "Exo")
    assert parse_claim("两台 H100 服务器跑 Llama 3.1 70B，吞吐 3000 tok/s").fields.get("gpu_count") != 2
    c = parse_claim("QServe's benchmark on an L40S with Llama3-70B-Instruct quantized by QoQ (w4a8kv4) at "
                    "GLOBAL_BATCH_SIZE=4 gave ~60 tokens/s")
    assert (c.fields["engine"], c.fields["precision"]) == ("QServe", "INT4")
    c = parse_claim("With OpenNMT-py and Mistral-instruct-v0.2-onmt-awq, generation ran at 80.5 tokens/second at batch size 1. "
                    "For comparison, Mistral reported 100 tokens/second using vLLM.")
    assert c.fields["engine"] == "OpenNMT-py"
    c = parse_claim("TensorRT-LLM NVFP4 Llama 3.1 8B decoded 38.8 tokens/second on a 29-token prompt and 200-token greedy completion")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (29, 200)
    c = parse_claim("用 vllm 在 16 卡 H100 上部署 DeepSeek-V3，只有 1 个请求时生成速度仅 2.9 tokens/s，比没有量化的 qwen72b 慢了接近 5 倍。")
    assert c.fields["concurrency"] == 1 and "precision" not in c.fields
    c = parse_claim("一篇对比单/双卡 RTX 4090 部署 DeepSeek70B 的文章称，单卡 FP8、批处理 32 时吞吐量为 187 tokens/秒，双卡为 342 tokens/秒")
    assert (c.fields["gpu_count"], c.fields["concurrency"]) == (1, 32)
    c = parse_claim("一篇 DeepSeek-R1 版本选型文章列出 Ollama 上各版本的显存需求和速度：14B 约需 8GB 显存，在 RTX 4090 上推理速度为 5-8 token/秒")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Qwen-14B" and "gpu_memory_gb" not in c.fields
    c = parse_claim("a user served DeepSeek-R1 with SGLang at --tp 8 on an MI325 x8 machine and the TPS only reached around 2000")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("MI325X", 8)


def test_requests_sent_are_no_concurrency():
    c = parse_claim("在 A100 上用 vLLM 部署 Qwen2.5-7B，以并发 20、输入 1024、输出 128 token 压测 500 个请求，输出吞吐 893.269 tok/s")
    assert c.fields["concurrency"] == 20
    c = parse_claim("按照说明用 vllm 部署 DeepSeek-V3，日志显示只有 1 个请求时生成速度仅 2.9 tokens/s")
    assert c.fields["concurrency"] == 1


def test_two_figures_sharing_a_chinese_unit_and_a_node_layout_is_no_scope():
    c, h = head("7B 与 32B 在单卡 NVIDIA A100 40GB 上的吞吐量为 81.3 和 28.8 tokens/秒")
    assert [f.value for f in c.figures] == [81.3, 28.8] and h.value == 81.3
    c, h = head("用 vLLM 和 Ray 在 A800 上部署 fp16 的满血版 R1(集群三个节点、每个节点八台 GPU,共 a800 24 张),推理速度只有 3token/s")
    assert (h.scope, c.fields["gpu_count"]) == ("request", 24)
    assert parse_claim("每个节点吞吐 3000 tokens/s，共 4 个节点的 H100 集群").figures[0].scope == "node"


def test_set_fourteen_units_counts_sizes_and_the_deepseek_distills():
    c, h = head("Qwen2.5-0.5B-Instruct 在 4×RTX 4090D 上用 Transformers 加载，batch_size=1 时 Tokens per second 为 280.7。"
                "文中同时给出 batch=4 时吞吐 1.12 tokens/s/GPU。")
    assert (h.value, c.fields["concurrency"]) == (280.7, 1)
    c = parse_claim("在 NVIDIA H200 80GB 显存 × 8台上部署 DeepSeek 671B 满血版，并发数为 1 时 vLLM 的 P99 延迟为 12.3 ms")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("H200", 8)
    c = parse_claim("Qwen3:32B 改为经 vLLM 后端推理后，吞吐量从每秒 1.2 个 token 跃升至每秒 4.8 个 token，并发请求数从 3 路提升到 12 路。")
    assert (c.fields["value"], c.fields["concurrency"]) == (4.8, 12)
    c = parse_claim("有文章称本地部署 DeepSeek 时，使用 RTX 3060 显卡实测 7B 模型推理，响应速度稳定在 5-7 字/秒")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Qwen-7B"
    c = parse_claim("At 70B the RX 7900 XTX's 12.4 tok/s trails the RTX 4090's 13.9 by only 12%.")
    assert c.fields.get("model") != "At 70B"


def test_a_format_a_quantization_is_measured_against_is_not_the_claim_s():
    c = parse_claim("a quantized Qwen3-30B-A3B runs at 8.03 tokens per second on a Raspberry Pi 5 at 2.70 bits per "
                    "weight while keeping 94.18% of BF16 quality")
    assert c.fields["precision"] == "2.70bpw"


def test_set_fourteen_leftovers_sizes_bit_widths_word_units_and_times():
    c = parse_claim("In a Llama 3.1 llama-bench table (llama.cpp, Q4_K_M), the RTX 5090 runs the 70B model at 18.2 tok/s "
                    "and the 8B at 192 tok/s.")
    assert (c.fields["model"], c.fields["value"]) == ("Llama 3.1 70B", 18.2)
    c = parse_claim("An article on Llama 3.1 reports 200+ tokens/s for the 405B model on one node.")
    assert c.fields["model"] == "Llama 3.1 405B"
    # a GGUF type in another sentence does not replace the bits per weight stated with the figure
    c = parse_claim("A quantized Qwen3-30B-A3B runs at 8.03 tokens per second on a Raspberry Pi 5 at 2.70 bits per weight. "
                    "On an RTX 5090, a matmul that takes ~54us with iq4_xs grows to ~62us with iq3_xxs.")
    assert c.fields["precision"] == "2.70bpw"
    assert parse_claim("the 1.58-bit UD-IQ1_S runs at 5 tok/s on a Mac Studio").fields["precision"] == "UD-IQ1_S"
    # "end to end" after another time is that time's, not the speed's
    c = parse_claim("CPU-only Ollama answered with Qwen2.5 1.5B at ~0.21 tokens/second, ~37.7s end to end for ~10 tokens.")
    assert c.headline.metric != "e2e_tok_s"
    assert parse_claim("Qwen2.5 1.5B ran at 0.3 tokens/second end to end on a Raspberry Pi 5").headline.metric == "e2e_tok_s"
    # 字词 (words) per second, written either way round; 纯处理器 is a CPU-only run
    c = parse_claim("笔记本纯处理器运算可托管 1.8B 模型，推理速度在每秒 13~27 字词之间；台式机 GPU 推理速度 26~32 字词每秒。")
    assert ([f.value for f in c.figures], c.fields["gpu"]) == ([(13, 27), (26, 32)], "CPU")


def test_layers_offloaded_to_the_cpu_are_read():
    c = parse_claim("a 70B Llama in Q4_K_M runs on a 16GB GPU by offloading 20-30 layers to CPU at 8-12 tok/sec")
    assert c.footprint["cpu_layers"] == 30 and "gpu_layers" not in c.footprint
    c = parse_claim("offloading 40 of 80 layers to system RAM, Llama 3.1 70B ran at 2 tok/s on an RTX 4090")
    assert (c.footprint["cpu_layers"], c.footprint["total_layers"]) == (40, 80)


def test_chinese_written_against_latin_words_and_units():
    """No space between Chinese and a Latin word: '用vllm部署', 'INT4量化后', '开启MTP后'."""
    assert parse_claim("用vllm部署Qwen3-8B，速度30 tokens/s").fields["engine"] == "vLLM"
    assert parse_claim("模型INT4量化后，4090上速度30 tokens/s").fields["precision"] == "INT4"
    assert parse_claim("单卡4090跑AWQ版本，速度30 tokens/s").fields["quantization"] == "AWQ"
    assert parse_claim("开启MTP后速度30tokens/s").fields["speculative_decoding"] is True
    c = parse_claim("在A100上运行GPT-3 175B,batch_size=32时每秒持续输出320个token")
    assert (c.fields["model"], c.fields["value"], c.fields["concurrency"]) == ("GPT-3 175B", 320, 32)
    assert parse_claim("纯CPU推理仍可能达到每秒不到1个token的速度").fields["value"] == 1
    c = parse_claim("RK3588 NPU上Qwen2-VL 2B模型的输入/输出速度为43.48/15.82 tok/s")
    assert [(f.value, f.metric) for f in c.figures] == [(43.48, "prefill_tok_s"), (15.82, "generation_tok_s")]
    assert c.fields["value"] == 15.82
    c = parse_claim("输入、输出长度各为2048时，8 卡 A100 每秒输出 320 个 token")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (2048, 2048)


def test_set_fifteen_figures_ranges_changes_and_the_figure_set_against():
    c = parse_claim("An RX 7900 XTX decodes Qwen3.6-35B-A3B at 150 ~ 40tk/s, with prefill at 3000 ~ 400tk/s.")
    assert (c.fields["value"], c.fields["metric"]) == ([40, 150], "generation_tok_s")
    c = parse_claim("DeepSeek-R1 on two Xeon sockets cut TTFT from ~24.5s under llama.cpp to ~1.9s with SGLang's AMX kernels.")
    assert (c.fields["value"], c.fields["metric"], c.fields["engine"]) == (1.9, "ttft", "SGLang")
    c = parse_claim("On an M3 Ultra, phi-4-mini-4bit decoded at a median 167.93 tok/s (prefill 2197.19 tok/s) with rapid_mlx "
                    "0.7.9 and mlx 0.31.2.")
    assert (c.fields["value"], c.fields["metric"], c.fields["engine"]) == (167.93, "generation_tok_s", "rapid-mlx")
    c = parse_claim("EAGLE-3 (num_steps=8) ran Llama 3.1 8B at a throughput of 378.57 token/s, versus 361.70 token/s at "
                    "num_steps=5 and 230.08 token/s for EAGLE-2.")
    assert c.fields["value"] == 378.57
    c = parse_claim("158 tok/s without MTP, versus 373 tok/s with MTP on the same H200")
    assert c.fields["value"] == 373
    # a speed the same as the one model named is that model's
    c = parse_claim("用 2 张 2080ti 跑，速度和跑官方原版 qwen3.6-27b-fp8 一样，都是 40 token/s")
    assert (c.fields["model"], c.fields["gpu_count"]) == ("Qwen3.6-27B", 2)
    assert parse_claim("25 t/s on a 3090, faster than Llama 3.1 8B").fields.get("model") is None


def test_set_fifteen_scope_concurrency_and_settings():
    c = parse_claim("SGLang with EAGLE on 8 GPUs gave a BS=1 output throughput of 138.118 token/s.")
    assert (c.headline.scope, c.fields["concurrency"]) == ("request", 1) and "output_tokens" not in c.fields
    c = parse_claim("vLLM logs an average generation throughput of 7.9 tokens/s with 1 request running.")
    assert (c.fields["metric"], c.headline.scope, c.fields["concurrency"]) == ("aggregate_throughput", "request", 1)
    c = parse_claim("One MI300X node of 8 GPUs running SGLang serves up to 128 concurrent requests while keeping "
                    "inter-token latency below 50 ms.")
    assert (c.fields["concurrency"], c.fields["metric"]) == (128, "tpot")
    c = parse_claim("An RTX 3090 runs at 36.15 tok/s at 4,096 context, 35.11 tok/s at 16,384 and 33.86 tok/s at 32,768.")
    assert [f.value for f in c.figures] == [36.15, 35.11, 33.86]
    c = parse_claim("At concurrency 6 the two gave ~1482 and ~1781 completion tok/s on an RTX PRO 6000 Blackwell.")
    assert all(f.concurrency in (None, 6) for f in c.figures)


def test_set_fifteen_precision_and_engine_words():
    c = parse_claim("Decode of DeepSeek-V4-Flash from an 81 GiB IQ2XXS/Q2_K/Q8 GGUF on a DGX Spark took 55 ms per token.")
    assert c.fields["precision"] == "IQ2_XXS"
    c = parse_claim("网上说 M3 Ultra 512GB 跑 R1 的 Q4 量化能到 20 t/s。也有人提到 Q4_K_M 在双路平台上超过了 20。")
    assert c.fields["precision"] == "INT4"
    c = parse_claim("通义千问3-4B 的 fp16 整模约 8GB、GGUF-Q4 量化版约 4GB；它在 RTX 3060 上的推理速度约为 120 tokens/s，并称优化后吞吐可再提升30%以上。")
    assert c.fields["metric"] == "generation_tok_s"  # 吞吐 opens another clause
    assert parse_claim("ERNIE-4.5-0.3B 在 A800 上單卡以 FastDeploy 部署，291.4 tokens/秒").fields["engine"] == "FastDeploy"
    assert parse_claim("the Crane engine: Qwen2.5-0.5B generated 235 tokens at 10.64 tokens/second").fields["engine"] == "Crane"
    assert parse_claim("FP4 and the TileRT runtime give 1000+ tokens/s on one 8-GPU node").fields["engine"] == "TileRT"
    c = parse_claim("On an RX 7900 XTX, Qwen3 32B Q4_K_S runs pp512 at 744.73 t/s and tg128 at 26.07 t/s.")
    assert c.fields["engine"] == "llama.cpp"
    c = parse_claim("RK3588（16GB，RKLLM 调用 NPU）生成速度 11.5 Tokens/s，Jetson Orin Nano 8GB（TensorRT-LLM）9.8 Tokens/s")
    assert (c.fields["gpu"], c.fields["engine"]) == ("Rockchip RK3588", "RKLLM")
    c = parse_claim("with llama.cpp's Multi-Token Prediction enabled, a 12 GB RTX 3060 generates 70–90 tok/s on "
                    "Qwen3.6-35B-A3B. Without MTP the same card manages 35–45 tok/s.")
    assert c.fields["speculative_decoding"] is True
    c = parse_claim("在一台i5-8250U（4核8线程、16GB内存、无独显）的办公本上，首字延迟从2.4秒压到0.6秒")
    assert (c.fields["gpu"], c.fields["value"]) == ("CPU", 0.6)


def test_lengths_totalled_over_requests_and_a_gpu_inside_a_project_name():
    c = parse_claim("在 Jetson Thor 上用 vLLM 压测：最大并发 1 时 10 个请求共输入 20431 tokens、生成 1280 tokens，输出吞吐 13.01 tok/s")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (2043, 128)
    c = parse_claim("在两张 2080Ti 22G 上用 vLLM-2080Ti-Definitive 跑 Qwen3.6 27B，只能跑到 40+token/s")
    assert (c.fields["gpu"], c.fields["gpu_count"], c.fields["gpu_memory_gb"]) == ("RTX 2080 Ti", 2, 22)
    # "pp1024 tg128" beside a named engine is that engine run on llama-bench's shapes
    c = parse_claim("gpt-oss-120b with vLLM (pp1024 tg128) measured 57.5 tokens/s decode on a DGX Spark")
    assert c.fields["engine"] == "vLLM"
    # a board's chip with "CPU-only" after it ran on its CPU cores; the CPU-only words of another device do not count
    c = parse_claim("On a Radxa ROCK 5B (RK3588), CPU-only Ollama answered with Qwen2.5 1.5B at ~0.21 tokens/second")
    assert c.fields["gpu"] == "CPU"
    c = parse_claim("RK3588(NPU)与全志A733(纯CPU)的对比测试中，RK3588 NPU上Qwen2-VL 2B模型的输出速度为15.82 tok/s")
    assert c.fields["gpu"] == "Rockchip RK3588"


def test_a_file_size_a_step_s_read_and_an_approximate_figure_after_a_concurrency():
    c = parse_claim("Decode of DeepSeek-V4-Flash from an 81 GiB IQ2XXS/Q2_K/Q8 GGUF on a DGX Spark took 55 ms per token; "
                    "with roughly 10–13 GB of weights read per token the floor is ~45 ms/token.")
    assert c.footprint["weights_gb"] == 81
    c = parse_claim("vLLM reached ~7686 completion tok/s at concurrency 48 on an RTX PRO 6000 Blackwell with 96 generated "
                    "tokens per request, and at concurrency 6 ~1482 and ~1781 completion tok/s.")
    assert c.headline.scope != "request" and [f.concurrency for f in c.figures][-1] == 6


def test_set_sixteen_figures_and_their_words():
    c = parse_claim("被问到每秒多少 token 时回答：vllm-0.6.6.post1 / vllm-0.6.6 都在 53 上下，8xH20 部署 DeepSeek-V3")
    assert c.fields["value"] == 53
    c = parse_claim("Dual RTX 3090 running Qwen3.6-27B-AutoRound reaches 67 narrative / 66 code TPS at a 300 W cap.")
    assert (c.fields["value"], c.fields["precision"], c.fields["quantization"]) == (67, "INT4", "AutoRound")
    c = parse_claim("On one MI300X, Gemma 4 31B gives 46 tok/s at concurrency 1 and peaks at ~1,047 tok/s at concurrency 256.")
    assert (c.fields["value"], c.fields["concurrency"]) == (1047, 256)
    c = parse_claim("Ollama's benchmark gave mistral:7b eval rates of 19.56, 17.72, 22.64, 19.34 and 21.36 tokens/s.")
    assert [f.value for f in c.figures] == [19.56, 17.72, 22.64, 19.34, 21.36] and c.fields["value"] == 19.56
    c = parse_claim("Atlas 800T A2 服务器(4×昇腾 910B NPU)上实测 Llama 3.2 1B：单 batch 每秒生成 122 tokens")
    assert (c.fields["gpu_count"], c.fields["metric"]) == (4, "generation_tok_s")
    c = parse_claim("NInfer's results put the Qwen3.6-27B nvfp4 C8 profile at ~1.1k tok/s on a single RTX 5090, "
                    "while a user serves it through SGLang.")
    assert (c.fields["engine"], c.fields["concurrency"]) == ("NInfer", 8)


def test_set_sixteen_names_devices_and_engines():
    c = parse_claim("在苹果 A17 芯片上可实现 60 tokens/s 的推理速度，在 RTX 3060 上达 180 tokens/s")
    assert c.fields["gpu"] != "RTX 3060 12GB" and any(u["kind"] == "gpu" for u in c.unknown_names)
    c = parse_claim("A Qwen3.8-27B lane in Ollama (hf.co/unsloth/Qwen3.8-27B-GGUF:Q4_K_M) on an RTX 3090 is reported at 40.2 tok/s.")
    assert c.fields["model"] == "Qwen3.8-27B"
    c = parse_claim("一篇 DeepSeek 满血版评测在 4×A100 80GB 上以 DeepSeek-7B-Chat(FP16)为基准：Batch=32 时达到 18.7 tokens/s")
    assert c.fields["model"] != "DeepSeek V3"
    c = parse_claim("A Qwen3.5 benchmark finds vLLM GPTQ-Marlin on RTX 3090x2 running the 35B-A3B MoE at 156.3 tok/s. "
                    "The 122B-A10B runs on all three 128GB unified-memory boxes.")
    assert c.fields["model"] == "Qwen3.5-35B-A3B" and "gpu_memory_gb" not in c.fields
    c = parse_claim("Gemma 4 12B (gemma-4-12B-it-qat-UD-Q4_K_XL.gguf) on an RTX 4060 8GB (K cache q8_0, -ngl 99) hits 25+ "
                    "tok/s decode with a 27k prompt in a 120000-token context.")
    assert (c.fields["precision"], c.fields["max_model_len"]) == ("UD-Q4_K_XL", 120000)
    c = parse_claim("Running Kimi-K2.5 through KTransformers+SGLang on 4x RTX Pro 6000 Blackwell gave 23.03 output tokens/s "
                    "at 10 concurrent requests.")
    assert c.fields["engine"] == "KTransformers"


def test_lengths_written_as_settings_and_a_format_a_run_is_faster_than():
    c = parse_claim("batch size 1, 2048 tokens of pre-filled context: an RTX 5090 runs Llama 3.1 70B Q4_K_M at ~55 tok/s")
    assert c.fields["input_tokens"] == 2048
    c = parse_claim("Llama 4 Scout on 8 GPUs with vLLM, Prefill seq 1024、Decode seq 256、Batch 16: Decode 850 tok/s")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (1024, 256)
    c = parse_claim("phi-4-mini-4bit decoded at a median 167.93 tok/s for a 512-token prompt and 128 max tokens on an M3 Ultra")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (512, 128)
    c = parse_claim("Qwen-7B 在 RTX 4090 上延迟约 19ms/token；另外 Qwen-14B-Chat 在 Int4 精度下比 BF16 快约 17%。")
    assert c.fields.get("precision") != "BF16"


def test_a_family_named_without_a_size_is_the_model_and_bounds_nothing():
    from tokcheck.core.verdict import analyze_claim

    c = parse_claim("Testing 100-token generations on a single H20 with SGLang, plain Qwen3 reached 200 TPS while the "
                    "EAGLE3 draft setup only managed 130 TPS.")
    assert c.fields["model"] == "Qwen3" and c.sources["model"] == "Qwen3"
    a = analyze_claim(c)
    assert a.verdict == "unknown" and "names a family" in a.explanations[0]
    assert any("Qwen3-0.6B, Qwen3-1.7B" in n and "Qwen3-235B-A22B" in n for n in a.notes)
    # a fuzzy lookup would take Llama 4 Scout for "Llama 4": a family is no one model
    c = parse_claim("一份選型研究列出 TTFT:Groq + Llama 4 約 70ms、GPT-4o 約 300ms。")
    a = analyze_claim(c)
    assert c.fields["model"] == "Llama 4" and a.model is None and [e["model"] for e in a.family] == ["Llama 4 Scout", "Llama 4 Maverick"]
    assert parse_claim("a Mac Mini M4 Pro running a 'Qwen 2.5 model' at 38 tokens per second").fields["model"] == "Qwen 2.5"
    # a family with its size is a model, and a named sibling (Qwen3-Coder) is not the bare family
    assert parse_claim("Qwen3 8B runs at 40 tok/s on an RTX 4090").fields["model"] == "Qwen3-8B"
    assert parse_claim("Qwen3-Coder at 80 tok/s on an RTX 3090").fields.get("model") != "Qwen3"
    # a hosted tier of a family is a model the catalog does not know; GLM-5 is one model, no family
    c = parse_claim("Qwen3.6 Plus on 8x Cambricon MLU590 with LMDeploy 0.6.0 (int8, TP=8) decoded at 380 tok/s")
    assert c.fields["model"] == "Qwen3.6-Plus" and c.unknown_names[0]["words"] == "Qwen3.6-Plus"
    from tokcheck.core.claim import is_model_family
    assert [is_model_family(n) for n in ("Qwen3", "Llama 4", "GLM-5", "Phi-4", "Qwen3.6 Plus")] == [True, True, False, False, False]


def test_set_seventeen_units_and_figures():
    c = parse_claim("Llama-8B decode on an RTX 5070 Ti went from 69.6 baseline tokens/sec to 185.2 optimized tokens/sec.")
    assert [f.value for f in c.figures] == [69.6, 185.2] and c.fields["value"] == 185.2
    c = parse_claim("Jetson AGX Thor 上 Llama 3.3 70B 启用推测解码后可获得每秒 88.62 个输出 token。")
    assert (c.fields["value"], c.fields["unit"]) == (88.62, "tok/s")
    c = parse_claim("EAGLE3 cut mean latency at BS=1 from 1.66s/req to 0.62s/req; at BS=8 from 1.78s/req to 1.10s/req.")
    assert (c.fields["value"], c.fields["unit"], c.fields["metric"]) == (0.62, "s", "e2e_latency")
    assert all(f.metric == "e2e_latency" for f in c.figures)
    c = parse_claim("纯 CPU 运行,首响应时间控制在 1 秒以内,后续 token 生成速率稳定在每秒 15~20 个左右。")
    assert (c.fields["value"], c.fields["metric"]) == ([15, 20], "generation_tok_s")
    c = parse_claim("有人用一张 4090 运行 Llama3.1 405B,等了 30 分钟模型才吐出一个「The」,完整的回复花了整整 20 个小时。")
    assert [(f.value, f.metric) for f in c.figures] == [(1800, "ttft"), (72000, "e2e_latency")]
    c = parse_claim("On a 3rd Gen Xeon, IPEX.LLM 2.2 ran Llama2-7B in BF16 at batch size 1 with a 2nd token latency of "
                    "0.090 s and a 1st token latency of 0.215 s.")
    assert [(f.value, f.metric) for f in c.figures] == [(90, "tpot"), (0.215, "ttft")] and c.fields["engine"] == "ipex-llm"
    # a stressed peak named before 每秒 wins over a plain figure before it
    c = parse_claim("单个 DGX B200 系统可实现每用户每秒超 250 token,系统最高吞吐量突破每秒 3 万 token。")
    assert c.fields["value"] == 30000


def test_set_seventeen_changes_brackets_and_settings():
    c = parse_claim("A sweep of gpt-oss on H100 at TP8 found throughput rising from 260.5 to 2,106.9 tok/s per GPU as "
                    "concurrency went from 4 to 64.")
    assert [f.value for f in c.figures] == [260.5, 2106.9]  # "from 4 to 64" is the concurrency's change
    assert (c.fields["value"], c.headline.scope, c.fields["concurrency"]) == (2106.9, "gpu", 64)
    # "。" before a Latin word still ends the sentence: the next one's batch is not this figure's
    c = parse_claim("在 2x H100 上,batch size=1 时吞吐量从 69 tokens/s 提升至 110 tokens/s,加速比 1.59 倍。batch size=64 时仍有加速。")
    assert (c.fields["value"], c.fields["concurrency"]) == (110, 1)
    c = parse_claim("Qwen3.5-35B-A3B in FP8 on 1xH100 gives per-user decode speed ranging from 172.5 tok/s (Chatbot, single "
                    "user) down to 13.2 tok/s (Agentic, 32 concurrent).")
    assert (c.fields["value"], c.fields["concurrency"]) == (172.5, 1)
    c = parse_claim("Llama-3.1-405B on 8x MI325X peaked at 15,944 tok/s (3,673 output tok/s, p99 latency 11.78s) at 500 "
                    "concurrent requests.")
    assert c.fields["concurrency"] == 500 and c.figures[1].scope == "aggregate"
    c = parse_claim("TensorRT 10.2 on one H100 SXM5 gives 2,400 tokens/sec for Llama 3.1 8B FP8. Runs used batch sizes 1-32.")
    assert c.fields["concurrency"] == 32
    c = parse_claim("On 8xH20 vLLM serves DeepSeek-V3 (fp8, tensor_parallel_size 8, max_num_seqs 32) at about 53 tok/s.")
    assert "concurrency" not in c.fields  # a cap on the server's batch, not the run's concurrency
    c = parse_claim("On H100 *2 with vLLM, a ShareGPT run of 1000 prompts at request rate 12 gave 1122.60 output tok/s "
                    "and 1260.72 input tok/s.")
    assert (c.fields["metric"], c.headline.scope) == ("aggregate_throughput", "aggregate")


def test_set_seventeen_names_and_precision():
    assert parse_claim("SGLang serving DeepSeek-OCR at max concurrency 1 gave 625.26 tok/s").fields.get("model") is None
    c = parse_claim("On 2x DGX Spark, Mia-AiLab/GLM-5.3-Flash-EXL3-4bpw gave ~12-13 tok/s single-stream generation")
    assert c.fields.get("model") not in ("GLM-5",)
    c = parse_claim("Serving Qwen/Qwen3.5-35B-A3B with vLLM (qwen3_next_mtp speculative decoding) gave 3341.89 output tok/s")
    assert c.fields["model"] == "Qwen3.5-35B-A3B"
    c = parse_claim("A chart claims Falcon (7B) reaches 22 tokens/sec with llama.cpp, where Llama-2 (7B) manages 0.7 tokens/sec.")
    assert c.fields["model"] == "Falcon-7B"
    c = parse_claim("结果显示 Tiny15M 模型每个 token 的处理速度为 223 毫秒,Lamini-T5-Flan-77M 则为 2.5 秒。")
    assert c.fields["model"] == "Tiny15M"
    c = parse_claim("ExLlamaV2 with turboderp_Llama-3.1-70B-Instruct-exl2_6.0bpw and an exl2_3.0bpw draft model gets 20.46 tokens/second")
    assert c.fields["precision"] == "6.0bpw"
    c = parse_claim("DeepSeek-V4-Flash-FP4-FP8-native.gguf with llama.cpp across an RTX PRO 6000 Blackwell and two RTX 4090s outputs 4t/s.")
    assert c.fields["precision"] == "FP4"
    c = parse_claim("在 DGX B200 上运行满血 DeepSeek-R1,系统吞吐量突破每秒 3 万 token。测试中 B200 采用 FP4 精度。")
    assert c.fields["precision"] == "FP4"
    c = parse_claim("文章宣称 Qwen2.5-0.5B-Instruct 在苹果 A17 芯片上可实现 60 tokens/s 的推理速度。")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Apple A17", 1)


def test_a_family_judged_at_every_size():
    from tokcheck.core.verdict import analyze_claim

    a = analyze_claim(parse_claim("A sweep of gpt-oss (FP4) on H100 with vLLM at TP8 found throughput rising from 260.5 "
                                  "to 2,106.9 tok/s per GPU as concurrency went from 4 to 64."))
    assert a.verdict == "plausible" and [e["model"] for e in a.family] == ["gpt-oss-20b", "gpt-oss-120b"]
    a = analyze_claim(parse_claim("Testing on a single H20 with SGLang, plain Qwen3 reached 200 TPS."))
    assert a.verdict == "unknown" and len({e["verdict"] for e in a.family}) > 1


def test_set_eighteen_dates_devices_and_words():
    # a month is no speed: "提升到 9 月的 512.6 token/秒" ends the change at 512.6
    c = parse_claim("Jetson AGX Thor 上 Llama 3.3 70B 的输出速度从 2025 年 8 月的 41.5 token/秒提升到 9 月的 512.6 token/秒,"
                    "DeepSeek R1 70B 从 40.2 提升到 911.5。")
    assert [f.value for f in c.figures] == [41.5, 512.6, 40.2, 911.5] and c.fields["value"] == 512.6
    c = parse_claim("a 512gb m3 ran Mistral-Large-3-675B-Instruct-2512-mlx-4bit at 0.3 tok/s generation")
    assert (c.fields["gpu"], c.fields["gpu_memory_gb"]) == ("Apple M3 Ultra", 512)
    c = parse_claim("Qwen2.5-32B on 8 NPUs (Ascend 910B) in TP8 got only 9 tokens/s per prompt.")
    assert (c.fields["model"], c.fields["metric"]) == ("Qwen2.5-32B", "generation_tok_s")
    c = parse_claim("On a single A100, int8 Mixtral 8x7B on TensorRT-LLM showed a 127ms time to first token and 81 perceived "
                    "tokens per second.")
    assert c.fields["value"] == 81
    c = parse_claim("在小米14 Ultra(骁龙8 Gen4、24GB LPDDR6)上运行 Llama3-70B,推理延迟低至127ms/token。")
    assert c.fields["gpu"] == "Snapdragon 8 Elite"
    assert parse_claim("On an RTX 6000 Ada (\"A6000 ada\", 48GB) it decodes at 26.7 tok/s").fields["gpu"] == "RTX 6000 Ada"
    # a memory written between the count and the name hides neither
    c = parse_claim("two 24GB RTX 3090s run it at 20 tok/s")
    assert (c.fields["gpu_count"], c.fields["gpu_memory_gb"]) == (2, 24)


def test_a_time_per_token_another_sentence_restates_is_not_the_headlines():
    from tokcheck.core.verdict import analyze_claim

    a = analyze_claim(parse_claim("Qwen3-8B in Q4_K_M runs at 180 tok/s on an RTX 4090 GPU. Its NPU engine is quoted at "
                                  "40 ms/tok (25 tok/s)."))
    assert not any(c.get("check") == "tpot_vs_tok_s" and not c["ok"] for c in a.consistency)
    # in the headline's own sentence the time per token is still read against it
    a = analyze_claim(parse_claim("On an RTX 4090, Llama 3.1 8B Q4_K_M is said to run at 140 tok/s, though the log shows "
                                  "only 9.19 tokens per second (108.86 ms per token)."))
    assert any(c.get("check") == "tpot_vs_tok_s" for c in a.consistency)


def test_set_nineteen_units_headings_and_changes():
    # tokens per minute are a service's rate: ÷ 60 to tok/s
    c = parse_claim("On MI300X*8 with vLLM, a user gets only 200-300K TPM in single-machine performance.")
    assert c.fields["value"] == [3333.3, 5000.0] and c.fields["metric"] == "aggregate_throughput"
    # a unit written once as a table's heading, for the bare numbers after "为"
    c = parse_claim("fastllm 的测速表(最大推理速度,token / s)写道:ChatGLM-6b-int4 在 RTX 4090、Batch 1 下为 176,"
                    "ChatGLM-6b-int8 为 121;ChatGLM-6b-fp16 在 Batch 64、256、512 下分别为 2919、7871、10209。")
    assert [f.value for f in c.figures] == [176, 121, 2919, 7871, 10209] and c.fields["value"] == 176
    c = parse_claim("在 RTX 4090 上测试 4-bit Llama-2-7B-chat 的 token 生成速度(batch size = 1,prompt_tokens 为 1、"
                    "completion_tokens 为 512):turbomind 为 206.4,mlc-llm 为 159.4。")
    assert [f.value for f in c.figures] == [206.4, 159.4]  # "prompt_tokens 为 1" is a setting
    # koboldcpp's log: "Process:" is the prompt, "Generate:" the output; "= 6.55T/s" restates 152.6ms/T
    c = parse_claim("Process:25.05s (14.9ms/T = 66.89T/s), Generate:59.05s (152.6ms/T = 6.55T/s), Total:84.11s (4.60T/s)")
    assert (c.fields["value"], c.fields["metric"]) == (6.55, "generation_tok_s")
    assert next(f for f in c.figures if f.value == 66.89).metric == "prefill_tok_s"
    # "3.30 tok/step" is no speed; "cohort C8" is a concurrency; "up to +40" is stressed
    c = parse_claim("measured cohort C1 at e2e=114.61 tok/s, 3.30 tok/step. Cohort C8 reached decode 535.5 tok/s")
    assert 3.3 not in [f.value for f in c.figures] and next(f for f in c.figures if f.value == 535.5).concurrency == 8
    c = parse_claim("vLLM on 8xH200 serves at roughly 8 tokens/sec, while earlier deployments produced up to +40 tokens/sec.")
    assert c.fields["value"] == 40
    # "并发40+tps" is a rate under load; a change written "从35提升到81" starts at 35, not at the figure before
    c = parse_claim("INT4量化单路可达27+tps,并发40+tps。")
    assert next(f for f in c.figures if f.value == 40).scope == "aggregate" and c.fields["value"] == 27
    c = parse_claim("称Phi4-14B-q8_0仍能保持每秒42 tokens的生成速度;另称Gemma3-12B-it-q8_0改用FP8后吞吐量从35提升到81 tokens/s。")
    assert [f.value for f in c.figures] == [42, 35, 81] and c.fields["value"] == 42
    assert (c.fields["model"], c.fields["precision"]) == ("Phi-4", "Q8_0")


def test_set_nineteen_names_and_devices():
    c = parse_claim("入门级的DeepSeek 70亿参数模型可在RTX 4090单卡上以FP16精度推理,实测吞吐量约30 tokens/秒")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Qwen-7B"
    c = parse_claim("文章称 DeepSeek-R1 的 Standard 版推荐 RTX 4090,需开启TensorRT加速才能实现7B模型的10token/s推理速度。")
    assert c.fields["model"] == "DeepSeek-R1-Distill-Qwen-7B"
    assert parse_claim("on 1x RTX 4080S 32GB it does 50 tok/s").fields["gpu"] == "RTX 4080 Super"
    c = parse_claim("Mistral 7B (ExLlamaV2 kernel) runs at 188.865 tokens/s in AutoAWQ on an RTX 4090")
    assert c.fields["engine"] == "AutoAWQ"
    c = parse_claim("优化版单机8卡GU120即可部署,极限总吞吐约达到3865tokens/s")
    assert c.unknown_names and c.unknown_names[0]["words"] == "GU120"


def test_set_nineteen_judge():
    from tokcheck.core.verdict import analyze_claim

    # a model of a known version at a size the version never had is not sized by another version
    a = analyze_claim(parse_claim("Llama 4.0 70B runs at roughly 28 tokens per second on an RTX 5090 with 32 GB"))
    assert a.verdict == "unknown" and "Llama 4 has no 70B model" in a.explanations[0]
    # 24 channels of DDR5-6400 beside one RTX 4090, fastllm running DeepSeek R1's experts from them
    a = analyze_claim(parse_claim("fastllm: eypc 9655*2 + 24路DDR5 6400 + 4090 24G 推理 DeepSeek R1 671B 模型,"
                                  "INT4量化单路可达27+tps"))
    assert a.verdict == "plausible" and any("24-channel DDR5-6400" in e for e in a.explanations)
    # a card with its memory doubled is judged at the stated memory: FP8 fits its 32 GB (the stock
    # 16 GB would hold only 4-bit weights), and at FP8 the figure needs more than the stated
    # speculative decoding's usual acceptance
    a = analyze_claim(parse_claim("Qwen3.5-27B on 1x RTX 4080S 32GB with SPEC=dflash2: cohort C8 reached decode 535.5 tok/s"))
    assert a.verdict == "needs_explanation" and any("more than a stock RTX 4080 Super" in n for n in a.notes)
    assert any("at FP8, the widest format that fits" in e for e in a.explanations)
    # a weight size too small for the stated format, on GPUs that hold the format anyway, is a slip
    # in the text; where the setup fits only at the stated size, the claim rests on it
    a = analyze_claim(parse_claim("A deployment guide for Llama-3.1-405B-Instruct on AMD Instinct GPUs serves it with vLLM "
                                  "(--tensor-parallel-size 8, --quantization fp8, --kv-cache-dtype fp8, --max-model-len "
                                  "32768) and quotes ~210 GB of FP8 weights across 8 GPUs (~26 GB per GPU). Its "
                                  "MI325X-verified results give 1,090 tok/s at 10 concurrent and 4,381 tok/s at 50 "
                                  "concurrent, with a peak throughput of 6,808 tok/s at 750 concurrent and saturation "
                                  "around 100 concurrent requests."))
    assert a.verdict == "plausible" and any(e.startswith("inconsistent: 210 GB") for e in a.explanations)
    a = analyze_claim(parse_claim("用 GPTQ 8bit 把 671B 的 DeepSeek 压缩到 326GB,在 RTX 4090 单卡上推理延迟 620ms。"))
    assert a.verdict == "implausible"


def test_set_twenty_units_lists_and_names():
    # a time per batch of one and a time per decode step are latencies; 推論 is 推理 in traditional script
    c = parse_claim("以純 CPU 執行 DeepSeek R1 671B 的 PyTorch 推論腳本,batch_size 1、512 個 token 長度下平均推論時間 3.8 秒/批次。")
    assert (c.fields["value"], c.fields["unit"], c.fields["concurrency"]) == (3.8, "s", 1)  # not "1,512"
    c = parse_claim("实测搭载骁龙8 Gen2 的手机运行 7B 参数模型时,推理速度可达 15ms/次。")
    assert (c.fields["value"], c.fields["unit"], c.fields["metric"]) == (15, "ms/tok", "tpot")
    c = parse_claim("the RTX 5090 runs LLaMA 3 8B at full FP16 at 100 tok/s single stream (10.0 ms per-token latency)")
    assert next(f for f in c.figures if f.value == 10).unit == "ms/tok"
    # a draft named after "with" leaves the target named before it the claim's model
    c = parse_claim("Llama-3.1-8B with a Llama-3.2-1B draft reaches an effective ~209 tok/s")
    assert c.fields["model"] == "Llama 3.1 8B"
    # words saying no speculative decoding after "over" name the baseline compared against
    c = parse_claim("speculative decoding on MI300X with Llama-3.1-70B-Instruct reached 225.86 tokens/s with TP=4, a "
                    "4.32x speedup over autoregressive decoding")
    assert c.fields.get("speculative_decoding") is True
    # Ascend names written in traditional or simplified script; DS-R1; a system's Chinese name
    c = parse_claim("在 910B2C x16 的 A2 上部署 DS-R1 0528 W8A8,开启 MTP 时 TPS/NPU 为 42.67 tokens/s")
    assert (c.fields["model"], c.fields["gpu"]) == ("DeepSeek R1", "Ascend 910B")
    c = parse_claim("盘古 Pro MoE 在昇腾 800I A2 上单卡推理吞吐量达 1148 tokens/s")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("Ascend 910B", 8)
    # the size written with the headline is its model's, not a model named after it
    c = parse_claim("single-user llama.cpp decode at Q4_K_M gives the Mac Studio M4 Max ~12 tok/s on 70B, and the RTX 5090 "
                    "186 tok/s on Qwen3 8B")
    assert c.fields.get("model") is None and c.fields["value"] == 12
    # MLC's q4f16_ft is 4-bit
    assert parse_claim("TinyLlama-1.1B with MLC q4f16_ft quantization decodes at 30 tokens/sec").fields["precision"] == "INT4"


def test_set_twenty_judge():
    from tokcheck.core.verdict import analyze_claim

    # the widest format that fits is an unstated precision's reading: a figure only 4-bit reaches needs explaining
    a = analyze_claim(parse_claim("改用 vLLM 部署 Qwen3-14B 后,手里的 RTX 4090 能跑出 80 token/s 的速度"))
    assert a.verdict == "needs_explanation" and any("widest format that fits" in e for e in a.explanations)
    # a time per output token is one stream's: no batch explains it
    a = analyze_claim(parse_claim("可通过 INT8 量化降低内存占用,实测搭载骁龙8 Gen2 的手机运行 7B 参数模型时,推理速度可达 15ms/次。"))
    assert a.verdict == "implausible"
    # a time per token of the baseline is not the speculative headline's
    a = analyze_claim(parse_claim("Llama-3.1-8B with a Llama-3.2-1B draft reaches an effective ~209 tok/s against a 54.4 "
                                  "tok/s baseline (18.4ms/token, 151.7ms TTFT)."))
    assert not any(c.get("check") == "tpot_vs_tok_s" and not c["ok"] for c in a.consistency)
    # more host memory than a desktop holds is a server's
    a = analyze_claim(parse_claim("KTransformers 让单张 RTX 4090D(24GB 显存)搭配 382GB 内存运行 DeepSeek-R1 满血版,4bit 量化下"
                                  "生成速度达 14 tokens/s。"))
    assert a.verdict == "plausible" and "8-channel DDR5-4800" in a.offload["host_memory"]
    # stated total and active parameters size a model the catalog does not know
    a = analyze_claim(parse_claim("盘古 Pro MoE(720 亿总参数、160 亿激活参数)在 Atlas 800I A2 上吞吐量达 1148 tokens/s"))
    assert a.verdict != "unknown" and "16B of 72B parameters active" in a.notes[0]


def test_known_misses_lists_sizes_systems():
    # a list of settings matched one to one to a list of figures ("分别为", "respectively")
    c = parse_claim("fastllm 的测速表(最大推理速度,token / s):ChatGLM-6b-fp16 在 RTX 4090 上 Batch 64、256、512 下分别为 "
                    "2919、7871、10209;ChatGLM-6b-int4 在 Xiaomi 10 Pro - 4 Threads 上为 4 ~ 5。")
    assert [(f.value, f.concurrency) for f in c.figures][:3] == [(2919, 64), (7871, 256), (10209, 512)]
    assert c.figures[-1].value == (4, 5)  # a range under a unit heading stays a range
    c = parse_claim("At batch sizes 1, 8 and 32 Llama 3.1 8B on an H100 reached 40, 200 and 600 tok/s respectively.")
    assert [(f.value, f.concurrency, f.scope) for f in c.figures] == [(40, 1, "request"), (200, 8, "aggregate"),
                                                                     (600, 32, "aggregate")]
    # a decode step's time is a time per output token; the size before the headline picks the model named after it
    c = parse_claim("On an RTX 4090, 8B text decode went from 9.213 ms to 8.715 ms and 2B text from 2.552 ms to 2.361 ms "
                    "(423 tok/s), using the Qwen3-VL-8B-Instruct-FP8 and Qwen3-VL-2B-Instruct-FP8 checkpoints.")
    assert [f.unit for f in c.figures[:4]] == ["ms/tok"] * 4 and c.fields["model"] == "Qwen3-VL-2B"
    # a DGX named by its GPUs' generation
    c = parse_claim("单个 NVIDIA DGX 系统(8×Blackwell GPU)运行 DeepSeek-R1 时,最大吞吐量超过 30,000 tokens/秒")
    assert (c.fields["gpu"], c.fields["gpu_count"]) == ("B200", 8)
    # the precision written before a figure is its own, not one after "and" that opens the next item
    c = parse_claim("A README for Llama-3.1-8B on an H200 NVL reports a BF16, BS=16 baseline of ~1082-1089 tok/s and a "
                    "best config of FP8 weights + max_model_len=2668 at 1544.29 tok/s.")
    assert c.fields["precision"] == "BF16"


def test_cpu_only_weights_that_do_not_fit_the_stated_ram():
    from tokcheck.core.hostmem import find_host_memory
    from tokcheck.core.verdict import analyze_claim

    assert find_host_memory("Intel Xeon W-3303(2× 32 核,64GB DDR4 3200MHz)").capacity_bytes == 64e9
    assert find_host_memory("a desktop with 4x 48GB DDR5-6400").capacity_bytes == 192e9
    assert find_host_memory("96GB DDR5-6400 system RAM used").capacity_bytes is None
    a = analyze_claim(parse_claim("以 Intel Xeon W-3303(2× 32 核,64GB DDR4 3200MHz)純 CPU 執行 DeepSeek R1 671B,10 tokens/s"))
    assert a.verdict == "implausible" and "streams them from disk" in a.explanations[0]
    # the weights mapped from an SSD are not held against the RAM
    a = analyze_claim(parse_claim("DeepSeek R1 671B runs at 1 tok/s CPU-only with 64GB DDR4 3200MHz, mmap from an NVMe SSD"))
    assert a.verdict != "implausible"


def test_a_precision_written_with_a_figures_own_model_size_is_that_figures():
    from tokcheck.core.verdict import analyze_claim

    # the Q4 is the 70B figure's: the headline (13B) states none, and the 70B at Q4 does not fit 24 GB
    c = parse_claim("a dense 13B model on an RTX 4090 typically posts 50-70 tok/s and a 70B dense model at Q4 on the same "
                    "card does around 20-30 tok/s.")
    assert c.fields.get("precision") is None
    assert analyze_claim(c).verdict == "implausible"
    # "at 16 bits" belongs to the figure before the 13B model's name, not to the 13B figure
    a = analyze_claim(parse_claim("FastChat's AWQ 4-bit integration was benchmarked on an NVIDIA RTX A6000: vicuna-7b takes "
                                  "12.43 ms/token at 4 bits versus 26.06 ms/token at 16 bits, and llama2-13b-chat 20.28 "
                                  "versus 47.28 ms/token."))
    assert a.verdict == "plausible"


def test_set_twenty_one_reader():
    # "for the prompt" names prefill, so the generation figure is the headline
    c = parse_claim("On an M2 Ultra with mlx_lm, Qwen3-Next-80B-A3B-Instruct in 8bit ran at only 1.8-1.9 tps for the prompt "
                    "and 0.4 tps for generation.")
    assert c.fields["value"] == 0.4
    # loading the model is no latency of a request
    c = parse_claim("在小米14上测得完整模型加载时间47秒、典型问答推理耗时320ms(batch=1)。")
    assert (c.fields["value"], c.fields["unit"]) == (320, "ms")
    # "GB10" is no count of ten
    c = parse_claim("on one NVIDIA GB10 DGX Spark serving Qwen3.6-35B-A3B it reports 85.7 output tok/s aggregate")
    assert c.fields["gpu_count"] == 1
    # the length written in the headline's own clause, not one in the next
    c = parse_claim("On 4xMI50: a 512-token prompt was prefilled at 1267.33 tokens/s and 128 output tokens were generated at "
                    "26.14 tokens/s; a 5632-token prompt prefilled at 2177.88 tokens/s.")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (512, 128)
    c = parse_claim("Qwen3.6-35B-A3B：1k 输入时峰值输出 token 吞吐 448.00 tok/s，峰值并发请求数 72；64k 输入时输出吞吐降到 126.00 tok/s")
    assert (c.fields["input_tokens"], c.fields["concurrency"]) == (1000, 72)
    # lengths written as "8192-in/1024-out", "400 max_tokens", "max_new_token=512", "文本生成（1024token）"
    c = parse_claim("Qwen3.6 27B on B200 at max_concurrency 1 on a random 8192-in/1024-out workload reached 2070 tokens per second")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (8192, 1024)
    assert parse_claim("on a DGX Spark with 400 max_tokens, MTP gave 55.6 tok/s single-stream").fields["output_tokens"] == 400
    c = parse_claim("在 8×A100 上 DeepSeek 满血版的文本生成（1024token）速度从 120token/s 提升到 340token/s")
    assert c.fields["output_tokens"] == 1024
    # "一个step就需要10s+" is a time per output token
    c = parse_claim("有用户在8*V100 32G上运行Baichuan-13B,一个step就需要10s+;max_new_token=512")
    assert (c.fields["value"], c.fields["unit"], c.fields["output_tokens"]) == (10000, "ms/tok", 512)
    # the end of a change measures what its start's words say
    c = parse_claim("It lifted output throughput per GPU from 311.65 tok/s to 331.22 tok/s at conc=64 with 1k/1k sequences.")
    assert (c.fields["value"], c.headline.scope, c.fields["concurrency"]) == (331.22, "gpu", 64)
    # counts: machines of N each; one GPU said of "each" is no count of one; a modded card's memory before its name
    c = parse_claim("On two machines with 8 Ascend 910B-64GB each, vllm-ascend ran DeepSeek-V3-0324 w8a8 at approximately 1.4 Tokens/s")
    assert c.fields["gpu_count"] == 16
    c = parse_claim("用VLLM-Ascend在910b2上推理deepseek只有7token/s;每张910B2的HBM占用约29954/65536 MB。")
    assert c.fields.get("gpu_count") is None
    c = parse_claim("有人在魔改 16GB 的 RTX3070 上用 llama.cpp 跑 Qwen3.6-35B-A3B，生成速度 33t/s")
    assert c.fields["gpu_memory_gb"] == 16
    c = parse_claim("deploying DeepSeek-R1 on H20-96G with SGLang: each node achieves 16.5k input tokens per second and "
                    "5.7k output tokens per second")
    assert c.fields.get("gpu_count") is None  # a per-node figure: one GPU named says nothing of how many
    # ik_llama.cpp's IQ3_KS names the file; the BPW written after it is its size
    c = parse_claim("GLM-5.1 as an IQ3_KS GGUF (3.65 BPW, 320.216 GiB) runs under ik_llama.cpp at 17–19 tok/s")
    assert c.fields["precision"] == "IQ3_KS"
    # the batch written before a figure is its own; one after a list mark opens the next item
    c = parse_claim("用fastllm的benchmark测chatglm2-6B,表中float16在batch size 1时为153 Tokens/s、batch 512时仍是153")
    assert c.fields["concurrency"] == 1
    assert parse_claim("four RTX 6000 Pro Blackwell GPUs with 96 GB each decode at 40 tokens per second").fields["gpu"] == \
        "RTX PRO 6000 Blackwell"


def test_set_twenty_one_judge():
    from tokcheck.core.hostmem import find_host_memory
    from tokcheck.core.verdict import analyze_claim

    # the GPU's VRAM bandwidth is not the host's; DIMMs are not a GPU's memory
    h = find_host_memory("It credits the card's VRAM with 1008 GB/s against 89 GB/s for DDR5-5600 system RAM.")
    assert h.bandwidth_bytes_per_s == 89e9
    assert find_host_memory("EPYC 9175F, 768GB of DDR5-6400 and two RTX PRO 6000 cards (96GB×2)").name.startswith("8-channel")
    # a per-GPU total may be below one stream's speed
    a = analyze_claim(parse_claim("Qwen-3.5-397B-A17B FP8 on H100, SGLang, TP8, 8k/1k: 89.87 output tok/s per GPU at "
                                  "concurrency 4 (TPOT 5.15 ms)."))
    assert not any(c.get("check") == "tpot_vs_tok_s" and not c["ok"] for c in a.consistency)
    # llama.cpp's flags name quantized files; offloaded weights have the stated host memory too
    a = analyze_claim(parse_claim("用--n-cpu-moe把MoE专家卸载到CPU和内存,在RTX 3080 Ti(12G显存+32G内存)上跑Qwen3.6-35B-A3B,"
                                  "token生成速度没低于14t/s"))
    assert a.verdict == "plausible"
    # a model the catalog now knows
    a = analyze_claim(parse_claim("On an A800-80G, deepseek-moe-16b generated 14.73 tokens/s"))
    assert a.verdict == "plausible" and a.model.name == "DeepSeek-MoE-16B"


def test_set_twenty_two_reader():
    # a change whose start is a range keeps its better end
    c = parse_claim("After upgrading vLLM on a single RTX 4090, single-request decode of Qwen3-4B-Instruct-2507 (FP16) "
                    "regressed from 136–137 to 98 mean decode tok/s.")
    assert c.fields["value"] == [136, 137]
    # counts: "共 16 个 npu" is the total; "四台四卡" is four machines of four cards
    c = parse_claim("跨节点部署 Qwen3-Coder-480B-A35B-Instruct-w8a8,每个节点 8 个 npu、共 16 个 npu,输出 token 速率只有 7token/s 左右。")
    assert c.fields["gpu_count"] == 16
    c = parse_claim("有人用四台四卡 A100 通过 sglang 多机部署 r1-awq,速度也只有 4token/s")
    assert (c.fields["gpu_count"], c.fields["model"], c.fields["precision"]) == (16, "DeepSeek R1", "INT4")
    # "每秒接近10 token"; "一次回复大概50s" is a request's latency
    assert parse_claim("在a100 80G上单并发每秒接近10 token").fields["value"] == 10
    c = parse_claim("有用户在4090上用Ollama部署deepseek-r1:32b,一次回复大概50s左右")
    assert (c.fields["value"], c.fields["unit"], c.fields["metric"]) == (50, "s", "e2e_latency")
    # a bare "phi3" is Ollama's default Phi-3, the mini
    assert parse_claim("phi3 in bfloat16 on an A40 served prompts at an output token throughput of 471.20 tok/s"
                       ).fields["model"] == "Phi-3-mini"
    # the size the weights were made to fit is a stated footprint
    c = parse_claim("only the routed experts are quantized to 2 bits (IQ2_XXS up/gate, Q2_K down) so the model fits in 81GB "
                    "on 128GB Macs; DeepSeek V4 Flash on an M3 Max 128GB shows 26 t/s generation")
    assert c.footprint["weights_gb"] == 81


def test_set_twenty_two_judge():
    from tokcheck.core.verdict import analyze_claim

    # KTransformers as SGLang's backend still keeps the routed experts in host memory
    a = analyze_claim(parse_claim("KTransformers' kimi_k2.5 branch with kvcache-ai's SGLang generates Kimi 2.5 at about 14 "
                                  "token/s on one RTX 6000 Pro plus a Xeon w7-3465X (768GB DDR5 5600)."))
    assert a.verdict == "plausible" and a.offload is not None
    a = analyze_claim(parse_claim("only the routed experts are quantized to 2 bits (IQ2_XXS up/gate, Q2_K down) so the model "
                                  "fits in 81GB on 128GB Macs; DeepSeek V4 Flash on an M3 Max 128GB shows 26 t/s generation"))
    assert a.verdict == "plausible"


def test_known_misses_after_set_twenty_two():
    # an efficiency per TFLOPS is no speed; a bound named a target or requirement is no result
    c = parse_claim("论文要求 TPOT<50ms(严格模式<15ms),用 EP320 部署 DeepSeek-R1 时 TPOT=42ms;decode 阶段计算效率为 "
                    "1.29 tokens/s/TFLOPS,超过 H800 上的 0.9。")
    assert (c.fields["value"], c.fields["metric"]) == (42, "tpot")
    assert [f.value for f in c.figures] == [50, 15, 42]
    c = parse_claim("For their 50K in / 1K out workload with a > 50 tok/s target, the best measured 50K result is 25.88 tok/s.")
    assert c.fields["value"] == 25.88
    assert parse_claim("It keeps TTFT < 200 ms at 32 users on H100").fields["value"] == 200  # no target word: a result
    # a precision's footprint is not the card's memory; "用tp=4" is four GPUs
    c = parse_claim("FP16显存14GB，RTX 4090 上 Qwen 7B 每秒 40 token")
    assert "gpu_memory_gb" not in c.fields and c.fields["gpu"] == "RTX 4090"
    assert parse_claim("维护者用tp=4复现不出:codellama 34B在并发24时completion token吞吐为848.150 token/s").fields["gpu_count"] == 4
    # vLLM's "Running: 1 reqs" is the concurrency
    assert parse_claim("vLLM 日志显示 Running: 1 reqs 时 Avg generation throughput 为 35.1 tokens/s").fields["concurrency"] == 1
    # a card named again without its memory is the one the text wrote with it
    assert parse_claim("建议选择 NVIDIA A100 40GB 或 RTX 4090;以 A100 为例,FP16 精度下 7B 模型的吞吐量可达 200+ tokens/秒。"
                       ).fields["gpu"] == "A100 40GB"
    # a change whose ends carry their figures in brackets keeps the end's output figure
    c = parse_claim("Mistral 7B AWQ on an A40: throughput rising from 3.89 requests/s (input 981.59 tokens/s, output 870.20 "
                    "tokens/s) to 4.92 requests/s (input 1242.21 tokens/s, output 1101.24 tokens/s).")
    assert (c.fields["value"], c.fields["metric"]) == (1101.24, "aggregate_throughput")
    # a drafter's quantization is the draft model's, not the served model's
    c = parse_claim("baseline llama.cpp runs Qwen 3.6 27B at Q5_K_S at 37.2 tokens per second, while BeeLlama's DFlash path "
                    "with a Q4_K_M drafter runs the same prompt at a 163.9 tok/s median")
    assert (c.fields["precision"], c.fields["value"]) == ("Q5_K_S", 163.9)


def test_set_twenty_three_reader():
    # "DeepSeek V4" with no tier is V4 Flash (the smaller), and never DeepSeek V3
    c = parse_claim("Testing a vLLM branch for DeepSeek V4 on SM120, two RTX PRO 6000 Blackwell GPUs saw 37.8 tokens/s at BS1.")
    assert c.fields["model"] == "DeepSeek V4 Flash" and any("names no tier" in n for n in c.notes)
    assert parse_claim("the DeepSeek-V4.1-Flash Q2 GGUF decodes at ~9–10 t/s").fields["model"] == "DeepSeek V4 Flash"
    # the memory written after a form factor: "V100-SXM2-32G"
    c = parse_claim("V100-SXM2-32G 单卡推理 Qwen3.5-27B-AWQ 时输出速度仅 6.2 tokens/s")
    assert (c.fields["gpu"], c.fields["gpu_memory_gb"]) == ("V100 32GB", 32)
    # a figure in brackets right after another of its unit measures the same thing
    c = parse_claim("prefill ran at ~70–111 t/s (typically ~95–105 t/s) and decode at ~9–10 t/s.")
    assert (c.fields["value"], c.fields["metric"]) == ([9, 10], "generation_tok_s")
    # "C1" after a figure; slash lists of settings and figures
    c = parse_claim("On one RTX 4090 the Qwen3.6-27B stack measured 135.5 tok/s C1 greedy decode. At C2/C4/C8 it decoded "
                    "264.6 / 484.3 / 1003.8 tok/s.")
    assert c.fields["concurrency"] == 1
    assert [(f.value, f.concurrency, f.metric) for f in c.figures[1:]] == [
        (264.6, 2, "aggregate_throughput"), (484.3, 4, "aggregate_throughput"), (1003.8, 8, "aggregate_throughput")]
    # a change whose ends have other figures between them; a setting's number is no range's start
    c = parse_claim("single-request (BS1) decode speed rising from 68.3 tok/s (ITL 14.62 ms) on the upstream base to "
                    "118.3 tok/s (ITL 8.45 ms) with the PR's optimizations")
    assert c.fields["value"] == 118.3
    c = parse_claim("on 8x H200 with TP=8 output throughput scaled from 96 tok/s at concurrency 1 to 772 tok/s at "
                    "concurrency 16")
    assert (c.fields["value"], c.fields["concurrency"], c.fields["metric"]) == (772, 16, "aggregate_throughput")
    # a figure written after an optimisation is the change's end
    assert parse_claim("在 RTX 3060 上,标准 fp16 部署仅跑出约 40 tokens/s;经过几项轻量级优化后,实测稳定达到 120 tokens/s"
                       ).fields["value"] == 120
    # "每秒回复token数量40.23" under "20个并发请求"; a time to send requests is no latency; "FP8并发" is no concurrency
    c = parse_claim("Qwen3-32B-FP8并发测试：20个并发请求（0.002秒内全部发出）全部成功，平均首字回复时间3.51秒，"
                    "单个请求平均每秒回复token数量40.23。")
    assert (c.fields["value"], c.fields["concurrency"]) == (40.23, 20)
    assert all(f.value != 0.002 for f in c.figures)
    # a row's own card count; MLC's q4f16 is 4-bit
    c = parse_claim("一位用户在10卡MI50服务器上改用mlc-llm做张量并行，测试qwq 32b q4f16：1卡16-18token/s；2卡29-36token/s")
    assert (c.fields["gpu_count"], c.fields["precision"], c.fields["value"]) == (1, "INT4", [16, 18])
    # a speed asked for is no result; llama2.c and ds4 are engines
    c = parse_claim("A llama2.c issue asks for ideas to reach more than 1 token/s on an 8vCPU machine, since running the 7B "
                    "Llama 2 model it is at roughly 30s per token.")
    assert (c.fields["value"], c.fields["unit"], c.fields["engine"]) == (30000, "ms/tok", "llama2.c")
    assert parse_claim("the DeepSeek-V4.1-Flash Q2 GGUF with ds4's ROCm backend decodes at ~9–10 t/s").fields["engine"] == "ds4.c"
    # OpenAI-style usage fields are the lengths
    c = parse_claim("chatglm3-6b 通过 openai_api 接口问“你好”,prompt_tokens 43、completion_tokens 22,整个请求耗时 16.2 s")
    assert (c.fields["input_tokens"], c.fields["output_tokens"]) == (43, 22)


def test_set_twenty_three_judge():
    from tokcheck.core.verdict import analyze_claim

    # another major version is not the model a bare family alias names
    with pytest.raises(TokcheckError, match="version V4 is not DeepSeek V3's"):
        find_model("DeepSeek V4")
    cases = [
        # no GPU named: a latency with its output length needs a decode speed a common setup reaches
        ("有用户用 transformers 加载 Qwen2-57B-A14B-Instruct-GPTQ-Int4 生成,max_new_tokens=512,推理却用了两分钟多",
         "plausible", "output tokens in 120 s need at least"),
        # Windows' shared GPU memory is host memory the weights spill to
        ("有用户在显存为 8G 的显卡上运行未量化的 chatglm3-6b,prompt_tokens 43、completion_tokens 22,整个请求耗时 16.2 s;"
         "Windows 下超出显存的部分会借用共享 GPU 内存。", "plausible", "need at least"),
        # a total above the bound at the usual context that only short requests would reach needs explanation
        ("LLaMA 13B in full precision on one A100 80GB served 128 requests at 1724 tok/s total with 256 concurrent requests",
         "needs_explanation", "if the requests were short"),
        # weights streamed from an SSD into unified memory: slower, never faster, than the memory's bound
        # (a 4-bit file keeps the shipped FP4 experts, 152 GB, and does not fit 128 GB; a Q2 file's
        # 2-bit experts, ~93 GB, fit, and its figure is judged against the memory alone)
        ("On a Strix Halo box (AI MAX+ 395, 128 GB unified RAM) running the DeepSeek-V4.1-Flash Q4_K_M GGUF with SSD "
         "streaming (96 GB of experts on a 3x NVMe RAID-0), decode ran at ~9–10 t/s.", "plausible",
         "streams the rest from storage"),
        ("On a Strix Halo box (AI MAX+ 395, 128 GB unified RAM) running the DeepSeek-V4.1-Flash Q2 GGUF with SSD streaming "
         "(96 GB of experts on a 3x NVMe RAID-0), decode ran at ~9–10 t/s.", "plausible", "of the single-stream hard bound"),
        # a change's start's time per token is not the headline's
        ("SGLang on 8×H200 (TP8) for DeepSeek-V4.1-Flash: BS1 decode rising from 68.3 tok/s (ITL 14.62 ms) on the upstream "
         "base to 118.3 tok/s (ITL 8.45 ms).", "plausible", "of the single-stream hard bound"),
    ]
    for text, verdict, said in cases:
        a = analyze_claim(parse_claim(text))
        assert a.verdict == verdict and any(said in e for e in a.explanations), text
        assert not any("contradicts" in e for e in a.explanations), text


def test_known_misses_after_set_twenty_three():
    from tokcheck.core.verdict import analyze_claim

    # a family's version after its name, the size before it: Llama 2's 7B, not the first LLaMA's
    c = parse_claim("the 7B Llama 2 model runs at 30 tok/s on an RTX 3090")
    assert (c.fields["model"], c.sources["model"]) == ("Llama 2 7B", "7B Llama 2")
    assert parse_claim("the 8B Llama 3.1 model at 20 tok/s on a 3090").fields["model"] == "Llama 3.1 8B"
    assert parse_claim("a 7B model on Qwen 2 GPUs at 30 tok/s").fields["gpu_count"] == 2  # a count, not a version
    # a known family with a version the catalog lacks is named, with the nearest names, not dropped
    c = parse_claim("DeepSeek V5 runs at 40 tok/s on 8x H200")
    assert c.fields["model"] == "DeepSeek V5"
    assert c.unknown_names[0]["words"] == "DeepSeek V5" and "DeepSeek V3" in c.unknown_names[0]["suggestions"]
    a = analyze_claim(c)
    assert a.verdict == "unknown" and any("did you mean DeepSeek V3" in e for e in a.explanations)


def test_set_twenty_four_reader():
    # a per-user rate's unit before its number, and a dash between two figures is no minus sign
    c = parse_claim("A user asks how Tenstorrent's Target t/s/u of 38 for Qwen-2.5 7B decode on the n300 card is derived; "
                    "the compiled bfp8 weights take about 6.4 GB.")
    assert (c.fields["value"], c.headline.scope, c.fields["precision"]) == (38, "user", "BFP8")
    c = parse_claim("LLaMA-2-70B-decode on a T3000 (batch 32) runs at 8.5 t/s/u - 272 t/s end-to-end.")
    assert (c.fields["value"], c.headline.scope) == (8.5, "user")
    # the time before the first token, in Chinese, and chatglm.cpp as the engine
    c = parse_claim("用chatglm.cpp 0.26版本运行chatglm2 int4量化版,在intel i7-12700H 16G的机器上生成第一个token前的处理时间约在24~29秒")
    assert (c.fields["metric"], c.fields["value"], c.fields["engine"]) == ("ttft", [24, 29], "chatglm.cpp")
    # a figure quoted from elsewhere to measure the result against is not the headline, and measures what it does
    c = parse_claim("Running Qwen-1.5-1.8B with mllm's QNN NPU backend on a Snapdragon 8 Gen 3, the prefill speed is about "
                    "170 tokens/s. That is far from the 564 tokens/s shown in the paper.")
    assert (c.fields["value"], c.fields["metric"], c.fields["engine"]) == (170, "prefill_tok_s", "mllm")
    assert c.figures[1].metric == "prefill_tok_s" and c.figures[1].why["quoted"]
    # arrows between two numbers are a change; the better end of the decode change is the headline
    c = parse_claim("On an M2 Ultra, DeepSeek V4 Flash as an IQ2XXS w2Q2K Q8 imatrix GGUF with ds4-bench: prefill goes "
                    "411 → 270 t/s and gen 23.2 → 20.4 t/s.")
    assert [f.value for f in c.figures] == [411, 270, 23.2, 20.4]
    assert (c.fields["value"], c.fields["precision"], c.fields["engine"]) == (23.2, "IQ2_XXS", "ds4.c")
    # "优化到了 95": the end of a change written with 了
    assert parse_claim("在他的 4090 上 fastllm 从 50 token / s 左右优化到了 95 token / s 左右").fields["value"] == 95
    # chunked prefill is an engine feature, not a time to the first token
    c = parse_claim("借助 vLLM 的 PagedAttention 和分块 Prefill,A100 集群上平均响应时间从 6.8s 降到 3.2s")
    assert (c.fields["metric"], c.fields["value"]) == ("e2e_latency", 3.2)
    # memory written right before the card's name; LMDeploy's generate_token_len; "200 tokens … were generated"
    assert parse_claim("在32G V100上跑 Llama 2 7B 30 tok/s").fields["gpu"] == "V100 32GB"
    assert parse_claim("lmdeploy 跑 InternVL2-8B:generate_token_len=155,推理耗时 4s").fields["output_tokens"] == 155
    assert parse_claim("On one RTX 3090, 200 tokens from a 15-token prompt were generated in 8.11 seconds (24.65 tokens/s)"
                       ).fields["output_tokens"] == 200
    # bare numbers listed after a figure, each at its own setting, take its unit (and its concurrency)
    c = parse_claim("an OpenVINO int4 build gave a generation throughput of 5.28 tokens/s at concurrency 1, 5.30 at 2 and 5.31 at 4.")
    assert [(f.value, f.concurrency) for f in c.figures] == [(5.28, 1), (5.3, 2), (5.31, 4)]
    c = parse_claim("On one RTX 3090, Qwen3.6 27B runs 22.1–24.3 tok/s at Q2_K, 20.0–21.6 at Q4_K_M and 14.4–15.5 at Q6_K.")
    assert [f.value for f in c.figures] == [(22.1, 24.3), (20.0, 21.6), (14.4, 15.5)]
    # "glm2" is ChatGLM2, not an unknown GLM version
    assert parse_claim("On a 32GB Jetson Orin, glm2 runs slowly at about 8 tokens per second.").fields["model"] == "ChatGLM2-6B"
    # FasterTransformer and MLC's container are engines
    assert parse_claim("在A100上用Int8 + FasterTransformer跑,平均每个token推理时间70ms").fields["engine"] == "FasterTransformer"
    assert parse_claim("Llama-2-13b-chat-hf-q4f16_1-MLC in the dustynv/mlc:0.1.1 container gives 20.6 tokens/s"
                       ).fields["engine"] == "MLC-LLM"


def test_set_twenty_four_judge():
    from tokcheck.core.verdict import analyze_claim

    cases = [
        # Tenstorrent's block float weights: 1 + 1/16 bytes per weight, not the released BF16
        ("A user asks how Tenstorrent's Target t/s/u of 38 for Qwen-2.5 7B decode on the n300 card is derived; "
         "the compiled bfp8 weights take about 6.4 GB.", "plausible", "at BFP8"),
        # a stated layer split with no precision: a file narrow enough for it may be what ran
        ("某用户用llama.cpp运行DeepSeek-R1,双NVIDIA GeForce RTX 4070 Ti SUPER时推理速度为1.2-1.3 tokens/秒。改用-ngl 13 "
         "-ts 8,5 -ctk q4_0(13层放到GPU)后达到2.7 tokens/秒。", "plausible", "of the single-stream hard bound"),
        # a server CPU named with its DDR5 speed: its own channel count, not a desktop's two
        ("有人用 ktransformers 在 Intel 8470Q、768G DDR5 4800 内存和一张 RTX 3090 上部署 Qwen3-235b:Q4_K_M 时约 10 token/s",
         "plausible", "of the single-stream hard bound"),
        # a figure quoted from elsewhere is not judged as one of the run's sizes
        ("On an Intel Arc A770, ipex-llm gave ~25-30t/s for 1-3b LLMs, ~14-16t/s for 7-8b and ~10t/s for 12-14b, far below "
         "the 50-60 tokens per second decode advertised on the ipex-llm front page.", "plausible", "of the single-stream hard bound"),
    ]
    for text, verdict, said in cases:
        a = analyze_claim(parse_claim(text))
        assert a.verdict == verdict and any(said in e for e in a.explanations), (text, a.verdict, a.explanations)
    a = analyze_claim(parse_claim("有用户在 Intel 8470Q、768G DDR5 4800 内存和一张 RTX 3090 上用 ktransformers 跑 Qwen3-235b Q4_K_M 约 10 token/s"))
    assert any("8 channels" in e for e in a.explanations)


def test_a_total_set_against_the_compute_roof_is_not_described_by_batch_one_bandwidth():
    from tokcheck.core.verdict import analyze_claim

    a = analyze_claim(parse_claim("after converting its parameters to FP8, DeepSeek-V2 on a single node with 8 H800 GPUs "
                                  "achieves a generation throughput exceeding 50K tokens per second"))
    roof = next(e for e in a.explanations if "compute roof" in e)
    assert "a share of the GPUs' peak compute" in roof and "batch 1" not in roof


@pytest.mark.parametrize("text, precision, quantization", [
    # the headline is the run before the quantization the text names
    ("有用户用 lmdeploy 将 Internvl2-8B 用 awq 量化成 INT4,对同一个 query 推理:量化前 generate_token_len=155,推理耗时 4s;"
     "量化后 generate_token_len=134,推理耗时 29s", None, None),
    # the run after it keeps the type
    ("Llama 3 8B AWQ INT4 on a 4090: 120 tok/s after quantization, 60 tok/s before.", "INT4", "AWQ"),
])
def test_the_run_before_a_quantization_has_not_its_type(text, precision, quantization):
    c = parse_claim(text)
    assert (c.fields.get("precision"), c.fields.get("quantization")) == (precision, quantization)


@pytest.mark.parametrize("text, count", [
    # two GPUs compared in a sentence: the headline's is one
    ("微调后的baichuan2-7B在A10上的推理速度比3090慢1倍左右:3090要1.8s,A10要4.8s。", 1),
    ("有人反映Qwen-14B-chat推理比7B慢很多(A10,没有flash-attention);另一位用户在A800上遇到同样问题,生成1450字用时507秒。", 1),
])
def test_a_gpu_compared_with_another_is_still_one(text, count):
    assert parse_claim(text).fields.get("gpu_count") == count


def test_glm2_and_glm3_are_the_chat_models_by_their_catalog_names():
    assert parse_claim("glm3 on an RTX 4090 at 40 tok/s").fields["model"] == "ChatGLM3-6B"


def test_twenty_fifth_set_wordings():
    # "8ish": an approximate number
    c = parse_claim("A pull request adding Mixtral to the MLX examples says it runs on an M2 Ultra at about 8ish tokens per second.")
    assert (c.fields["value"], c.headline.qualifier, c.fields["model"]) == (8.0, "approx", "Mixtral 8x7B")
    # a log's key and value; "--enable_fp8" is the weights' format
    c = parse_claim("TensorRT-LLM's benchmark.py for LLaMA 7b on an H100-SXM with --enable_fp8, batch size 64 gave "
                    "tokens_per_sec 1857.9 at a latency of 4409.291 ms.")
    assert (c.fields["value"], c.fields["precision"]) == (1857.9, "FP8")
    # vllm bench's peak output rate: stressed, and all requests' together
    c = parse_claim("vllm bench 结果 output_throughput 为 124.58 tok/s,max_output_tokens_per_s 为 308.0,平均 TPOT 34.43 ms。")
    assert (c.fields["value"], c.fields["metric"]) == (308.0, "aggregate_throughput")
    # the two phases' lengths are no speeds, and a batch after a number is a setting
    c = parse_claim("TP=16 · PP=4,prefill 4096 / decode 1024、batch 64、最大并发 256,结果 Decode 2400 tok/s、TTFT p50 380 ms")
    assert (c.fields["value"], c.fields["input_tokens"], c.fields["output_tokens"]) == (2400.0, 4096, 1024)
    assert [f.value for f in c.figures if f.unit == "tok/s"] == [2400.0]
    # FTL is the time to the first token; another person's figure after a reply is no change of the first
    c = parse_claim("qwen2.5-0.5b 在 SE7 上以 int4 运行,实测 FTL:0.207s,TPS:19.517 token/s。工程师回复这不正常,他能跑到 43token/s。")
    assert c.fields["value"] == 19.517 and any(f.metric == "ttft" and f.value == 0.207 for f in c.figures)
    # "单步推理体感约8s": a step's latency
    c = parse_claim("有用户在两张V100上部署CogAgent-9B(bfloat16),单步推理体感约8s,批量实测平均13s。")
    assert (c.fields["value"], c.fields["metric"]) == (8.0, "e2e_latency")
    # "~400 tokens" generated
    assert parse_claim("Serving Mixtral with vLLM, a user saw only ~10-11 TPS while generating ~400 tokens.").fields["output_tokens"] == 400


@pytest.mark.parametrize("text, engine", [
    ("A candle-vllm pull request runs QwQ-32B Q4_K_M at a decoding speed of 36 tokens/s on A100.", "candle-vllm"),
    ("Llama3 8b on a Qualcomm Cloud AI 100 with efficient-transformers release/1.15 gave 6 token/s.", "efficient-transformers"),
    ("A Jan user says its Token Speed is 10.0t/s on a Mac mini with M1.", "Jan"),
    ("Atomic Chat新加入的MTP使稠密的Qwen 3.6 27B从51提升至117 tokens/s。", "Atomic Chat"),
])
def test_engines_of_the_twenty_fifth_set(text, engine):
    assert parse_claim(text).fields["engine"] == engine


def test_twenty_fifth_set_precision_models_and_counts():
    assert parse_claim("Qwen3-32B-DFloat11 on an A800 80GB decoded 1024 tokens at 0.60 tokens per second.").fields["precision"] == "DFloat11"
    assert parse_claim("淬火行动的 Qwen3-32B-W4A4 测试:总 token 吞吐 1112.58 tok/s").fields["precision"] == "INT4"
    # llama-bench's architecture label is not the model named
    c = parse_claim("On an M2 Ultra with llama.cpp, Qwen 3 Coder 30B-A3B as qwen3moe 30B.A3B Q8_0 reached 76.31 t/s at tg128.")
    assert c.fields["model"] == "Qwen3-Coder-30B-A3B"
    # a family with a version the catalog lacks keeps its tier words
    assert parse_claim("Running Qwen3.8-Flash-Next on 4xA100, generation: 54.2 tokens/s").fields["model"] == "Qwen3.8-Flash-Next"
    # "不用MTP": no speculative decoding, though another model in the text used it
    c = parse_claim("4张H20上用vLLM离线推理QWEN3-30B-A3B(不用MTP),生成吞吐为4024.44 tokens/s,比开了MTP的GLM快一倍多。")
    assert c.fields.get("speculative_decoding") is False
    # a run across a node's GPUs names one GPU but not how many
    c = parse_claim("Deploying DeepSeek-R1 on H20-96G with SGLang (DP attention, TP and EP across the node), gen throughput "
                    "of 693.45 token/s on different ranks with 32 running requests.")
    assert c.fields["gpu"] == "H20" and "gpu_count" not in c.fields


def test_runs_on_one_card_and_on_several_give_the_headline_no_count():
    from tokcheck.core.verdict import analyze_claim

    c = parse_claim("在32G V100上分别做了MOSS的FP16多卡部署和8 Bit、4 Bit量化单卡部署,推理都很慢,一个普通问题要100-120秒甚至更长才能答完。")
    assert "gpu_count" not in c.fields
    # (read as one card, the FP16 weights would not fit and the claim would be called impossible)
    assert analyze_claim(c).verdict == "plausible"
