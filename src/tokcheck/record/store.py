"""The run directory on disk (``docs/run-directory.md``): the one writer and the one reader.

Writing: :class:`RunDirectory` (``run.json``, ``summary.json``), :class:`RequestLog` (appends
``requests.jsonl`` one flushed line per request; bench's measurement worker holds one) and
:func:`write_gpu_samples` (``gpu_samples.jsonl``, the GPU sampler's).

Reading: :func:`load_run` returns a :class:`Run` of typed objects
(:mod:`tokcheck.record.schema`); :func:`read_requests` reads ``requests.jsonl`` alone. Every
JSONL file is read by :func:`read_jsonl`, the one place that forgives a torn last line (a
process that died mid-write) and refuses any other broken line.

Older run directories are migrated here, on read, and nowhere else:

- schema 1 summaries stored an open-loop level's cap on requests in flight under
  ``concurrency``: it moves to ``max_in_flight`` and ``concurrency`` becomes null;
- a per-round metric written as an object (``{"median", "spread", "rounds"}``) is flattened
  to ``<name>``, ``<name>_spread``, ``<name>_rounds``;
- a level with neither ``concurrency`` nor ``request_rate`` takes them from its label;
- a request whose ``level`` names the level by its concurrency or rate (``"4"``) is given the
  level's label.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tokcheck.core import metric_table
from tokcheck.errors import TokcheckError
from tokcheck.record.level import Level
from tokcheck.record.schema import (GpuSample, LevelSummary, RequestRecord, RunConditions,
                                    Summary)

REQUESTS_FILE = "requests.jsonl"
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
SERVER_LOG_FILE = "server.log"
GPU_SAMPLES_FILE = "gpu_samples.jsonl"
RECEIPT_FILE = "receipt.json"


# --------------------------------------------------------------------------- writing


def _write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (a reader never sees half a file)."""
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


class RequestLog:
    """Appends :class:`RequestRecord` lines to a ``requests.jsonl`` and flushes each at once,
    so a crash or Ctrl-C loses nothing that completed."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()

    def append(self, rec: RequestRecord) -> None:
        self._fh.write(rec.model_dump_json() + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> RequestLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunDirectory:
    """Writer of one run directory. Creating it refuses a directory that already holds a run
    (nothing is overwritten).

    Raises:
        TokcheckError: the directory holds a run, or cannot be created.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if (self.path / REQUESTS_FILE).exists() or (self.path / RUN_FILE).exists():
            raise TokcheckError(f"{self.path} already holds a run — choose another --out")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise TokcheckError(f"cannot create run directory {self.path}: {err.strerror}") from None
        self.requests_path = self.path / REQUESTS_FILE
        self.requests_path.touch()
        self._requests: RequestLog | None = None

    def write_run(self, conditions: RunConditions) -> None:
        """Write ``run.json`` (again, as conditions are added)."""
        _write_json(self.path / RUN_FILE, conditions.model_dump(mode="json"))

    def append_request(self, rec: RequestRecord) -> None:
        """Append one record and flush (bench itself writes through its measurement worker,
        which holds its own :class:`RequestLog`)."""
        if self._requests is None:
            self._requests = RequestLog(self.requests_path)
        self._requests.append(rec)

    def write_summary(self, summary: Summary) -> None:
        _write_json(self.path / SUMMARY_FILE, summary.model_dump(mode="json"))

    def close(self) -> None:
        if self._requests is not None:
            self._requests.close()


def write_receipt(run_dir: str | Path, receipt: dict[str, Any]) -> Path:
    """Write ``receipt.json`` (``tokcheck receipt``, :mod:`tokcheck.record.receipt`) in
    ``run_dir``, atomically; returns its path."""
    path = Path(run_dir) / RECEIPT_FILE
    _write_json(path, receipt)
    return path


def write_gpu_samples(run_dir: str | Path, samples: Iterable[GpuSample]) -> str:
    """Write ``gpu_samples.jsonl`` in ``run_dir``, one sample a line; returns the file's name
    (for run.json ``telemetry.gpu.samples_file``)."""
    path = Path(run_dir) / GPU_SAMPLES_FILE
    with path.open("w", encoding="utf-8") as fh:
        for s in samples:
            fh.write(json.dumps(asdict(s)) + "\n")
    return path.name


# --------------------------------------------------------------------------- reading


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each line of a JSONL file; ``[]`` when it is absent.

    A last line that does not parse is a torn write (the writer died mid-line) and is
    skipped; bench appends and flushes whole lines, so nothing before it can be torn.

    Raises:
        TokcheckError: any other line is not a JSON object.
    """
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    filled = [i for i, line in enumerate(lines) if line.strip()]
    last = filled[-1] if filled else -1
    out: list[tuple[int, dict[str, Any]]] = []
    for i in filled:
        try:
            obj = json.loads(lines[i])
        except json.JSONDecodeError as err:
            if i == last:
                break
            raise TokcheckError(f"{path}, line {i + 1}: not JSON ({err.msg})") from None
        if not isinstance(obj, dict):
            raise TokcheckError(f"{path}, line {i + 1}: not a JSON object")
        out.append((i + 1, obj))
    return out


def _one_line(err: ValidationError) -> str:
    e = err.errors()[0]
    where = ".".join(str(x) for x in e["loc"]) or "value"
    return f"{where}: {e['msg']}"


def _validate(model: type[BaseModel], data: Any, where: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise TokcheckError(f"{where} is not a tokcheck record ({_one_line(err)})") from None


def read_requests(run_dir: str | Path) -> list[RequestRecord]:
    """Every request of a run directory's ``requests.jsonl``, in the order they finished.

    Raises:
        TokcheckError: a line (other than a torn last one) is not a request record.
    """
    path = Path(run_dir) / REQUESTS_FILE
    return [_validate(RequestRecord, obj, f"{path}, line {n}") for n, obj in read_jsonl(path)]


def read_gpu_samples(path: Path) -> list[GpuSample]:
    """The samples of a ``gpu_samples.jsonl`` (``[]`` when absent).

    Raises:
        TokcheckError: a line (other than a torn last one) is not a GPU sample.
    """
    out = []
    for n, obj in read_jsonl(path):
        try:
            out.append(GpuSample.from_dict(obj))
        except TypeError:
            raise TokcheckError(f"{path}, line {n}: not a GPU sample (t_ns and index are required)") from None
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise TokcheckError(f"{path} is not valid JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(data, dict):
        raise TokcheckError(f"{path} does not hold a JSON object")
    return data


def _migrate_level(raw: dict[str, Any]) -> dict[str, Any]:
    """A summary level of any earlier version in the current shape (see the module doc)."""
    lv = dict(raw)
    if lv.get("request_rate") is not None and "max_in_flight" not in lv:
        # schema 1: the open loop's cap was stored under "concurrency"
        lv["max_in_flight"], lv["concurrency"] = lv.get("concurrency"), None
    if lv.get("concurrency") is None and lv.get("request_rate") is None:
        level = Level.from_label(str(lv.get("label", "")), lv.get("max_in_flight"))
        if level is not None:
            lv.update(level.model_dump())
    for m in metric_table.METRICS:
        v = lv.get(m.name)
        if m.kind == "round" and isinstance(v, dict):
            lv[m.name] = v.get("median")
            lv.setdefault(f"{m.name}_spread", v.get("spread"))
            lv.setdefault(f"{m.name}_rounds", v.get("rounds") or [])
    return lv


def _migrate_summary(raw: dict[str, Any]) -> dict[str, Any]:
    out = dict(raw)
    out["levels"] = [_migrate_level(lv) for lv in raw.get("levels") or [] if isinstance(lv, dict)]
    return out


@dataclass(frozen=True)
class Run:
    """One run directory, read and typed.

    Attributes:
        path: the directory.
        conditions: ``run.json``.
        summary: ``summary.json``; ``None`` when absent (a run stopped before its first level ended).
        requests: ``requests.jsonl`` in file order (the order requests finished).
        server_log: ``server.log``'s text, or ``None``.
        gpu_samples: ``gpu_samples.jsonl`` (named in run.json ``telemetry.gpu.samples_file``),
            ``[]`` when absent.
        label: the name :func:`load_runs` gives when directory names clash (``a/run``, ``b/run``).
    """

    path: Path
    conditions: RunConditions
    summary: Summary | None
    requests: list[RequestRecord] = field(default_factory=list)
    server_log: str | None = None
    gpu_samples: list[GpuSample] = field(default_factory=list)
    label: str | None = None
    _by_label: dict[str, Level] = field(default_factory=dict, repr=False, compare=False)

    @property
    def name(self) -> str:
        """The run's label in plots, tables, Markdown and CSV: the directory's name
        (``mml-2048``, ``bf16``), what a person chose and reads, or with the parent directory
        when several runs share it (``a/run``); the random ``run_id`` stays in the conditions
        table."""
        return self.label or self.path.resolve().name or str(self.conditions.run_id)

    @property
    def levels(self) -> list[LevelSummary]:  # type: ignore[valid-type]
        """The summary's levels in run order (``[]`` without a summary)."""
        return list(self.summary.levels) if self.summary is not None else []

    def measured_requests(self) -> list[RequestRecord]:
        """Requests of the measured window (warm-up excluded)."""
        return [r for r in self.requests if not r.warmup]

    def level_of(self, request: RequestRecord) -> Level | None:
        """The level a request belongs to, or ``None`` when the record does not say."""
        return self._by_label.get(request.level)

    def level_summary(self, level: Level) -> LevelSummary | None:  # type: ignore[valid-type]
        """The summary of ``level``, or ``None`` when the run has none for it."""
        return next((lv for lv in self.levels if lv.level == level), None)

    def requests_at(self, level: Level | None, *, measured: bool = True) -> list[RequestRecord]:
        """The requests of ``level`` (every level's for ``None``), warm-up excluded unless
        ``measured`` is false."""
        reqs = self.measured_requests() if measured else list(self.requests)
        if level is None:
            return reqs
        return [r for r in reqs if self.level_of(r) == level]


def _levels_by_label(summary: Summary | None, requests: list[RequestRecord],
                     conditions: RunConditions) -> dict[str, Level]:
    by_label: dict[str, Level] = {}
    for lv in summary.levels if summary is not None else []:
        by_label[lv.label] = lv.level
    cap = conditions.load.max_in_flight if conditions.load is not None else None
    for r in requests:
        if r.level not in by_label:
            found = Level.from_label(r.level, cap)
            if found is not None:
                by_label[r.level] = found
    return by_label


def _relabel(requests: list[RequestRecord], summary: Summary | None) -> list[RequestRecord]:
    """Requests that name their level by its concurrency or rate get the level's label."""
    if summary is None:
        return requests
    labels = {lv.label for lv in summary.levels}
    legacy: dict[str, str] = {}
    for lv in summary.levels:
        for key in (lv.concurrency, lv.request_rate):
            if key is not None:
                legacy.setdefault(str(key), lv.label)
    return [r if r.level in labels or r.level not in legacy else r.model_copy(update={"level": legacy[r.level]})
            for r in requests]


def read_receipt(run_dir: str | Path) -> dict[str, Any] | None:
    """``receipt.json`` of a run directory, or ``None`` when there is none.

    Raises:
        TokcheckError: it is not a JSON object.
    """
    path = Path(run_dir) / RECEIPT_FILE
    return _read_json(path) if path.exists() else None


def read_conditions(run_dir: str | Path) -> RunConditions:
    """A run directory's ``run.json`` alone.

    Raises:
        TokcheckError: it is missing or not a run record.
    """
    p = Path(run_dir)
    run_json = p / RUN_FILE
    if not run_json.exists():
        raise TokcheckError(f"{p} has no run.json — is it a run directory written by `tokcheck bench`?")
    return _validate(RunConditions, _read_json(run_json), str(run_json))


def load_run(path: str | Path) -> Run:
    """Load the run directory at ``path`` (any version; see the module doc for migrations).

    Raises:
        TokcheckError: the directory or its ``run.json`` is missing, or a file is not a run record.
    """
    p = Path(path)
    if not p.is_dir():
        raise TokcheckError(f"no run directory at {p}")
    conditions = read_conditions(p)
    summary_path = p / SUMMARY_FILE
    summary = (_validate(Summary, _migrate_summary(_read_json(summary_path)), str(summary_path))
               if summary_path.exists() else None)
    log_path = p / SERVER_LOG_FILE
    server_log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else None
    gpu = conditions.telemetry.gpu if conditions.telemetry is not None else None
    samples_name = (gpu.samples_file if gpu is not None else None) or GPU_SAMPLES_FILE
    samples = read_gpu_samples(p / Path(samples_name).name)
    requests = _relabel(read_requests(p), summary)
    return Run(path=p, conditions=conditions, summary=summary, requests=requests, server_log=server_log,
               gpu_samples=samples, _by_label=_levels_by_label(summary, requests, conditions))


def run_labels(paths: list[str | Path]) -> list[str]:
    """Labels for run directories, one each: the directory's name, with as many parent
    directories as it takes to tell clashing names apart (``x/a/run`` and ``y/a/run`` →
    ``x/a/run``, ``y/a/run``; ``mml-1024``, ``mml-2048`` stay as they are)."""
    parts = [Path(p).resolve().parts for p in paths]
    depth = [1] * len(parts)
    for _ in range(max((len(p) for p in parts), default=1)):
        labels = ["/".join(p[-d:]) for p, d in zip(parts, depth)]
        clash = {lab for lab in labels if labels.count(lab) > 1}
        if not clash:
            return labels
        depth = [d + 1 if lab in clash and d < len(p) else d for p, d, lab in zip(parts, depth, labels)]
    return ["/".join(p[-d:]) for p, d in zip(parts, depth)]


def load_runs(paths: list[str | Path]) -> list[Run]:
    """:func:`load_run` for each path, each labelled by :func:`run_labels` (directory name,
    with its parent when names clash). Raises :class:`TokcheckError` as :func:`load_run`."""
    return [replace(load_run(p), label=lab) for p, lab in zip(paths, run_labels(paths))]
