"""The run record (K2): typed models and the run directory of CONTRACT.md.

A run directory holds ``run.json`` (every condition the client can know), ``requests.jsonl``
(one line per finished request, appended and flushed as each finishes, so Ctrl-C or a crash
loses nothing that completed) and ``summary.json``. Secrets never enter these models: the API
key is not a field anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tokcheck import __version__
from tokcheck.errors import TokcheckError

SCHEMA_VERSION = 1

# Metrics summarised per level, each as a :class:`MetricStat` (CONTRACT.md summary.json).
LEVEL_METRICS = (
    "ttft_ms",
    "tpot_ms",
    "itl_ms",
    "e2e_latency_ms",
    "generation_tok_s",
    "e2e_tok_s",
    "queue_delay_ms",
    "tokens_per_chunk",
    "ttft_from_due_ms",
)


class ErrorInfo(BaseModel):
    kind: str
    detail: str


class RequestRecord(BaseModel):
    """One finished request (a line of ``requests.jsonl``). Times: ``perf_counter_ns``."""

    model_config = ConfigDict(extra="allow")

    level: str
    round: int
    index: int
    warmup: bool
    prompt_index: int
    t_due_ns: int | None
    t_send_ns: int | None
    t_first_ns: int | None
    t_last_ns: int | None
    t_end_ns: int | None
    chunks: list[tuple[int, int]]
    # SSE events in each chunk (parallel to ``chunks``; > 1: they arrived in one read)
    chunk_events: list[int] | None = None
    n_out: int | None = None
    n_out_source: str | None = None
    n_out_usage: int | None
    n_out_tokenizer: int | None
    n_prompt_usage: int | None
    n_first: int | None = None
    text: str
    finish_reason: str | None = None
    http_status: int | None = None
    response_id: str | None = None
    error: ErrorInfo | None
    defects: list[str] = []
    early_stop: bool
    ttft_ms: float | None
    ttft_from_due_ms: float | None = None
    tpot_ms: float | None
    e2e_latency_ms: float | None
    generation_tok_s: float | None
    e2e_tok_s: float | None
    queue_delay_ms: float | None


class MetricStat(BaseModel):
    """One metric over a level: ``median`` is the rounds' trimmed median, ``spread`` the range
    (max − min) of all rounds' medians, ``spread_kept`` that of the kept ones (stats.py)."""

    mean: float
    median: float
    p90: float
    p99: float
    rounds: list[float | None]
    spread: float
    range_all: list[float] | None = None
    spread_kept: float | None = None
    n: int


class LevelSummary(BaseModel):
    model_config = ConfigDict(extra="allow")

    label: str
    concurrency: int | None = None
    request_rate: float | None = None
    rounds: int
    requests_ok: int
    requests_failed: int
    errors: dict[str, int]
    defects: dict[str, int]
    early_stops: int
    usage_mismatches: int
    output_throughput_tok_s: float | None
    output_throughput_tok_s_rounds: list[float | None]
    output_throughput_tok_s_spread: float | None
    request_throughput_rps: float | None
    # coalesced reads (summarize.py): requests whose every token arrived in one read, the
    # share of tokens that arrived in a read of several SSE events, SSE events per read
    tpot_undefined_requests: int = 0
    coalesced_token_share: float | None = None
    sse_events_per_chunk: float | None = None
    ttft_ms: MetricStat | None = None
    ttft_ms_reason: str | None = None
    tpot_ms: MetricStat | None = None
    tpot_ms_reason: str | None = None
    itl_ms: MetricStat | None = None
    itl_ms_reason: str | None = None
    e2e_latency_ms: MetricStat | None = None
    e2e_latency_ms_reason: str | None = None
    generation_tok_s: MetricStat | None = None
    generation_tok_s_reason: str | None = None
    e2e_tok_s: MetricStat | None = None
    e2e_tok_s_reason: str | None = None
    queue_delay_ms: MetricStat | None = None
    queue_delay_ms_reason: str | None = None
    tokens_per_chunk: MetricStat | None = None
    tokens_per_chunk_reason: str | None = None
    ttft_from_due_ms: MetricStat | None = None
    ttft_from_due_ms_reason: str | None = None
    telemetry: dict[str, Any] | None = None


class Summary(BaseModel):
    """``summary.json``: one :class:`LevelSummary` per concurrency level or request rate."""

    model_config = ConfigDict(extra="allow")

    tokcheck_version: str = __version__
    schema_version: int = SCHEMA_VERSION
    run_id: str
    run_dir: str
    interrupted: bool = False
    levels: list[LevelSummary]


class RunDirectory:
    """Writer of one run directory. Creating it refuses a directory that already holds a run
    (nothing is overwritten)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if (self.path / "requests.jsonl").exists() or (self.path / "run.json").exists():
            raise TokcheckError(f"{self.path} already holds a run — choose another --out")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise TokcheckError(f"cannot create run directory {self.path}: {err.strerror}") from None
        self.requests_path = self.path / "requests.jsonl"
        self.requests_path.touch()
        self._requests = None

    def write_run(self, run: dict[str, Any]) -> None:
        _write_json(self.path / "run.json", run)

    def append_request(self, rec: RequestRecord) -> None:
        """Append one record and flush (bench itself writes through its measurement worker)."""
        if self._requests is None:
            self._requests = open(self.requests_path, "a", encoding="utf-8")  # noqa: SIM115
        self._requests.write(rec.model_dump_json() + "\n")
        self._requests.flush()

    def write_summary(self, summary: Summary) -> None:
        _write_json(self.path / "summary.json", summary.model_dump(mode="json"))

    def close(self) -> None:
        if self._requests is not None:
            self._requests.close()


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_requests(run_dir: str | Path) -> list[RequestRecord]:
    """Every request of a run directory, in the order they finished."""
    path = Path(run_dir) / "requests.jsonl"
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(RequestRecord.model_validate_json(line))
    return out
