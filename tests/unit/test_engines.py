"""The engine interface: the registry, vLLM's command line and environment from explicit settings
(against today's behaviour and vLLM 0.32.0's own ``--help``), the run record's ``serve``
section, metric names as data of each engine, and finding a log's engine."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tokcheck.cli import main
from tokcheck.engines import registry
from tokcheck.engines.base import (COUNTER_KEYS, GAUGE_KEYS, Engine, EngineReport, Installed,
                                   MetricNames, ServeSettings)
from tokcheck.engines.lifecycle import RunningServer, start_failure
from tokcheck.engines.vllm import DEFAULT_ENV, ENTRYPOINT, VLLM
from tokcheck.errors import TokcheckError

LOGS = Path(__file__).parent.parent / "fixtures" / "vllm_logs"
HELP_0_32 = (LOGS / "help-0.32.0.txt").read_text()


# ---------------------------------------------------------------------------------------------
# The registry


def test_unknown_engine_is_one_line_listing_the_known_ones():
    with pytest.raises(TokcheckError) as err:
        registry.get_engine("sglangx")
    known = ", ".join(registry.engine_names())
    assert "vllm" in registry.engine_names()
    assert str(err.value) == f"unknown engine 'sglangx': known engines are {known}"


@pytest.mark.parametrize("name", ["vllm", "vLLM", " VLLM ", "vllm-cpu"])
def test_names_and_aliases_in_any_case(name):
    assert registry.get_engine(name).name == "vllm"
    assert registry.engine_name(name) == "vllm"


def test_an_engine_object_passes_as_it_is():
    eng = VLLM()
    assert registry.get_engine(eng) is eng


def test_registered_engines_are_complete():
    names = registry.engine_names()
    assert len(names) == len(set(names))
    for eng in registry.ENGINES:
        assert isinstance(eng, Engine)
        assert eng.name == eng.name.lower() and eng.display_name
        assert eng.readiness_path.startswith("/")
        assert set(eng.metrics.counters) <= set(COUNTER_KEYS)


@pytest.mark.parametrize("command", ["serve", "sweep", "reproduce"])
def test_cli_unknown_engine_is_a_one_line_error(command, tmp_path, capsys):
    extra = {"serve": ["--model", str(tmp_path)],
             "sweep": ["--model", str(tmp_path), "--max-model-len", "2048"],
             "reproduce": ["claim text", "--model", str(tmp_path)]}[command]
    assert main([command, "--engine", "nope", *extra]) == 1
    err = capsys.readouterr().err
    assert err == f"Error: unknown engine 'nope': known engines are {', '.join(registry.engine_names())}\n"
    assert not any(tmp_path.iterdir())  # nothing started, nothing written


def test_flows_reproduce_refuses_an_unknown_engine_before_any_work(tmp_path):
    from tokcheck.flows.reproduce import reproduce

    with pytest.raises(TokcheckError, match="unknown engine 'nope'"):
        reproduce("x", tmp_path / "no-model", out=tmp_path / "out", engine="nope")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# vLLM's command line from explicit settings


def _help_options(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def test_vllm_argv_is_todays_argv():
    """Every setting set: the exact command line the engine got before the interface existed."""
    s = ServeSettings(model="/models/m y", dtype="float16", max_model_len=4096,
                      gpu_memory_utilization=0.85, tensor_parallel_size=2, host="0.0.0.0",
                      served_model_name="tiny", enforce_eager=True,
                      extra_args=["--max-num-seqs", "8"])
    assert VLLM().argv(s, "/py", 8123, Installed("0.32.0", HELP_0_32)) == [
        "/py", "-m", ENTRYPOINT, "--model", "/models/m y", "--dtype", "float16",
        "--host", "0.0.0.0", "--port", "8123", "--max-model-len", "4096",
        "--gpu-memory-utilization", "0.85", "--tensor-parallel-size", "2",
        "--served-model-name", "tiny", "--enforce-eager", "--max-num-seqs", "8"]
    # Defaults: only what decides precision and where it listens.
    assert VLLM().argv(ServeSettings(model="/m"), "/py", 1, Installed("0.32.0", HELP_0_32)) == [
        "/py", "-m", ENTRYPOINT, "--model", "/m", "--dtype", "bfloat16", "--host", "127.0.0.1",
        "--port", "1"]


def test_every_flag_tokcheck_passes_is_in_vllm_0_32_help():
    offered = _help_options(HELP_0_32)
    s = ServeSettings(model="/m", max_model_len=2048, gpu_memory_utilization=0.8,
                      tensor_parallel_size=1, quantization="fp8", served_model_name="t",
                      enforce_eager=True)
    passed = {a for a in VLLM().argv(s, "/py", 1, Installed("0.32.0", HELP_0_32))
              if a.startswith("--")}
    assert passed == {"--model", "--dtype", "--host", "--port", "--max-model-len",
                      "--gpu-memory-utilization", "--tensor-parallel-size", "--quantization",
                      "--served-model-name", "--enforce-eager"}
    assert passed <= offered, passed - offered


def test_quantization_off_follows_the_help_and_is_recorded():
    eng = VLLM()
    s = ServeSettings(model="/m")
    argv = eng.argv(s, "/py", 1, Installed("0.32.0", HELP_0_32))
    assert "--quantization" not in argv  # 0.32.0 has no 'none' value: its default is off
    assert eng.serve_notes(s, argv)["quantization_flag"].startswith("not passed")
    old = Installed("0.6.0", "  --quantization {aqlm,awq,fp8,gptq,None}, -q {…}")
    argv = eng.argv(s, "/py", 1, old)
    assert argv[-2:] == ["--quantization", "None"]
    assert eng.serve_notes(s, argv) == {"quantization_flag": "--quantization None"}
    q = ServeSettings(model="/m", quantization="fp8")
    argv = eng.argv(q, "/py", 1, old)
    assert argv[argv.index("--quantization") + 1] == "fp8"
    assert eng.serve_notes(q, argv) == {"quantization_flag": "--quantization fp8"}


@pytest.mark.parametrize("field", ["threads", "batch_size"])
def test_vllm_refuses_settings_it_has_no_flag_for(field):
    with pytest.raises(TokcheckError, match=f"vLLM takes no {field}"):
        VLLM().argv(ServeSettings(model="/m", **{field: 4}), "/py", 1)


def test_vllm_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path))
    eng = VLLM()
    env = eng.environment(ServeSettings(model="/m", kv_cache_space_gib=2.5), {"PATH": "/bin"})
    assert env["PATH"] == "/bin"
    assert {k: env[k] for k in DEFAULT_ENV if k != "VLLM_CPU_KVCACHE_SPACE"} == \
        {k: v for k, v in DEFAULT_ENV.items() if k != "VLLM_CPU_KVCACHE_SPACE"}
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "2.5"
    assert env["VLLM_CACHE_ROOT"] == str(tmp_path / "vllm")
    # The caller's own variables win; an inherited cache root is kept.
    env = eng.environment(ServeSettings(model="/m", env={"VLLM_CPU_KVCACHE_SPACE": "7"}),
                          {"VLLM_CACHE_ROOT": "/elsewhere"})
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "7" and env["VLLM_CACHE_ROOT"] == "/elsewhere"


def test_vllm_resolves_local_model_directories(tmp_path):
    eng = VLLM()
    assert eng.resolve_model("org/model") == "org/model"  # a hub id passes
    with pytest.raises(TokcheckError, match="does not exist"):
        eng.resolve_model(str(tmp_path / "nope"))
    with pytest.raises(TokcheckError, match="no config.json"):
        eng.resolve_model(str(tmp_path))
    (tmp_path / "config.json").write_text("{}")
    assert eng.resolve_model(str(tmp_path)) == str(tmp_path.resolve())


def test_vllm_probe_without_vllm_is_one_line(tmp_path):
    import sys

    with pytest.raises(TokcheckError, match="no vLLM in the environment of"):
        VLLM().probe(sys.executable, ServeSettings(model="/m"))


def test_serve_section_of_the_run_record_is_unchanged_for_vllm():
    s = ServeSettings(model="/m", max_model_len=2048, served_model_name="t", enforce_eager=True)
    argv = VLLM().argv(s, "/py", 9, Installed("0.32.0", HELP_0_32))
    server = RunningServer(url="http://127.0.0.1:9", engine_report=EngineReport(engine="vllm"),
                           log_path=Path("server.log"), argv=argv, settings=s, startup_s=12.345,
                           process=None, engine=VLLM(), notes=VLLM().serve_notes(s, argv))
    serve = server.serve_conditions()
    assert list(serve) == ["engine", "dtype", "max_model_len", "gpu_memory_utilization",
                           "tensor_parallel_size", "quantization", "quantization_flag",
                           "enforce_eager", "extra_args", "argv", "startup_s"]
    assert serve["engine"] == "vllm" and serve["quantization"] == "none"
    assert serve["argv"] == argv[1:] and serve["startup_s"] == 12.35
    assert set(server.run_conditions()) == {"engine_report", "serve"}


# ---------------------------------------------------------------------------------------------
# Logs: the engine report and failures


def test_a_logs_engine_is_found_and_read_by_its_own_parser():
    text = (LOGS / "start-ok-eager.log").read_text()
    assert registry.engine_for_log(text).name == "vllm"
    rep = registry.read_startup_log(text)
    assert rep.engine == "vllm" and rep.version == "0.32.0" and rep.dtype == "bfloat16"
    sglang = "[2026-11-30 03:00:00] server_args=ServerArgs(model_path='/m', dtype='auto')\n"
    assert registry.engine_for_log(sglang) is None and registry.read_startup_log(sglang) is None


def test_engine_report_is_one_type_with_gguf_fields():
    d = EngineReport(engine="x", file_type="Q4_K - Medium", bits_per_weight=4.85,
                     threads=2, layers_offloaded=0, layers_total=4).to_dict()
    assert d["engine"] == "x" and d["file_type"] == "Q4_K - Medium" and d["threads"] == 2
    old_keys = ["engine", "version", "model", "served_model_name", "architecture", "dtype",
                "quantization", "quantization_config", "kv_cache_dtype", "speculative_config",
                "speculative_decoding", "enable_prefix_caching", "enable_chunked_prefill",
                "enforce_eager", "compilation_mode", "cudagraph_mode", "max_seq_len",
                "tensor_parallel_size", "pipeline_parallel_size", "device", "kv_cache_tokens",
                "kv_cache_memory_gib", "max_concurrency", "max_concurrency_tokens", "seed",
                "non_default_args"]
    assert list(d)[:len(old_keys)] == old_keys  # run.json's engine_report keeps its keys


def test_a_server_log_no_registered_engine_wrote_says_so(tmp_path):
    from tokcheck.machine.weights import conditions_from_server_log

    p = tmp_path / "sglang.log"
    p.write_text("[2026-11-30 03:00:00] server_args=ServerArgs(model_path='/m')\n")
    assert conditions_from_server_log(p)["engine_report"]["engine"] == "sglang"
    p.write_text("just some text\n")
    assert conditions_from_server_log(p)["engine_report"]["engine"] is None


class _Quiet(VLLM):
    name, display_name = "quiet", "Quiet"

    def diagnose_failure(self, log_text, *, model="", port=None):
        return None


def test_start_failure_quotes_the_diagnosis_or_the_last_line():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    assert start_failure(VLLM(), oom, model="/m", port=1, returncode=1).startswith(
        "out of GPU memory at start-up")
    assert start_failure(_Quiet(), "loading\nSegmentation fault\n\n", model="/m", port=1,
                         returncode=-11) == \
        "Quiet exited during start-up (exit code -11): Segmentation fault"
    assert start_failure(_Quiet(), "", model="/m", port=1, returncode=None) == \
        "Quiet exited during start-up: empty log"


# ---------------------------------------------------------------------------------------------
# /metrics names are data of each engine


def test_metric_names_reject_unknown_keys_and_merge_in_order():
    with pytest.raises(ValueError, match="unknown metric keys"):
        MetricNames(counters={"goodput": ("x",)})
    a = MetricNames(counters={"generation_tokens": ("a:gen",)}, gauges={"requests_running": ("a:r",)})
    b = MetricNames(counters={"generation_tokens": ("b:gen", "a:gen"), "prompt_tokens": ("b:p",)})
    m = a.merged(b)
    assert m.counters == {"generation_tokens": ("a:gen", "b:gen"), "prompt_tokens": ("b:p",)}
    assert m.gauges == {"requests_running": ("a:r",)}


def test_scrapes_read_the_engines_names():
    from tokcheck.machine.telemetry import parse_server_metrics

    text = ("# TYPE other:generation_tokens_total counter\nother:generation_tokens_total 7.0\n"
            "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 5.0\n")
    assert parse_server_metrics(text) == {"generation_tokens": 5.0}  # any registered engine
    assert parse_server_metrics(text, registry.metric_names("vllm")) == {"generation_tokens": 5.0}
    other = MetricNames(counters={"generation_tokens": ("other:generation_tokens",)})
    assert parse_server_metrics(text, other) == {"generation_tokens": 7.0}
    assert set(GAUGE_KEYS) == set(registry.metric_names("vllm").gauges)


def test_scraper_with_an_unknown_engine_is_one_line():
    from tokcheck.machine.telemetry import MetricsScraper

    with pytest.raises(TokcheckError, match="unknown engine"):
        MetricsScraper("http://127.0.0.1:1", engine="nope")


def test_engines_module_imports_stay_light():
    """`tokcheck --help` builds every parser, and the engine option lists the registry: the
    registry must import nothing heavy."""
    import sys

    code = ("import sys, tokcheck.engines.registry, tokcheck.engines.lifecycle; "
            "print(sorted(m for m in ('httpx', 'numpy', 'rich', 'pydantic', 'torch') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_serve_refuses_a_setting_the_engine_has_no_flag_for(tmp_path, capsys):
    """Refused before anything is provisioned, probed or written."""
    (tmp_path / "config.json").write_text("{}")
    assert main(["serve", "--model", str(tmp_path), "--threads", "2", "--python", "/nonexistent",
                 "--log-dir", str(tmp_path / "run")]) == 1
    assert capsys.readouterr().err.startswith("Error: vLLM takes no threads setting")
    assert not (tmp_path / "run").exists()
