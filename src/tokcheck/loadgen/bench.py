"""measure an OpenAI-compatible server by streaming (``tokcheck bench``).

:func:`run_bench` is the library entry point (docs/run-directory.md): it checks the server, builds
exact-length prompts, runs every level (closed loop at each concurrency, or open loop at each
Poisson request rate) with warm-up and rounds, and writes the run directory as it goes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import platform
import socket
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

from tokcheck import __version__
from tokcheck.errors import TokcheckError
from tokcheck.loadgen import openai as oai
from tokcheck.loadgen.client_health import ClientMonitor, client_health
from tokcheck.loadgen.measure import STALL_AFTERGLOW_NS, RequestMeta, usage_mismatch_threshold
from tokcheck.loadgen.measure_worker import MeasureWorker
from tokcheck.loadgen.ceiling import load_ceiling
from tokcheck.loadgen.prompts import make_prompts, prompts_sha256
from tokcheck.loadgen.recorder import ConnectionPool, Exchange, Target, build_request, connect_detail
from tokcheck.loadgen.runner import Planned, run_closed, run_open
from tokcheck.record.level import Level
from tokcheck.record.schema import (SCHEMA_VERSION, ClientCeiling, RequestRecord, RunConditions, Summary,
                                    Telemetry)
from tokcheck.record.store import RunDirectory, read_requests
from tokcheck.record.summarize import summarize_level
from tokcheck.loadgen.tokens import TokenizerInfo, load_tokenizer


class BenchConfig(BaseModel):
    """What to measure and how. ``api_key`` is sent as a bearer token and never written."""

    url: str
    model: str
    tokenizer: str
    api: Literal["completions", "chat"] = "completions"
    input_len: int = Field(1000, ge=1)
    output_len: int = Field(1000, ge=1)
    concurrency: list[int] = Field(default_factory=lambda: [1])
    request_rate: list[float] | None = None
    rounds: int = Field(5, ge=1)
    warmup: int = Field(1, ge=0)
    requests_per_round: int | None = Field(None, ge=1)
    max_in_flight: int | None = Field(None, ge=1)
    out: str | None = None
    api_key: SecretStr | None = Field(None, exclude=True)
    timeout_s: float = Field(600.0, gt=0)
    temperature: float = 0.0
    seed: int = 0
    include_usage: bool = True
    slo: str | None = Field(None, description="SLO to judge each level by (core/slo.py): goodput and a verdict")
    # JSON fields every request carries beyond the OpenAI ones (an engine's own needs, e.g.
    # llama.cpp's repeat_penalty and logit_bias: Engine.request_fields); kept in run.json.
    extra_body: dict[str, Any] = Field(default_factory=dict)
    connections: Literal["reuse", "new"] = "reuse"
    use_client_ceiling: bool = Field(True, exclude=True)  # False: ignore the stored probe ceiling (the probe itself)

    @field_validator("concurrency")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if not v or any(c < 1 for c in v):
            raise ValueError("concurrency levels must be ≥ 1")
        return v

    @field_validator("request_rate")
    @classmethod
    def _rates(cls, v: list[float] | None) -> list[float] | None:
        if v is not None and (not v or any(r <= 0 for r in v)):
            raise ValueError("request rates must be > 0")
        return v

    @property
    def mode(self) -> str:
        return "open" if self.request_rate else "closed"

    def levels(self) -> list[Level]:
        """The levels in run order: one per request rate (open loop, each with
        ``max_in_flight``), else one per concurrency."""
        if self.request_rate:
            return [Level.open(r, self.max_in_flight) for r in self.request_rate]
        return [Level.closed(c) for c in self.concurrency]

    def per_round(self, level: Level) -> int:
        """Requests per round: given, or 2 × concurrency (≥ 4) closed, 20 s of arrivals open."""
        if self.requests_per_round:
            return self.requests_per_round
        if level.request_rate:
            return max(10, round(level.request_rate * 20))
        return max(4, 2 * (level.concurrency or 1))


# progress(level label, looked ok, requests planned in the level, warm-up): called on the event
# loop as each request finishes, before it is measured ("looked ok": HTTP 200 and no transport
# error; "planned" counts the level's warm-up requests too, which no summary counts).
Progress = Callable[[str, bool, int, bool], None]


def _new_loop_runner() -> asyncio.Runner:
    try:
        import uvloop  # optional ("fast" extra): lower per-read overhead on the hot path

        return asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:  # pragma: no cover - uvloop is in the default test install
        return asyncio.Runner()


def _connect_failure(config: BenchConfig, err: Exception) -> str:
    """Why the server could not be reached, in words ("nothing is listening on HOST:PORT")."""
    target = Target.from_url(config.url)
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, OSError):
            return connect_detail(target, cause)
        cause = cause.__cause__ or cause.__context__
    import httpx

    if isinstance(err, httpx.TimeoutException):
        return f"no answer from {target.host}:{target.port} within 10 s"
    return str(err) or "the connection failed"


def _server_info(config: BenchConfig) -> dict[str, Any]:
    """The server's ``/version`` and ``/v1/models`` answers (None when absent), and the
    ``max_model_len`` ``/v1/models`` states for the model (vLLM does; None otherwise).

    Raises:
        TokcheckError: the server cannot be reached at all.
    """
    import httpx

    headers = {}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
    base = config.url.rstrip("/")
    if base.endswith("/v1"):
        base = base[:-3]
    info: dict[str, Any] = {"version": None, "models": None}
    with httpx.Client(timeout=10.0, trust_env=False, headers=headers) as client:
        try:
            r = client.get(f"{base}/v1/models")
        except httpx.HTTPError as err:
            raise TokcheckError(f"cannot reach the server at {config.url}: {_connect_failure(config, err)}") from None
        if r.status_code == 200:
            try:
                data = [m for m in r.json().get("data", []) if isinstance(m, dict)]
                info["models"] = [m.get("id") for m in data]
                mine = next((m for m in data if m.get("id") == config.model), data[0] if len(data) == 1 else None)
                mml = mine.get("max_model_len") if mine else None
                if isinstance(mml, int) and mml > 0:
                    info["max_model_len"] = mml
            except (ValueError, AttributeError):
                pass
        try:
            r = client.get(f"{base}/version")
            if r.status_code == 200:
                info["version"] = r.json().get("version")
        except (httpx.HTTPError, ValueError, AttributeError):
            pass
    return info


def check_lengths(config: BenchConfig, server: dict[str, Any]) -> None:
    """Refuse a workload longer than the server's context before any request is sent.

    Raises:
        TokcheckError: ``input_len + output_len`` exceeds the ``max_model_len`` that
            ``/v1/models`` states for the model.
    """
    mml = server.get("max_model_len")
    if mml and config.input_len + config.output_len > mml:
        raise TokcheckError(
            f"--input-len {config.input_len} + --output-len {config.output_len} = "
            f"{config.input_len + config.output_len} tokens is more than the server's max_model_len {mml} "
            f"for {config.model} (/v1/models): shorten them or serve with a larger --max-model-len")


def _server_tokenize(config: BenchConfig, prompt: str) -> int | None:
    """Prompt token count from the server's ``/tokenize`` (vLLM), or None when absent."""
    import httpx

    base = config.url.rstrip("/")
    if base.endswith("/v1"):
        base = base[:-3]
    headers = {}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
    try:
        r = httpx.post(
            f"{base}/tokenize",
            json={"model": config.model, "prompt": prompt, "add_special_tokens": False},
            timeout=10.0,
            trust_env=False,
            headers=headers,
        )
        if r.status_code == 200:
            count = r.json().get("count")
            return int(count) if count is not None else None
    except (httpx.HTTPError, ValueError, TypeError, AttributeError):
        pass
    return None


def _probe(runner: asyncio.Runner, config: BenchConfig, target: Target, pool: ConnectionPool,
           prompt: str) -> dict[str, Any]:
    """One short request to learn what the server accepts: the output-forcing parameters and
    ``stream_options``; also checks the prompt length against ``usage.prompt_tokens``.

    Raises:
        TokcheckError: the server rejects even a plain streaming request.
    """
    key = config.api_key.get_secret_value() if config.api_key else None
    path = oai.PATHS[config.api]
    n = min(config.output_len, 4)
    attempts = [(oai.FORCING_FULL, config.include_usage), (oai.FORCING_MAX_ONLY, config.include_usage)]
    if config.include_usage:
        attempts.append((oai.FORCING_MAX_ONLY, False))
    rejected: list[str] = []
    for forcing, usage in attempts:
        body = oai.request_body(config.api, config.model, prompt, n, forcing=forcing, include_usage=usage,
                                temperature=config.temperature, extra=config.extra_body)
        ex: Exchange = runner.run(pool.exchange(build_request(target, path, body, key, keep_alive=pool.reuse),
                                                min(config.timeout_s, 120)))
        res = oai.read_stream(ex, config.api, usage_requested=usage)
        if res.error and res.error[0].startswith("http_4"):
            rejected.append(f"{forcing}{' + include_usage' if usage else ''}: {res.error[1]}")
            continue
        if res.error:
            raise TokcheckError(f"the server failed a probe request ({res.error[0]}): {res.error[1]}")
        prompt_usage = (res.usage or {}).get("prompt_tokens")
        return {
            "output_forcing": forcing,
            "include_usage": usage,
            "rejected": rejected,
            "prompt_tokens_usage": prompt_usage,
        }
    raise TokcheckError(f"the server rejected every request form: {rejected[-1] if rejected else '?'}")


def _conditions(config: BenchConfig, tok: TokenizerInfo, server: dict, probe: dict, prompts: list[str],
                tokenize_count: int | None, levels: list[Level], event_loop: str,
                ceiling: ClientCeiling | None) -> dict[str, Any]:
    """run.json: every condition the client can know (``docs/run-directory.md``; never the API key)."""
    clock = {"perf_counter_ns_at_start": time.perf_counter_ns(), "unix_ns_at_start": time.time_ns()}
    return {
        "tokcheck_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "run_id": uuid.uuid4().hex[:12],
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "clock": clock,
        "endpoint": {"url": config.url, "api": config.api, "model": config.model},
        "server": server if (server["version"] or server["models"]) else None,
        "tokenizer": tok.identity(),
        "workload": {
            "input_len": config.input_len,
            "output_len": config.output_len,
            "prompts_sha256": prompts_sha256(prompts),
            "prompts": len(prompts),
            "output_forcing": probe["output_forcing"],
            "output_forcing_rejected": probe["rejected"],
            "temperature": config.temperature,
            "seed": config.seed,
            "extra_body": config.extra_body or None,
            "prompt_tokens_check": {
                "tokenizer": config.input_len,
                "server_usage": probe["prompt_tokens_usage"],
                "server_tokenize": tokenize_count,
            },
        },
        "load": {
            "mode": config.mode,
            "concurrency": config.concurrency if config.mode == "closed" else None,
            "max_in_flight": config.max_in_flight if config.mode == "open" else None,
            "request_rate": config.request_rate,
            "rounds": config.rounds,
            "warmup": config.warmup,
            "requests_per_round": [config.per_round(lv) for lv in levels],
        },
        "stream_options": {"include_usage": True} if probe["include_usage"] else None,
        "timeout_s": config.timeout_s,
        "client": {
            "host": socket.gethostname(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "http": "tokcheck raw asyncio HTTP/1.1, "
                    + ("keep-alive connections reused" if config.connections == "reuse"
                       else "one connection per request"),
            "connections": config.connections,
            "event_loop": event_loop,
            "pid": os.getpid(),
            **({"ceiling": ceiling.model_dump(mode="json")} if ceiling is not None else {}),
        },
    }


def _call_hooks(hooks: list, name: str, *args) -> dict[str, Any]:
    """Call ``name`` on every hook that has it; merge the dicts they return."""
    merged: dict[str, Any] = {}
    for h in hooks:
        method = getattr(h, name, None)
        if method is not None:
            got = method(*args)
            if isinstance(got, dict):
                merged.update(got)
    return merged


def _default_out(config: BenchConfig) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in config.model)[:60]
    return Path("runs") / f"{safe}-{stamp}"


@dataclass
class Prepared:
    """What every bench run settles before its first request (one process or many): the SLO,
    the tokenizer, the target, the levels and their request count, the server's facts, the
    prompts (one spare for the probe request), the server's own prompt count, the client
    ceiling, and whether the server is on this machine."""

    slo: Any
    tok: Any
    target: Target
    levels: list
    total: int
    server: Any
    prompts: list
    tokenize_count: Any
    ceiling: Any
    loopback: bool


def prepare(config: BenchConfig) -> Prepared:
    """Settle what a run needs before its first request (:class:`Prepared`).

    Raises:
        TokcheckError: a bad SLO, tokenizer or URL; an unreachable server; lengths beyond the
            server's max_model_len.
    """
    slo = None
    if config.slo:
        from tokcheck.core.slo import parse_slo

        slo = parse_slo(config.slo)
    tok = load_tokenizer(config.tokenizer)
    target = Target.from_url(config.url)
    levels = config.levels()
    total = sum(config.warmup + config.rounds * config.per_round(lv) for lv in levels)
    server = _server_info(config)
    check_lengths(config, server)
    prompts = make_prompts(tok, config.input_len, total + 1, seed=config.seed)
    tokenize_count = _server_tokenize(config, prompts[0])
    ceiling = load_ceiling() if config.use_client_ceiling else None
    loopback = target.host in ("localhost", "::1") or target.host.startswith("127.")
    return Prepared(slo, tok, target, levels, total, server, prompts, tokenize_count, ceiling, loopback)


def run_bench(
    config: BenchConfig,
    *,
    conditions_extra: dict | None = None,
    hooks: list | None = None,
    progress: Progress | None = None,
) -> Summary:
    """Run the benchmark described by ``config`` and write its run directory.

    Args:
        config: what to measure.
        conditions_extra: merged into run.json (e.g. ``engine_report``, ``environment``).
        hooks: objects with any of ``on_run_start(run_dir)``, ``before_level(label)``,
            ``after_level(label) -> dict|None`` (stored as the level's ``telemetry``),
            ``on_run_end() -> dict|None`` (stored as run.json ``telemetry``); called between
            levels, never while requests stream.
        progress: called on the event loop after each finished request (keep it cheap).

    Requests are measured in a worker process started with multiprocessing ``spawn``: a script
    that calls this function needs an ``if __name__ == "__main__":`` guard. While levels run,
    the GIL switch interval is lowered to 0.5 ms (threads of hooks cannot hold the event loop
    off for longer) and restored afterwards.

    Returns:
        The :class:`~tokcheck.record.schema.Summary` (also written as ``summary.json``).

    Raises:
        TokcheckError: bad tokenizer or URL, unreachable server, a server that rejects every
            request form, or an output directory that already holds a run.
    """
    hooks = list(hooks or [])
    prep = prepare(config)
    slo, tok, target, levels = prep.slo, prep.tok, prep.target, prep.levels
    server, prompts, tokenize_count, ceiling = prep.server, prep.prompts, prep.tokenize_count, prep.ceiling
    floor_ms = ceiling.ttft_floor_ms if ceiling is not None else None
    loopback = prep.loopback

    runner = _new_loop_runner()
    pool = ConnectionPool(target, reuse=config.connections == "reuse")
    try:
        probe = _probe(runner, config, target, pool, prompts[-1])
        run_dir = RunDirectory(config.out or _default_out(config))
        run = RunConditions.model_validate({
            **_conditions(config, tok, server, probe, prompts, tokenize_count, levels,
                          type(runner.get_loop()).__module__, ceiling),
            **(conditions_extra or {})})
        if slo is not None:
            run.slo = {"spec": slo.spec, "text": slo.text, "source": slo.source}
        summary = Summary(run_id=run.run_id, run_dir=str(run_dir.path), levels=[])
        worker: MeasureWorker | None = None
        monitor: ClientMonitor | None = None
        key = config.api_key.get_secret_value() if config.api_key else None
        next_prompt = 0

        def plan(round_no: int, count: int, warm: bool, start_index: int) -> list[Planned]:
            nonlocal next_prompt
            out = []
            for i in range(count):
                pi = next_prompt
                next_prompt += 1
                body = oai.request_body(
                    config.api, config.model, prompts[pi], config.output_len,
                    forcing=probe["output_forcing"], include_usage=probe["include_usage"],
                    temperature=config.temperature, extra=config.extra_body,
                )
                out.append(Planned(round_no, start_index + i, warm, pi,
                                   build_request(target, oai.PATHS[config.api], body, key, keep_alive=pool.reuse)))
            return out

        def level_records(label: str) -> list[RequestRecord]:
            worker.sync()
            return [r for r in read_requests(run_dir.path) if r.level == label]

        def finish_level(label: str, lv: Level, raw: dict | None):
            records = level_records(label)
            level_summary = summarize_level(records, lv, slo, input_len=config.input_len, output_len=config.output_len)
            health = client_health(raw, records, level_summary, ceiling.tok_s if ceiling is not None else None)
            level_summary.client = health
            if health.bound:
                level_summary.warnings.append("the client, not the server, limited these numbers: "
                                              + "; ".join(health.reasons))
            return level_summary

        label, lv = None, None
        # Hook threads in this process only fetch while requests stream (the /metrics scraper
        # keeps the raw text and parses it after the level: ~1 ms of Python per scrape, well under
        # the GIL's 5 ms switch interval), so the switch interval is left as it is
        # (benchmarks/README.md, "Threads of hooks").
        try:  # from here on a Ctrl-C leaves summary.json (interrupted) beside run.json
            # (run.json is written inside: a Ctrl-C the moment it appears, before this block was
            # entered, once left it without summary.json)
            run_dir.write_run(run)
            worker = MeasureWorker(run_dir.requests_path, config.tokenizer)
            monitor = ClientMonitor(other_pids=[worker.pid] if worker.pid else [])
            _call_hooks(hooks, "on_run_start", run_dir.path)
            for lv in levels:
                label = lv.label
                _call_hooks(hooks, "before_level", label)
                n_round = config.per_round(lv)
                planned_total = config.warmup + config.rounds * n_round
                monitor.begin_level()

                def on_exchange(p: Planned, t_due: int | None, ex: Exchange, _label=label,
                                _total=planned_total, _open=lv.is_open) -> None:
                    # The hot path: hand over, never parse here.
                    t0 = ex.t_send_ns if ex.t_send_ns is not None else t_due
                    stalls = monitor.stalls_around(t0 - STALL_AFTERGLOW_NS if t0 is not None else None)
                    worker.submit(RequestMeta(_label, p.round, p.index, p.warmup, p.prompt_index, t_due,
                                              config.input_len, config.output_len, config.api,
                                              probe["include_usage"], _open, stalls, floor_ms, loopback), ex)
                    if progress is not None:
                        looks_ok = ex.error is None and bool(ex.reads) and ex.reads[0][1][9:12] == b"200"
                        progress(_label, looks_ok, _total, p.warmup)

                index = 0
                if config.warmup:
                    batch = plan(0, config.warmup, True, index)
                    index += len(batch)
                    warm_c = lv.concurrency or lv.max_in_flight or config.warmup
                    runner.run(monitor.watch(run_closed(target, batch, warm_c, config.timeout_s, on_exchange,
                                                        pool=pool)))
                for r in range(1, config.rounds + 1):
                    batch = plan(r, n_round, False, index)
                    index += len(batch)
                    if lv.request_rate:
                        runner.run(monitor.watch(run_open(target, batch, lv.request_rate, config.timeout_s,
                                                          on_exchange, max_in_flight=lv.max_in_flight,
                                                          seed=config.seed + r, pool=pool)))
                    else:
                        runner.run(monitor.watch(run_closed(target, batch, lv.concurrency, config.timeout_s,
                                                            on_exchange, pool=pool)))
                raw = monitor.end_level()
                level_summary = finish_level(label, lv, raw)
                tele = _call_hooks(hooks, "after_level", label)
                level_summary.telemetry = Telemetry.model_validate(tele) if tele else None
                summary.levels.append(level_summary)
                run_dir.write_summary(summary)
        except KeyboardInterrupt:
            # Every request that finished is written by the worker before it stops.
            if worker is not None:
                worker.close()
            save_interrupted(run_dir, run, summary, label, lv, slo, config)
            raise
        finally:
            if worker is not None:
                worker.close()
            if monitor is not None:
                monitor.close()
            run_dir.close()
        if worker.errors:
            run.measurement_errors = worker.errors[:20]
        return finish_run(run_dir, run, summary, config, hooks)
    finally:
        pool.close()
        runner.close()


def save_interrupted(run_dir, run: RunConditions, summary: Summary, label: str | None, lv, slo,
                     config: BenchConfig) -> None:
    """Ctrl-C: the level under way is summarized from the requests already on disk, and the
    summary and run.json are written marked ``interrupted`` (nothing completed is lost)."""
    summary.interrupted = True
    if label is not None and (not summary.levels or summary.levels[-1].label != label):
        partial = [r for r in read_requests(run_dir.path) if r.level == label]
        if partial:
            summary.levels.append(summarize_level(partial, lv, slo, input_len=config.input_len,
                                                  output_len=config.output_len))
    run_dir.write_summary(summary)
    run.interrupted = True
    run_dir.write_run(run)


def finish_run(run_dir, run: RunConditions, summary: Summary, config: BenchConfig, hooks) -> Summary:
    """The end of a run: the output-length forcing judged from the records, the telemetry
    hooks' run-end figures, the finish time; run.json and summary.json written last."""
    _judge_forcing(run, read_requests(run_dir.path), config)
    tele_run = _call_hooks(hooks, "on_run_end")
    if tele_run:
        run.telemetry = tele_run
    run.finished_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    run_dir.write_run(run)
    run_dir.write_summary(summary)
    return summary


def _judge_forcing(run: RunConditions, records: list[RequestRecord], config: BenchConfig) -> None:
    """run.json ``workload.output_forcing_held`` and ``output_tokens_delivered``: judged by the
    output that arrived on the successful measured requests, not by the parameters sent."""
    outs = [r.n_out for r in records if not r.warmup and r.error is None and r.n_out is not None]
    if run.workload is None or not outs:
        return
    tol = usage_mismatch_threshold(config.output_len)
    run.workload.output_forcing_held = all(abs(n - config.output_len) <= tol for n in outs)
    run.workload.output_tokens_delivered = {"mean": sum(outs) / len(outs), "min": min(outs), "max": max(outs)}


def summary_json(summary: Summary) -> str:
    """The summary as JSON text (what ``--json`` prints)."""
    return json.dumps(summary.model_dump(mode="json"), indent=2)
