"""llama.cpp, the second engine, through llama-cpp-python: GGUF files served on the CPU with
real quantized weights (Q8_0, Q4_K_M …).

- **Provisioning** (:func:`llama_cpp_recipe`): ``llama-cpp-python[server]==0.3.36`` compiles
  llama.cpp from source with the machine's compiler into its own cached virtualenv
  (``$TOKCHECK_CACHE/venvs/llama-cpp-python-0.3.36``), like vLLM's. The CPU instruction sets are
  stated explicitly from ``/proc/cpuinfo`` with AMX always off: llama.cpp's default
  (``GGML_NATIVE``, ``-march=native``) turns AMX on where the CPU advertises it, and on some
  virtual machines every Q8_0/Q4_K model then dies with SIGSEGV on its first token while F16
  works (``docs/engines.md``). So the environment counts as ready only after a *quantized*
  decode worked (:func:`check_build`).
- **Serving**: ``python -m llama_cpp.server`` with an explicit context (``--n_ctx``), threads,
  batch, ``--interrupt_requests False`` (by default a new request silently cuts the running
  stream short), ``--use_mmap False`` (the weights are read into memory: with mmap the repacked
  Q4_K weights count twice in RSS and the figure depends on the page cache) and ``--verbose
  True`` (the start-up report). The server reads settings from environment variables of the
  same names as its options (``HOST``, ``PORT``, ``MODEL`` …, pydantic-settings); they are
  removed. Readiness: ``GET /v1/models`` answers 200 (no ``/health``; the port opens only after
  the model is loaded).
- **Requests**: ``ignore_eos`` is ignored; an exact output length needs ``max_tokens =
  min_tokens = N`` plus ``logit_bias`` −100 on every end-of-generation token, and the sampling
  defaults differ from OpenAI's (``repeat_penalty`` 1.1): :meth:`LlamaCpp.request_fields`.
- **Quantizing**: :func:`quantize_gguf` runs llama.cpp's own ``llama_model_quantize``
  (``llama_cpp_tool.py`` in the engine's environment).
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tokcheck.engines import llama_cpp_log
from tokcheck.engines.base import Engine, EngineReport, Installed, Progress, ServeSettings
from tokcheck.engines.provision import VenvRecipe, ensure_venv, recipe_venv
from tokcheck.errors import TokcheckError

LLAMA_CPP_PYTHON_VERSION = "0.3.36"
ENTRYPOINT = "llama_cpp.server"
TOOL = Path(__file__).with_name("llama_cpp_tool.py")

# Defaults tokcheck passes explicitly when a setting is not given (llama-cpp-python 0.3.36's own
# defaults: n_ctx 2048, n_batch 512, n_threads = CPU count // 2, at least 1).
DEFAULT_N_CTX = 2048
DEFAULT_N_BATCH = 512

# The options of `python -m llama_cpp.server` 0.3.36 (its --help): pydantic-settings also reads
# each from an environment variable of the same name, in any case (HOST and PORT even override
# the command line), so none may leak from tokcheck's environment into the server's.
SERVER_SETTINGS = (
    "api_key", "cache", "cache_size", "cache_type", "chat_format", "chat_template_kwargs",
    "clip_model_path", "config_file", "disable_ping_events", "draft_model",
    "draft_model_num_pred_tokens", "embedding", "flash_attn", "hf_model_repo_id",
    "hf_pretrained_model_name_or_path", "hf_tokenizer_config_path", "host", "interrupt_requests",
    "kv_overrides", "last_n_tokens_size", "logits_all", "lora_base", "lora_path", "main_gpu",
    "model", "model_alias", "models", "mul_mat_q", "n_batch", "n_ctx", "n_gpu_layers",
    "n_threads", "n_threads_batch", "n_ubatch", "numa", "offload_kqv", "port", "root_path",
    "rope_freq_base", "rope_freq_scale", "rope_scaling_type", "rpc_servers", "seed",
    "split_mode", "ssl_certfile", "ssl_keyfile", "tensor_split", "type_k", "type_v", "use_mlock",
    "use_mmap", "verbose", "vocab_only", "yarn_attn_factor", "yarn_beta_fast", "yarn_beta_slow",
    "yarn_ext_factor", "yarn_orig_ctx",
)

# ---------------------------------------------------------------------------------------------
# Provisioning: the build recipe

#: x86-64 instruction sets ggml can use: (its CMake option, the /proc/cpuinfo flags it needs).
X86_ISA_OPTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("GGML_AVX", ("avx",)), ("GGML_AVX2", ("avx2",)), ("GGML_FMA", ("fma",)),
    ("GGML_F16C", ("f16c",)), ("GGML_BMI2", ("bmi2",)), ("GGML_AVX_VNNI", ("avx_vnni",)),
    ("GGML_AVX512", ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")),
    ("GGML_AVX512_VBMI", ("avx512vbmi",)), ("GGML_AVX512_VNNI", ("avx512_vnni",)),
    ("GGML_AVX512_BF16", ("avx512_bf16",)),
)
#: Never built: ggml's AMX kernels crash quantized models on some virtual machines.
AMX_OPTIONS = ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")
#: Parts of the build the Python package does not need (multimodal, tests, examples, tools, the
#: C++ server, ccache, OpenSSL for llama-common's downloader).
BUILD_OFF = ("LLAVA_BUILD", "LLAMA_BUILD_TESTS", "LLAMA_BUILD_EXAMPLES", "LLAMA_BUILD_TOOLS",
             "LLAMA_BUILD_SERVER", "GGML_CCACHE", "LLAMA_OPENSSL")


def cmake_args(cpu_flags: frozenset[str] | set[str], machine: str) -> str:
    """``CMAKE_ARGS`` for building llama.cpp on this CPU (pure).

    x86-64: ``GGML_NATIVE=OFF`` and each instruction set of :data:`X86_ISA_OPTIONS` ON exactly
    when ``cpu_flags`` (``/proc/cpuinfo`` ``flags``) has it, SSE4.2 OFF only where absent, AMX
    always OFF. Other machines (aarch64): ``GGML_NATIVE=ON`` (no AMX there). Then
    :data:`BUILD_OFF`.
    """
    if machine.lower() in ("x86_64", "amd64"):
        args = ["-DGGML_NATIVE=OFF"]
        if "sse4_2" not in cpu_flags:
            args.append("-DGGML_SSE42=OFF")
        args += [f"-D{opt}={'ON' if all(f in cpu_flags for f in need) else 'OFF'}"
                 for opt, need in X86_ISA_OPTIONS]
        args += [f"-D{opt}=OFF" for opt in AMX_OPTIONS]
    else:
        args = ["-DGGML_NATIVE=ON"]
    return " ".join(args + [f"-D{opt}=OFF" for opt in BUILD_OFF])


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (``/proc/cpuinfo``, first processor); empty where unreadable."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


VERIFY_CODE = """\
import json, llama_cpp, llama_cpp.server.app
info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
if "AMX" in info:
    raise SystemExit("AMX kernels are compiled in: they crash quantized models on some machines")
print(json.dumps({"system_info": info}))
print(llama_cpp.__version__)
"""


def check_build(python: Path, progress: Progress, cmake: str = "") -> dict:
    """A working test of a llama.cpp build (I/O): write a small random F16 GGUF, quantize it to
    Q8_0 and Q4_K_M with llama.cpp's quantizer, decode a few tokens from each. Returns the
    marker's ``build_check`` and ``cmake_args``.

    Raises:
        TokcheckError: the check crashed or failed (with the signal, e.g. SIGSEGV).
    """
    from tokcheck.engines.gguf_convert import write_random_llama_gguf

    with tempfile.TemporaryDirectory(prefix="tokcheck-llama-check-") as tmp:
        f16 = write_random_llama_gguf(Path(tmp) / "check-f16.gguf")
        res = subprocess.run([str(python), "-P", str(TOOL), "check", str(f16), tmp],
                             capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        how = (f"killed by signal {-res.returncode}" if res.returncode < 0
               else f"exit {res.returncode}")
        tail = [ln for ln in res.stderr.splitlines() if ln.strip()]
        raise TokcheckError(f"the llama.cpp build fails a quantized decode ({how}): "
                            f"{tail[-1][:200] if tail else 'no output'}; remove "
                            f"{python.parent.parent} and check the CMAKE_ARGS")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    progress(f"  decoded from F16, Q8_0 and Q4_K_M: {out['decoded']}")
    return {"build_check": {"decoded": out["decoded"]}, "cmake_args": cmake}


def llama_cpp_recipe(version: str = LLAMA_CPP_PYTHON_VERSION,
                     flags: frozenset[str] | None = None,
                     machine: str | None = None) -> VenvRecipe:
    """llama-cpp-python with its server, compiled here (``docs/engines.md``): ``-v`` (cmake's and
    the compiler's output in the install log), ``--no-cache-dir``
    (pip's wheel cache is keyed on name and version, not on ``CMAKE_ARGS``, and would hand back
    a wheel built with other flags), ``CMAKE_ARGS`` from :func:`cmake_args`, one compile job per
    core. Verified by importing the server and checking ``llama_print_system_info()`` has no
    AMX, then by :func:`check_build`."""
    cmake = cmake_args(cpu_flags() if flags is None else flags,
                       machine or platform.machine())
    return VenvRecipe(
        title="llama.cpp for the CPU (llama-cpp-python, compiled here)", label="llama.cpp",
        dist="llama-cpp-python", version=version, extras="[server]",
        first_time="about 6 to 14 minutes on 2 cores: it compiles llama.cpp",
        # -v: the compiler's output goes to the install log too (pip hides a build's output).
        pip_args=("--no-cache-dir", "-v"),
        pip_env=(("CMAKE_ARGS", cmake), ("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))),
        verify_code=VERIFY_CODE,
        verify_what="import llama_cpp and its server; no AMX kernels compiled in",
        marker_key="llama_cpp_python",
        check=functools.partial(check_build, cmake=cmake),
        check_what="quantize a small model to Q8_0 and Q4_K_M and decode from each")


def llama_cpp_venv(version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    """The folder of the cached llama.cpp environment (may not exist yet)."""
    return recipe_venv(llama_cpp_recipe(version, flags=frozenset(), machine="any"))


def ensure_llama_cpp(version: str = LLAMA_CPP_PYTHON_VERSION,
                     progress: Progress | None = None) -> Path:
    """Make sure the cached llama.cpp environment exists and works; return its Python (see
    :func:`tokcheck.engines.provision.ensure_venv`).

    Raises:
        TokcheckError: the build failed or the built engine fails its check.
    """
    return ensure_venv(llama_cpp_recipe(version), progress)


# ---------------------------------------------------------------------------------------------
# Quantizing with llama.cpp's own quantizer


#: The quantized file types the learning path compares (llama.cpp's names).
QUANT_TYPES = ("Q8_0", "Q4_K_M")


def quantize_gguf(python: str | Path, src: str | Path, dst: str | Path, qtype: str,
                  log_path: str | Path | None = None) -> dict:
    """Quantize a GGUF file with llama.cpp's own ``llama_model_quantize`` (default parameters:
    llama.cpp's recipe for ``qtype`` decides each tensor's type, e.g. Q6_K for the output layer
    of Q4_K_M). Runs ``llama_cpp_tool.py quantize`` in the engine's environment ``python``; the
    per-tensor log llama.cpp prints goes to ``log_path`` when given. Written beside ``dst`` and
    renamed, so an interrupted run never leaves a file that looks finished.

    Returns:
        ``{"type", "ftype", "seconds", "in_bytes", "out_bytes"}``.

    Raises:
        TokcheckError: an unknown type or a failed quantization (its last line).
    """
    dst = Path(dst)
    tmp = dst.with_name(f".{dst.name}.partial")
    try:
        res = subprocess.run([str(python), "-P", str(TOOL), "quantize", str(src), str(tmp), qtype],
                             capture_output=True, text=True, timeout=3600)
        if log_path is not None:
            Path(log_path).write_text(res.stderr)
        if res.returncode != 0:
            tail = [ln for ln in (res.stderr + res.stdout).splitlines() if ln.strip()]
            raise TokcheckError(f"quantizing {Path(src).name} to {qtype} failed: "
                                f"{tail[-1][:200] if tail else 'exit ' + str(res.returncode)}")
        tmp.replace(dst)
    finally:
        if tmp.exists():
            tmp.unlink()
    return json.loads(res.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# The engine


def _flag_value(argv: list[str], flag: str) -> str | None:
    """The value after the last ``flag`` in ``argv`` (argparse: the last one wins)."""
    idx = [i for i, a in enumerate(argv) if a == flag]
    return argv[idx[-1] + 1] if idx and idx[-1] + 1 < len(argv) else None


def default_threads() -> int:
    """llama-cpp-python's own default, made explicit: half the CPU count, at least 1."""
    return max((os.cpu_count() or 2) // 2, 1)


class LlamaCpp(Engine):
    """llama.cpp through llama-cpp-python's OpenAI-compatible server (tested: 0.3.36)."""

    name = "llama.cpp"
    aliases = ("llama_cpp", "llama-cpp", "llamacpp", "llama-cpp-python")
    display_name = "llama.cpp"
    distributions = ("llama-cpp-python",)
    log_marker = llama_cpp_log.LOG_MARKER
    readiness_path = "/v1/models"
    # A starting server only loads the file; it stops on SIGTERM in ~0.2 s once serving.
    startup_stop_timeout_s = 3.0
    reaper_grace_s = 5.0

    def provision(self, progress: Progress | None = None) -> Path:
        return ensure_llama_cpp(progress=progress)

    def probe(self, python: str, settings: ServeSettings) -> Installed:
        """llama-cpp-python's version in ``python``'s environment.

        Raises:
            TokcheckError: no llama-cpp-python there.
        """
        version = self.version(python)
        if version is None:
            raise TokcheckError(f"no llama-cpp-python in the environment of {python} (pass "
                                "--python with the engine's own interpreter, or leave it out "
                                "for the cached one)")
        return Installed(version=version)

    def resolve_model(self, model: str) -> str:
        """The GGUF file, made absolute.

        Raises:
            TokcheckError: no such file, a directory, or a file that does not start with the
                GGUF magic bytes.
        """
        p = Path(model).expanduser()
        if p.is_dir():
            ggufs = sorted(p.glob("*.gguf"))
            hint = f" (it holds {', '.join(g.name for g in ggufs[:3])})" if ggufs else ""
            raise TokcheckError(f"{model} is a directory: llama.cpp serves one .gguf file{hint}")
        if not p.is_file():
            raise TokcheckError(f"model file {model} does not exist (llama.cpp serves one .gguf "
                                "file)")
        with open(p, "rb") as f:
            if f.read(4) != b"GGUF":
                raise TokcheckError(f"{model} is not a GGUF file (it does not start with the "
                                    "bytes 'GGUF')")
        return str(p.resolve())

    def validate(self, settings: ServeSettings) -> None:
        """Raises TokcheckError for settings llama.cpp has no use for: tensor parallelism,
        gpu_memory_utilization, --quantization (a GGUF file's tensor types are its precision:
        quantize the file instead), --enforce-eager; and for non-positive threads or batch."""
        q = settings.quantization
        for what, bad in (("tensor_parallel_size", settings.tensor_parallel_size is not None),
                          ("gpu_memory_utilization", settings.gpu_memory_utilization is not None),
                          ("enforce_eager", settings.enforce_eager)):
            if bad:
                raise TokcheckError(f"llama.cpp takes no {what} setting (pass its own flags "
                                    "after `--`, e.g. --n_gpu_layers)")
        if q and q.lower() != "none":
            raise TokcheckError("llama.cpp takes no --quantization: a GGUF file's tensor types "
                                "are its precision; serve a quantized file (tokcheck demo "
                                "--engine llama.cpp makes Q8_0 and Q4_K_M files)")
        for what, value in (("threads", settings.threads), ("batch size", settings.batch_size),
                            ("max_model_len", settings.max_model_len)):
            if value is not None and value < 1:
                raise TokcheckError(f"llama.cpp needs a {what} of at least 1, got {value}")

    def argv(self, settings: ServeSettings, python: str, port: int,
             installed: Installed = Installed()) -> list[str]:
        """``python -m llama_cpp.server`` with every setting that decides what is measured
        explicit: ``--n_ctx`` (``max_model_len``, default 2048), ``--n_threads`` and
        ``--n_threads_batch`` (``threads``, default half the cores), ``--n_batch``
        (``batch_size``, default 512), ``--interrupt_requests False``, ``--use_mmap False``,
        ``--verbose True``; ``--model_alias`` for ``served_model_name``; then ``extra_args``
        (argparse: a later flag wins).

        Raises:
            TokcheckError: a setting llama.cpp cannot honour (:meth:`validate`).
        """
        self.validate(settings)
        threads = settings.threads or default_threads()
        argv = [python, "-m", ENTRYPOINT, "--model", str(settings.model),
                "--host", settings.host, "--port", str(port),
                "--n_ctx", str(settings.max_model_len or DEFAULT_N_CTX),
                "--n_threads", str(threads), "--n_threads_batch", str(threads),
                "--n_batch", str(settings.batch_size or DEFAULT_N_BATCH),
                "--interrupt_requests", "False", "--use_mmap", "False", "--verbose", "True"]
        if settings.served_model_name:
            argv += ["--model_alias", settings.served_model_name]
        return argv + list(settings.extra_args)

    def environment(self, settings: ServeSettings, inherited: Mapping[str, str]) -> dict[str, str]:
        """tokcheck's environment without the server's settings variables
        (:data:`SERVER_SETTINGS`, any case), unbuffered output, then ``settings.env``."""
        names = set(SERVER_SETTINGS)
        env = {k: v for k, v in inherited.items() if k.lower() not in names}
        return {**env, "PYTHONUNBUFFERED": "1", **settings.env}

    def serve_notes(self, settings: ServeSettings, argv: list[str]) -> dict[str, Any]:
        """The effective context, threads and batch (also when tokcheck chose them), and that
        precision is the file's (the ``dtype`` setting does not apply)."""
        def num(flag: str) -> int | None:
            v = _flag_value(argv, flag)
            return int(v) if v is not None and v.isdigit() else None

        return {"dtype": None, "quantization": "none (the GGUF file's tensor types are its "
                "precision)", "max_model_len": num("--n_ctx"), "threads": num("--n_threads"),
                "batch_size": num("--n_batch"),
                "weights_in_memory": _flag_value(argv, "--use_mmap") == "False"}

    def parse_startup_log(self, text: str) -> EngineReport:
        return llama_cpp_log.parse_startup_log(text)

    def complete_report(self, report: EngineReport, argv: list[str],
                        installed: Installed) -> EngineReport:
        """The version from the installed package; threads (not in llama-cpp-python's log)
        from the command line tokcheck started."""
        super().complete_report(report, argv, installed)
        if report.threads is None and (t := _flag_value(argv, "--n_threads")) and t.isdigit():
            report.threads = int(t)
        return report

    def request_fields(self, report: EngineReport, log_text: str) -> dict[str, Any]:
        """``repeat_penalty`` 1.0 (the server's default is 1.1, which changes the logits even
        at temperature 0) and ``logit_bias`` −100 on every end-of-generation token the log
        lists: with bench's ``max_tokens = min_tokens = N`` the output is then exactly N tokens
        (``min_tokens`` alone holds back only the one EOS id; ``ignore_eos`` is ignored)."""
        eog = llama_cpp_log.eog_token_ids(log_text)
        out: dict[str, Any] = {"repeat_penalty": 1.0}
        if eog:
            out["logit_bias"] = {str(i): -100 for i in eog}
        return out

    def diagnose_failure(self, log_text: str, *, model: str = "", port: int | None = None) -> str | None:
        return llama_cpp_log.diagnose_failure(log_text, model=model, port=port)

    def ready_line(self, report: EngineReport) -> str:
        bpw = f", {report.bits_per_weight:g} bits per weight" if report.bits_per_weight else ""
        return (f"file type {report.file_type}{bpw}, n_ctx {report.max_seq_len}, "
                f"{report.threads} threads")


# ---------------------------------------------------------------------------------------------
# A running server's tokenizer

#: Texts for the tokenizer check: ASCII, code with newlines and indentation, tabs, accents,
#: typographic quotes, an emoji, CJK, numbers and brackets, the special tokens' text, empty.
TOKENIZER_TEXTS = (
    "Hello world", "def main(argv):\n    return 0\n", "  leading spaces and\ttabs\n\n",
    "naïve café — “quotes” 😀 日本語", "x = [1, 22, 333, 4444]; y = {'a': 1}",
    "<|bos|>special<|eos|> tokens", "class Foo(Bar):\n    pass\n" * 3, "",
)


def check_tokenizer(url: str, tokenizer: str | Path, texts: tuple[str, ...] = TOKENIZER_TEXTS,
                    timeout_s: float = 30.0) -> dict:
    """Does the server tokenize as the model's ``tokenizer.json`` does? The GGUF file carries
    its own copy of the tokenizer; llama-cpp-python's ``POST /extras/tokenize`` gives the ids
    it uses, compared here with ``tokenizers`` (no special tokens added) on ``texts``.

    Returns:
        ``{"texts": n, "identical": k, "mismatches": [{"text", "server", "tokenizer"}…]}``.

    Raises:
        TokcheckError: the server has no ``/extras/tokenize`` or the tokenizer cannot be read.
    """
    import httpx

    from tokcheck.loadgen.tokens import load_tokenizer

    tok = load_tokenizer(tokenizer).tokenizer
    mismatches = []
    with httpx.Client(timeout=timeout_s, trust_env=False) as client:
        for text in texts:
            r = client.post(f"{url.rstrip('/')}/extras/tokenize", json={"input": text})
            if r.status_code != 200:
                raise TokcheckError(f"{url}/extras/tokenize answered HTTP {r.status_code}")
            server = list(r.json().get("tokens") or [])
            ref = tok.encode(text, add_special_tokens=False).ids
            if server != ref:
                mismatches.append({"text": text, "server": server[:20], "tokenizer": ref[:20]})
    return {"texts": len(texts), "identical": len(texts) - len(mismatches),
            "mismatches": mismatches}
