"""C1/C2: claims parsed field by field, English and Chinese; bad input is a one-line error."""

import pytest

from tokcheck.core.claim import CHECKLIST, FIELD_KEYS, apply_overrides, parse_claim
from tokcheck.errors import TokcheckError


def test_deepseek_v4_flash_claim():
    c = parse_claim("DeepSeek V4 Flash at 278 tok/s, full precision, no quantization")
    assert c.fields == {"model": "DeepSeek V4 Flash", "precision": "full", "quantization": "none",
                        "value": 278.0, "unit": "tok/s"}
    assert c.reference_only and c.present_count == 2
    assert "gpu" in c.missing and "metric" in c.missing and "engine_version" in c.missing


def test_llama_70b_claim():
    c = parse_claim("Llama 3.1 70B on 2x H100 SXM, vLLM 0.6.3, BF16, 64 concurrent requests: 2,300 tok/s total")
    assert c.fields == {"model": "Llama 3.1 70B", "precision": "BF16", "gpu": "H100 SXM", "gpu_count": 2,
                        "engine": "vLLM", "engine_version": "0.6.3", "concurrency": 64,
                        "metric": "aggregate_throughput", "value": 2300.0, "unit": "tok/s"}
    assert not c.reference_only


def test_chinese_qwen3_32b_claim():
    c = parse_claim("单卡 H200 跑 Qwen3-32B 全精度，单请求 58 tok/s，输入 1000 输出 1000")
    assert c.fields == {"model": "Qwen3-32B", "precision": "full", "gpu": "H200", "gpu_count": 1, "concurrency": 1,
                        "input_tokens": 1000, "output_tokens": 1000, "metric": "generation_tok_s",
                        "value": 58.0, "unit": "tok/s"}


def test_gpt_oss_llama_cpp_claim():
    c = parse_claim("gpt-oss-120b runs at 180 tok/s on an RTX 5090 with llama.cpp (MXFP4)")
    assert c.fields == {"model": "gpt-oss-120b", "precision": "MXFP4", "quantization": "MXFP4", "gpu": "RTX 5090",
                        "gpu_count": 1, "engine": "llama.cpp", "value": 180.0, "unit": "tok/s"}


def test_chinese_throughput_claim_with_options():
    c = parse_claim("Qwen3-30B-A3B 在 4090 上并发 32 总吞吐 1200 tok/s，vLLM 0.8.5，FP8，开启前缀缓存，"
                    "max_model_len 8192，无投机解码")
    f = c.fields
    assert f["model"] == "Qwen3-30B-A3B" and f["gpu"] == "RTX 4090" and f["concurrency"] == 32
    assert f["metric"] == "aggregate_throughput" and f["value"] == 1200
    assert f["engine"] == "vLLM" and f["engine_version"] == "0.8.5" and f["precision"] == "FP8"
    assert f["prefix_cache"] is True and f["max_model_len"] == 8192 and f["speculative_decoding"] is False


def test_chinese_ttft_claim():
    c = parse_claim("Qwen3-8B 首 token 延迟 350ms，8 张 A100 80GB，并发 16，输入 2000 输出 500")
    f = c.fields
    assert f["metric"] == "ttft" and f["value"] == 350 and f["unit"] == "ms"
    assert f["gpu_count"] == 8 and f["gpu_memory_gb"] == 80 and f["concurrency"] == 16
    assert f["input_tokens"] == 2000 and f["output_tokens"] == 500


def test_english_options_words():
    c = parse_claim("Llama 3.1 8B on H100 80GB with SGLang v0.4.1, 1k in / 1k out, enforce-eager, MTP, "
                    "prefix caching, 140 tok/s end-to-end")
    f = c.fields
    assert f["engine"] == "SGLang" and f["engine_version"] == "0.4.1"
    assert f["input_tokens"] == 1000 and f["output_tokens"] == 1000
    assert f["cuda_graph"] is False and f["speculative_decoding"] is True and f["prefix_cache"] is True
    assert f["metric"] == "e2e_tok_s" and f["gpu_memory_gb"] == 80


def test_fields_only_use_documented_keys():
    c = parse_claim("Llama 3.1 70B on 2x H100 SXM, vLLM 0.6.3, BF16, 64 concurrent requests: 2,300 tok/s total")
    assert set(c.fields) <= set(FIELD_KEYS)
    assert set(c.missing) <= set(CHECKLIST)


def test_overrides_complete_and_override():
    c = apply_overrides(parse_claim("DeepSeek V4 Flash at 278 tok/s"), gpu="H200", concurrency=1, input_tokens=1000)
    assert c.fields["gpu"] == "H200" and c.fields["concurrency"] == 1
    with pytest.raises(TokcheckError):
        apply_overrides(c, concurrency=0)
    with pytest.raises(TokcheckError):
        apply_overrides(c, metric="speed")


@pytest.mark.parametrize("text", ["", "   ", "DeepSeek V4 Flash is fast", "Llama 3.1 8B at -5 tok/s",
                                  "Llama 3.1 8B at 0 tok/s", "Llama 3.1 8B at 1e12 tok/s"])
def test_bad_claims_are_one_line_errors(text):
    with pytest.raises(TokcheckError) as err:
        parse_claim(text)
    assert "\n" not in str(err.value) and str(err.value)


@pytest.mark.parametrize("text, version", [
    ("Qwen3-30B-A3B-Instruct-2507 at 150 tok/s", "Instruct-2507"),
    ("DeepSeek-R1-0528 at 30 tok/s on 8xH200", "0528"),
    ("Llama 3.1 8B revision 0e9e39f at 100 tok/s", "0e9e39f"),
])
def test_weights_version(text, version):
    assert parse_claim(text).fields["weights_version"] == version


def test_gpu_count_forms():
    assert parse_claim("DeepSeek-R1 at 30 tok/s on 8xH200").fields["gpu_count"] == 8
    assert parse_claim("DeepSeek-R1 at 30 tok/s on 8×H200").fields["gpu"] == "H200"
    assert parse_claim("Mixtral 8x7B at 90 tok/s on 2 GPUs").fields == {
        "model": "Mixtral 8x7B", "gpu_count": 2, "value": 90.0, "unit": "tok/s"}
    assert parse_claim("Qwen3-8B 双卡 4090 跑出 100 tok/s").fields["gpu_count"] == 2


@pytest.mark.parametrize("text, expected", [
    ("Qwen3-8B 每秒生成 95 个 token，并发32", {"value": 95.0, "concurrency": 32}),
    ("Llama 3.1 8B: time to first token 0.35 s", {"metric": "ttft", "value": 0.35, "unit": "s"}),
    ("Qwen3-32B 58 tok/s, ISL/OSL 1k/2k", {"input_tokens": 1000, "output_tokens": 2000}),
    ("Qwen3-32B 58 tok/s, 2000/500 in/out", {"input_tokens": 2000, "output_tokens": 500}),
    ("Qwen3-32B 单请求 58 tok/s，输入输出各 1000", {"input_tokens": 1000, "output_tokens": 1000, "concurrency": 1}),
    ("Llama 3.1 70B 8-bit at 40 tok/s with vllm==0.6.3", {"precision": "INT8", "engine_version": "0.6.3"}),
])
def test_more_phrasings(text, expected):
    f = parse_claim(text).fields
    assert {k: f.get(k) for k in expected} == expected


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120))
def test_any_text_parses_or_fails_with_one_line_error(text):
    try:
        c = parse_claim(text)
    except TokcheckError as err:
        assert "\n" not in str(err)
        return
    assert c.fields["value"] > 0 and set(c.fields) <= set(FIELD_KEYS)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["DeepSeek V4 Flash", "Qwen3-32B", "Llama 3.1 70B", "gpt-oss-20b"]),
       st.floats(min_value=0.5, max_value=99999, allow_nan=False).map(lambda v: round(v, 1)),
       st.sampled_from(["H200", "RTX 4090", "MI300X", "H100 SXM"]))
def test_generated_claims_round_trip(model, value, gpu):
    f = parse_claim(f"{model} at {value} tok/s on {gpu}").fields
    assert f["model"] == model and f["value"] == pytest.approx(value) and f["gpu"] == gpu


def test_a_figure_that_is_also_a_gpu_model_number_is_the_figure():
    # found by the round trip above: "5060.0 tok/s" was blanked as an RTX 5060
    f = parse_claim("DeepSeek V4 Flash at 5060.0 tok/s on H200").fields
    assert (f["value"], f["gpu"]) == (5060.0, "H200")
    assert parse_claim("Qwen3-8B runs at 80 tok/s on a 5060").fields["gpu"] == "RTX 5060"
