"""llama.cpp, the second engine, without starting it: its build recipe, the cached environment's
marker, its command line and environment from explicit settings, its start-up log (real logs of
llama-cpp-python 0.3.36 in tests/fixtures/llama_cpp_logs) and failure lines, the request
fields that make output lengths exact, and the GGUF writer."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tokcheck.cli import main
from tokcheck.engines import registry
from tokcheck.engines.base import EngineReport, Installed, ServeSettings
from tokcheck.engines.gguf_convert import (gguf_tensor_name, permute_qk, write_llama_gguf,
                                           write_random_llama_gguf)
from tokcheck.engines.llama_cpp import (DEFAULT_N_BATCH, DEFAULT_N_CTX, LlamaCpp, cmake_args,
                                        default_threads, ensure_llama_cpp, llama_cpp_recipe,
                                        llama_cpp_venv)
from tokcheck.engines.llama_cpp_log import (decode_timings, diagnose_failure, eog_token_ids,
                                            parse_startup_log)
from tokcheck.engines.provision import MARKER_NAME, VenvRecipe, ensure_venv
from tokcheck.errors import TokcheckError

LOGS = Path(__file__).parent.parent / "fixtures" / "llama_cpp_logs"
ENGINE = LlamaCpp()

# /proc/cpuinfo flags of the machine the recipe was found on (x86-64, Sapphire Rapids class:
# AVX-512 with VBMI/VNNI/BF16, AVX-VNNI, and AMX, which the build must leave out).
SPR_FLAGS = frozenset("fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c bmi2 avx_vnni avx512f "
                      "avx512cd avx512vl avx512dq avx512bw avx512vbmi avx512_vnni avx512_bf16 "
                      "amx_tile amx_int8 amx_bf16".split())
# The CMAKE_ARGS the build exploration settled on for that machine (docs/engines.md).
SPR_CMAKE = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
             "-DGGML_BMI2=ON -DGGML_AVX_VNNI=ON -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON "
             "-DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF "
             "-DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF "
             "-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF "
             "-DGGML_CCACHE=OFF -DLLAMA_OPENSSL=OFF")


# ---------------------------------------------------------------------------------------------
# The build recipe and the cached environment


def test_cmake_args_on_the_machine_the_recipe_was_found_on():
    assert cmake_args(SPR_FLAGS, "x86_64") == SPR_CMAKE


def test_cmake_args_follow_the_cpu_and_never_turn_amx_on():
    avx2_only = frozenset("sse4_2 avx avx2 fma f16c bmi2".split())
    args = cmake_args(avx2_only, "x86_64").split()
    assert "-DGGML_AVX2=ON" in args and "-DGGML_AVX512=OFF" in args
    assert "-DGGML_AVX_VNNI=OFF" in args and "-DGGML_AVX512_BF16=OFF" in args
    # AVX-512 needs all five of F, CD, VL, DQ, BW (ggml's GGML_AVX512 turns all five on).
    partial = avx2_only | {"avx512f", "avx512cd"}
    assert "-DGGML_AVX512=OFF" in cmake_args(partial, "x86_64").split()
    assert "-DGGML_SSE42=OFF" in cmake_args(frozenset({"avx"}), "x86_64").split()
    for flags in (SPR_FLAGS, avx2_only):
        assert all(f"-D{o}=OFF" in cmake_args(flags, "x86_64").split()
                   for o in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16"))
    assert cmake_args(frozenset(), "aarch64").split()[0] == "-DGGML_NATIVE=ON"


def test_recipe_is_the_cached_environment_of_the_exploration():
    r = llama_cpp_recipe(flags=SPR_FLAGS, machine="x86_64")
    assert r.venv_name == "llama-cpp-python-0.3.36" and r.extras == "[server]"
    assert r.pip_args == ("--no-cache-dir", "-v")  # pip's wheel cache ignores CMAKE_ARGS; -v: the build in the log
    assert dict(r.pip_env)["CMAKE_ARGS"] == SPR_CMAKE
    assert r.marker_key == "llama_cpp_python" and r.check is not None


def test_a_verified_environment_is_reused_without_building(tmp_path, monkeypatch):
    """The marker the exploration wrote (same name, same key) makes the environment ready."""
    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    venv = llama_cpp_venv()
    assert venv == tmp_path / "venvs" / "llama-cpp-python-0.3.36"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")  # never executed
    (venv / MARKER_NAME).write_text(json.dumps({"llama_cpp_python": "0.3.36"}))
    lines = []
    assert ensure_llama_cpp(progress=lines.append) == venv / "bin" / "python"
    assert lines == []


def test_verify_info_and_check_go_into_the_marker(tmp_path, monkeypatch):
    """A recipe whose environment already has its package: the verify code's JSON lines and the
    check's result are written into the marker with the install's time and size; a failing
    check leaves no marker."""
    import pip

    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    venv = tmp_path / "venvs" / f"pip-{pip.__version__}"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    code = "import json, pip; print(json.dumps({'info': 42})); print(pip.__version__)"
    calls = []

    def check(python, progress):
        calls.append(python)
        return {"checked": True}

    recipe = VenvRecipe(title="t", label="pip", dist="pip", version=pip.__version__,
                        verify_code=code, verify_what="import pip", marker_key="pip", check=check,
                        check_what="a check")
    assert ensure_venv(recipe, progress=lambda line: None) == venv / "bin" / "python"
    marker = json.loads((venv / MARKER_NAME).read_text())
    assert marker["pip"] == pip.__version__ and marker["info"] == 42 and marker["checked"]
    assert marker["venv_bytes"] > 0 and marker["provision_s"] >= 0
    assert calls == [venv / "bin" / "python"]

    (venv / MARKER_NAME).unlink()

    def failing(python, progress):
        raise TokcheckError("the build crashes")

    bad = VenvRecipe(**{**recipe.__dict__, "check": failing})
    with pytest.raises(TokcheckError, match="the build crashes"):
        ensure_venv(bad, progress=lambda line: None)
    assert not (venv / MARKER_NAME).exists()


# ---------------------------------------------------------------------------------------------
# Command line and environment


def test_registry_knows_llama_cpp_by_its_names():
    for name in ("llama.cpp", "llama_cpp", "LLAMA-CPP", "llamacpp", "llama-cpp-python"):
        assert registry.get_engine(name).name == "llama.cpp"
    assert "llama.cpp" in registry.engine_names()
    assert registry.engine_for_log((LOGS / "start-ok-q4_k_m.log").read_text()).name == "llama.cpp"
    vllm_log = (Path(__file__).parent.parent / "fixtures" / "vllm_logs" / "start-ok-eager.log")
    assert registry.engine_for_log(vllm_log.read_text()).name == "vllm"


def test_argv_states_every_setting_that_decides_what_is_measured():
    s = ServeSettings(model="/m/x.gguf", engine="llama.cpp", max_model_len=4096, threads=2,
                      batch_size=256, served_model_name="tiny", extra_args=["--n_ubatch", "128"])
    argv = ENGINE.argv(s, "/venv/bin/python", 8123)
    assert argv == ["/venv/bin/python", "-m", "llama_cpp.server", "--model", "/m/x.gguf",
                    "--host", "127.0.0.1", "--port", "8123", "--n_ctx", "4096",
                    "--n_threads", "2", "--n_threads_batch", "2", "--n_batch", "256",
                    "--interrupt_requests", "False", "--use_mmap", "False", "--verbose", "True",
                    "--model_alias", "tiny", "--n_ubatch", "128"]
    argv = ENGINE.argv(ServeSettings(model="/m/x.gguf", engine="llama.cpp"), "py", 1)
    i = argv.index
    assert argv[i("--n_ctx") + 1] == str(DEFAULT_N_CTX) == "2048"
    assert argv[i("--n_batch") + 1] == str(DEFAULT_N_BATCH) == "512"
    assert argv[i("--n_threads") + 1] == str(default_threads())
    assert default_threads() == max((os.cpu_count() or 2) // 2, 1)
    notes = ENGINE.serve_notes(s, ENGINE.argv(s, "py", 1))
    assert notes["threads"] == 2 and notes["batch_size"] == 256 and notes["max_model_len"] == 4096
    assert notes["dtype"] is None and notes["weights_in_memory"] is True


@pytest.mark.parametrize("field, value, word", [
    ("tensor_parallel_size", 2, "tensor_parallel_size"),
    ("gpu_memory_utilization", 0.9, "gpu_memory_utilization"),
    ("enforce_eager", True, "enforce_eager"),
    ("quantization", "fp8", "quantization"),
    ("threads", 0, "threads"),
])
def test_settings_llama_cpp_cannot_honour_are_refused(field, value, word):
    s = ServeSettings(model="/m/x.gguf", engine="llama.cpp", **{field: value})
    with pytest.raises(TokcheckError, match=word) as err:
        ENGINE.validate(s)
    assert "\n" not in str(err.value)
    with pytest.raises(TokcheckError):
        ENGINE.argv(s, "py", 1)


def test_environment_drops_the_servers_settings_variables():
    inherited = {"HOST": "0.0.0.0", "PORT": "80", "model": "/other.gguf", "N_CTX": "9",
                 "Verbose": "false", "PATH": "/usr/bin", "HOME": "/root"}
    env = ENGINE.environment(ServeSettings(model="x", env={"EXTRA": "1"}), inherited)
    assert env == {"PATH": "/usr/bin", "HOME": "/root", "PYTHONUNBUFFERED": "1", "EXTRA": "1"}


def test_resolve_model_wants_one_gguf_file(tmp_path):
    with pytest.raises(TokcheckError, match="does not exist"):
        ENGINE.resolve_model(str(tmp_path / "nope.gguf"))
    (tmp_path / "a.gguf").write_bytes(b"GGUF\x03\x00\x00\x00")
    with pytest.raises(TokcheckError, match=r"is a directory: llama.cpp serves one .gguf file "
                                            r"\(it holds a.gguf\)"):
        ENGINE.resolve_model(str(tmp_path))
    (tmp_path / "b.gguf").write_text("this is not a model")
    with pytest.raises(TokcheckError, match="is not a GGUF file"):
        ENGINE.resolve_model(str(tmp_path / "b.gguf"))
    assert ENGINE.resolve_model(str(tmp_path / "a.gguf")) == str((tmp_path / "a.gguf").resolve())


def test_serve_cli_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "m.gguf").write_text("not gguf")
    assert main(["serve", "--engine", "llama.cpp", "--model", str(tmp_path / "m.gguf")]) == 1
    assert capsys.readouterr().err == f"Error: {tmp_path / 'm.gguf'} is not a GGUF file (it " \
                                      "does not start with the bytes 'GGUF')\n"
    assert main(["serve", "--engine", "llama.cpp", "--model", "x.gguf",
                 "--tensor-parallel-size", "2"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# The start-up log


@pytest.mark.parametrize("name, file_type, quant, dtype, bpw, types", [
    ("f16", "F16", "none", "float16", 16.01, {"F16": 29, "F32": 9}),
    ("q8_0", "Q8_0", "Q8_0", None, 8.52, {"Q8_0": 29, "F32": 9}),
    ("q4_k_m", "Q4_K - Medium", "Q4_K_M", None, 5.35, {"Q4_K": 24, "Q6_K": 5, "F32": 9}),
])
def test_report_from_real_start_up_logs(name, file_type, quant, dtype, bpw, types):
    rep = parse_startup_log((LOGS / f"start-ok-{name}.log").read_text())
    assert rep.engine == "llama.cpp" and rep.file_type == file_type
    assert rep.quantization == quant and rep.dtype == dtype
    assert rep.bits_per_weight == bpw and rep.tensor_types == types
    assert rep.model == f"models/tiny-{name}.gguf" and rep.architecture == "llama"
    assert rep.max_seq_len == 2048 and rep.batch_size == 512
    assert rep.kv_cache_dtype == "f16" and rep.kv_cache_tokens == 2048
    assert rep.kv_cache_memory_gib == pytest.approx(4.0 / 1024)
    assert (rep.layers_offloaded, rep.layers_total, rep.device) == (0, 5, "cpu")
    assert rep.threads is None and rep.version is None  # llama-cpp-python prints neither


def test_the_start_fills_version_and_threads_the_log_does_not_state():
    rep = parse_startup_log((LOGS / "start-ok-f16.log").read_text())
    argv = ENGINE.argv(ServeSettings(model="/m.gguf", threads=3), "py", 1)
    ENGINE.complete_report(rep, argv, Installed(version="0.3.36"))
    assert rep.threads == 3 and rep.version == "0.3.36"
    assert "file type F16, 16.01 bits per weight, n_ctx 2048, 3 threads" == ENGINE.ready_line(rep)


# A llama-server start-up of 2024 on a GPU, in the lines of that llama.cpp (src/llama.cpp:
# llm_load_print_meta's "model ftype"/"model size", llm_load_tensors' "offloaded N/M layers to
# GPU", llama_new_context_with_model's n_ctx/n_batch/"KV self size"; common's "system_info:
# n_threads = …"); the values of a Llama-3.1-8B Q4_K_M file (4.58 GiB, 4.89 BPW).
LLAMA_SERVER_2024 = """\
build: 3600 (2f3c1466) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu
system info: n_threads = 8, n_threads_batch = 8, total_threads = 16
llama_model_loader: loaded meta data with 29 key-value pairs and 292 tensors from /models/llama-3.1-8b-instruct-q4_k_m.gguf (version GGUF V3 (latest))
llama_model_loader: - type  f32:   66 tensors
llama_model_loader: - type q4_K:  193 tensors
llama_model_loader: - type q6_K:   33 tensors
llm_load_print_meta: format           = GGUF V3 (latest)
llm_load_print_meta: arch             = llama
llm_load_print_meta: n_layer          = 32
llm_load_print_meta: model type       = 8B
llm_load_print_meta: model ftype      = Q4_K - Medium
llm_load_print_meta: model params     = 8.03 B
llm_load_print_meta: model size       = 4.58 GiB (4.89 BPW) 
llm_load_print_meta: EOS token        = 128009 '<|eot_id|>'
llm_load_print_meta: EOT token        = 128009 '<|eot_id|>'
llm_load_tensors: offloading 32 repeating layers to GPU
llm_load_tensors: offloading non-repeating layers to GPU
llm_load_tensors: offloaded 33/33 layers to GPU
llm_load_tensors:        CPU buffer size =   281.81 MiB
llm_load_tensors:      CUDA0 buffer size =  4403.49 MiB
llama_new_context_with_model: n_ctx      = 8192
llama_new_context_with_model: n_batch    = 2048
llama_new_context_with_model: KV self size  = 1024.00 MiB, K (f16):  512.00 MiB, V (f16):  512.00 MiB
system_info: n_threads = 8 (n_threads_batch = 8) / 16 | AVX = 1 | AVX2 = 1 | FMA = 1 |
"""


def test_report_from_an_older_llama_server_log_on_a_gpu():
    rep = parse_startup_log(LLAMA_SERVER_2024)
    assert rep.file_type == "Q4_K - Medium" and rep.quantization == "Q4_K_M"
    assert rep.bits_per_weight == 4.89 and rep.tensor_types == {"F32": 66, "Q4_K": 193, "Q6_K": 33}
    assert (rep.layers_offloaded, rep.layers_total, rep.device) == (33, 33, "gpu")
    assert rep.max_seq_len == 8192 and rep.batch_size == 2048 and rep.threads == 8
    assert rep.kv_cache_memory_gib == 1.0 and rep.kv_cache_dtype == "f16"
    assert rep.kv_cache_tokens == 8192 and rep.version == "build 3600 (2f3c1466)"
    assert eog_token_ids(LLAMA_SERVER_2024) == [128009]


def test_end_of_generation_tokens_and_the_request_fields_they_give():
    text = (LOGS / "start-ok-q4_k_m.log").read_text()
    assert eog_token_ids(text) == [2]
    assert ENGINE.request_fields(parse_startup_log(text), text) == {
        "repeat_penalty": 1.0, "logit_bias": {"2": -100}}
    several = "load: printing all EOG tokens:\nload:   - 2 ('</s>')\nload:   - 32007 ('<|end|>')\n" \
              "load: special tokens cache size = 3\n"
    assert eog_token_ids(several) == [2, 32007]
    assert ENGINE.request_fields(EngineReport(), "")["repeat_penalty"] == 1.0


def test_decode_timings_are_llama_cpps_own_eval_lines():
    text = ("llama_perf_context_print: prompt eval time =       4.90 ms /    11 tokens (    0.45 ms "
            "per token,  2244.90 tokens per second)\n"
            "llama_perf_context_print:        eval time =     106.40 ms /   256 runs   (    0.42 ms "
            "per token,  2405.99 tokens per second)\n")
    assert decode_timings(text) == [(106.40, 256)]


@pytest.mark.parametrize("name, line", [
    ("missing-file", "model file fail-fixtures/nope.gguf does not exist"),
    ("not-gguf", "m.gguf is not a GGUF file (it does not start with the bytes 'GGUF')"),
    ("truncated-gguf", "llama.cpp could not load m.gguf: tensor 'token_embd.weight' data is not "
                       "within the file bounds, model is corrupted or incomplete"),
    ("unknown-pre", "llama.cpp could not load m.gguf: error loading model vocabulary: unknown "
                    "pre-tokenizer type: 'tokcheck-bpe'"),
    ("port-in-use", "port 46749 is already in use: choose another --port or stop the process "
                    "that holds it"),
    ("bad-flag", "llama.cpp's server rejected its command line: argument --n_ctx: invalid int "
                 "value: 'abc'"),
])
def test_failed_starts_are_one_line_each(name, line):
    text = (LOGS / f"start-fail-{name}.log").read_text()
    assert diagnose_failure(text, model="m.gguf", port=46749) == line


def test_out_of_memory_gives_the_fixes_to_try():
    text = ("ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size "
            "68719476736\nllama_model_load: error loading model: unable to allocate CPU buffer\n")
    said = diagnose_failure(text, model="big.gguf")
    assert said.startswith("out of memory loading big.gguf (ggml_backend_cpu_buffer_type_alloc_"
                           "buffer: failed to allocate buffer of size 68719476736)")
    assert "a smaller context (--max-model-len" in said and "\n" not in said


# ---------------------------------------------------------------------------------------------
# GGUF writing


def test_permute_qk_interleaves_the_two_rotary_halves():
    """One head of dim 4: HF rows [x0, x1 | y0, y1] (rotate-half) become llama.cpp's pairs
    [x0, y0, x1, y1]."""
    w = np.arange(4 * 2).reshape(4, 2)
    assert permute_qk(w, 1).tolist() == [[0, 1], [4, 5], [2, 3], [6, 7]]
    assert gguf_tensor_name("model.layers.3.self_attn.k_proj.weight") == "blk.3.attn_k.weight"
    with pytest.raises(TokcheckError, match="not part of a plain Llama"):
        gguf_tensor_name("model.layers.0.self_attn.q_proj.bias")


def _tiny_hf_llama(d: Path, tokenizer_json: Path, dtype=np.float16) -> dict:
    from tokcheck.engines.tinymodel import CHAT_TEMPLATE

    rng = np.random.default_rng(1)
    hidden, inter, heads, kv, vocab = 64, 128, 4, 2, 4096
    hd = hidden // heads
    t = {"model.embed_tokens.weight": rng.standard_normal((vocab, hidden)),
         "model.norm.weight": np.ones(hidden)}
    for name, shape in (("input_layernorm", (hidden,)), ("post_attention_layernorm", (hidden,)),
                        ("self_attn.q_proj", (heads * hd, hidden)),
                        ("self_attn.k_proj", (kv * hd, hidden)),
                        ("self_attn.v_proj", (kv * hd, hidden)),
                        ("self_attn.o_proj", (hidden, hidden)), ("mlp.gate_proj", (inter, hidden)),
                        ("mlp.up_proj", (inter, hidden)), ("mlp.down_proj", (hidden, inter))):
        t[f"model.layers.0.{name}.weight"] = rng.standard_normal(shape)
    t = {k: v.astype(dtype) for k, v in t.items()}
    d.mkdir()
    save_file(t, str(d / "model.safetensors"))
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": hidden,
           "intermediate_size": inter, "num_attention_heads": heads, "num_key_value_heads": kv,
           "num_hidden_layers": 1, "vocab_size": vocab, "max_position_embeddings": 512,
           "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": True,
           "bos_token_id": 1, "eos_token_id": 2}
    (d / "config.json").write_text(json.dumps(cfg))
    (d / "tokenizer.json").write_text(tokenizer_json.read_text())
    (d / "tokenizer_config.json").write_text(json.dumps({
        "bos_token": "<|bos|>", "eos_token": "<|eos|>", "pad_token": "<|pad|>",
        "add_bos_token": False, "chat_template": CHAT_TEMPLATE}))
    return t


@pytest.mark.parametrize("file_type, ggml, np_type", [("F16", "F16", np.float16),
                                                      ("F32", "F32", np.float32)])
def test_a_hugging_face_llama_as_gguf(tmp_path, tiny_tokenizer, file_type, ggml, np_type):
    from gguf import GGUFReader

    src = _tiny_hf_llama(tmp_path / "hf", tiny_tokenizer)
    out = write_llama_gguf(tmp_path / "hf", tmp_path / "m.gguf", file_type)
    r = GGUFReader(str(out))
    meta = {k: f.contents() for k, f in r.fields.items() if not k.startswith("GGUF.")}
    assert meta["general.architecture"] == "llama" and meta["general.file_type"] == \
        {"F16": 1, "F32": 0}[file_type]
    assert meta["llama.embedding_length"] == 64 and meta["llama.attention.head_count_kv"] == 2
    assert meta["llama.rope.freq_base"] == 500000.0 and meta["llama.rope.dimension_count"] == 16
    assert meta["tokenizer.ggml.model"] == "gpt2" and meta["tokenizer.ggml.pre"] == "gpt-2"
    assert len(meta["tokenizer.ggml.tokens"]) == 4096 and meta["tokenizer.ggml.tokens"][2] == "<|eos|>"
    assert meta["tokenizer.ggml.token_type"][:3] == [3, 3, 3]  # CONTROL: pad, bos, eos
    assert meta["tokenizer.ggml.eos_token_id"] == 2 and meta["tokenizer.ggml.add_bos_token"] is False
    tensors = {t.name: t for t in r.tensors}
    assert "output.weight" not in tensors  # tied: llama.cpp uses token_embd
    assert len(tensors) == 2 + 9
    assert tensors["blk.0.attn_norm.weight"].tensor_type.name == "F32"
    q = tensors["blk.0.attn_q.weight"]
    assert q.tensor_type.name == ggml and list(q.shape) == [64, 64]  # ggml ne = [in, out]
    want = permute_qk(src["model.layers.0.self_attn.q_proj.weight"].astype(np.float32), 4)
    assert np.array_equal(np.asarray(q.data).reshape(64, 64), want.astype(np_type))
    k = tensors["blk.0.attn_k.weight"]
    want = permute_qk(src["model.layers.0.self_attn.k_proj.weight"].astype(np.float32), 2)
    assert np.array_equal(np.asarray(k.data).reshape(32, 64), want.astype(np_type))
    assert list(tensors["blk.0.ffn_down.weight"].shape) == [128, 64]
    assert not (tmp_path / ".m.gguf.partial").exists()


def test_bf16_gguf_rounds_to_nearest_even(tmp_path, tiny_tokenizer):
    """BF16 is the top half of the float32 bits, rounded to nearest even (as llama.cpp's
    converter and gguf-py round)."""
    from gguf import GGUFReader

    src = _tiny_hf_llama(tmp_path / "hf", tiny_tokenizer)
    out = write_llama_gguf(tmp_path / "hf", tmp_path / "m.gguf", "bf16")
    t = {t.name: t for t in GGUFReader(str(out)).tensors}["blk.0.ffn_up.weight"]
    assert t.tensor_type.name == "BF16"
    f32 = src["model.layers.0.mlp.up_proj.weight"].astype(np.float32)
    expect = (f32.view(np.uint32) + 0x7FFF + ((f32.view(np.uint32) >> 16) & 1)) >> 16
    assert np.array_equal(np.asarray(t.data).view(np.uint16).reshape(f32.shape),
                          expect.astype(np.uint16))


def test_the_writer_refuses_what_it_cannot_write(tmp_path, tiny_tokenizer):
    _tiny_hf_llama(tmp_path / "hf", tiny_tokenizer)
    with pytest.raises(TokcheckError, match="unknown GGUF file type 'Q4_K_M'"):
        write_llama_gguf(tmp_path / "hf", tmp_path / "m.gguf", "Q4_K_M")
    cfg = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**cfg, "model_type": "qwen2"}))
    with pytest.raises(TokcheckError, match="is a 'qwen2' model"):
        write_llama_gguf(tmp_path / "hf", tmp_path / "m.gguf")


def test_the_build_check_model_is_a_loadable_llama(tmp_path):
    from gguf import GGUFReader

    r = GGUFReader(str(write_random_llama_gguf(tmp_path / "c.gguf")))
    tensors = {t.name: t for t in r.tensors}
    # K-quants need rows that are multiples of 256 wide (ggml ne[0]): every matrix has them.
    for t in tensors.values():
        if len(t.shape) == 2:
            assert int(t.shape[0]) % 256 == 0, t.name
    assert r.get_field("tokenizer.ggml.eos_token_id").contents() == 258
