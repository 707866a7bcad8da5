"""The edge that `sweep` and `reproduce` share: start an engine on a model directory, and bench
it with every condition the record should carry — the engine report and ``serve``
section from the server, the precision audit of the weights, the machine's environment — and
the telemetry hooks (NVML sampler, the server's ``/metrics``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokcheck.engines.lifecycle import RunningServer


@contextlib.contextmanager
def serve_model(model: str | Path, *, engine: str = "vllm", python: str | None = None,
                dtype: str = "bfloat16", max_model_len: int | None = None,
                gpu_memory_utilization: float | None = None, tensor_parallel_size: int | None = None,
                enforce_eager: bool = False, served_model_name: str | None = None,
                extra_args: list[str] | None = None, log_dir: str | Path | None = None,
                progress: Callable[[str], None] | None = None) -> Iterator[RunningServer]:
    """A running server (:func:`tokcheck.engines.lifecycle.serve`) of ``engine`` (a registered
    name or alias) for ``model``; stopped on exit.

    Raises:
        TokcheckError: the engine is unknown or fails to start (with the reason from its log).
    """
    from tokcheck.engines.base import ServeSettings
    from tokcheck.engines.lifecycle import serve

    settings = ServeSettings(
        model=str(model), engine=engine, python=python, dtype=dtype, max_model_len=max_model_len,
        gpu_memory_utilization=gpu_memory_utilization, tensor_parallel_size=tensor_parallel_size,
        enforce_eager=enforce_eager, served_model_name=served_model_name,
        extra_args=list(extra_args or []), log_dir=str(log_dir) if log_dir is not None else None)
    with serve(settings, progress=progress) as server:
        yield server


def served_name(server: RunningServer) -> str:
    """The model name the server answers to: ``--served-model-name`` or the model path."""
    return server.settings.served_model_name or str(server.settings.model)


def run_conditions(server: RunningServer) -> dict:
    """What a run record (``run.json``) carries about a server tokcheck started: the server's
    own ``engine_report`` and ``serve`` sections, and ``precision_report`` — the model
    directory's weights audit combined with what the start-up log states (the log alone for a
    hub id or a directory the audit cannot read). Pass it to ``run_bench(conditions_extra=…)``."""
    from tokcheck.errors import TokcheckError
    from tokcheck.machine.weights import audit_model_dir, audit_server_log, combine

    out = dict(server.run_conditions())
    log_report = audit_server_log(Path(server.log_path).read_text(errors="replace"), str(server.log_path))
    try:
        precision = combine(audit_model_dir(server.settings.model), log_report)
    except TokcheckError:
        precision = log_report
    out["precision_report"] = precision.to_dict()
    return out


def telemetry_hooks(url: str, engine: str | None = None) -> list[Any]:
    """The bench hooks of `doctor`'s telemetry: the server's ``/metrics`` scraper (reading
    ``engine``'s metric names; None: any registered engine's), and the NVML sampler for a local
    server (it says so when there is no GPU)."""
    from tokcheck.machine.telemetry import bench_hooks

    return bench_hooks(url, engine=engine)


def bench_served(server: RunningServer, run_dir: str | Path, *, model_dir: str | Path, input_len: int,
                 output_len: int, concurrency: list[int], rounds: int,
                 requests_per_round: int | None = None, warmup: int = 1,
                 environment: dict | None = None, hooks: list | None = None) -> Any:
    """Bench a server started by :func:`serve_model` into ``run_dir``, recording what the
    server knows of itself (engine report, ``serve`` section, the precision audit of the model
    directory combined with the log) and the machine's environment. Returns bench's Summary."""
    from tokcheck.loadgen.bench import BenchConfig, run_bench

    if environment is None:
        from tokcheck.machine.doctor import environment_report

        environment = environment_report()
    extra = run_conditions(server)
    extra["environment"] = environment
    run_dir = Path(run_dir)
    if hooks is None:
        hooks = telemetry_hooks(server.url, server.engine.name)
        if Path(server.log_path).resolve() != (run_dir / "server.log").resolve():
            hooks.append(server.log_hook())
    cfg = BenchConfig(url=server.url, model=served_name(server), tokenizer=str(model_dir),
                      input_len=input_len, output_len=output_len, concurrency=list(concurrency),
                      rounds=rounds, warmup=warmup, requests_per_round=requests_per_round,
                      out=str(run_dir), extra_body=dict(server.request_fields))
    return run_bench(cfg, conditions_extra=extra, hooks=hooks)
