"""Read a run directory (K2) as written by ``tokcheck bench``: ``run.json``, ``summary.json``,
``requests.jsonl`` and, when tokcheck started the server, ``server.log``.

Reading is the only I/O here; everything that interprets a run (verify, compare, report) takes
the :class:`Run` this returns. The format is the contract's "run directory" section.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokcheck.errors import TokcheckError


@dataclass(frozen=True)
class Run:
    """One run directory, parsed.

    ``run``: run.json as a dict; ``summary``: summary.json (``{}`` when absent, e.g. a run
    interrupted before its summary); ``requests``: the lines of requests.jsonl in file order
    (a torn last line, from a crash mid-write, is skipped); ``server_log``: the server's
    log text or ``None``; ``gpu_samples``: the NVML samples of ``gpu_samples.jsonl`` (the GPU
    sampler's file, named in run.json ``telemetry.gpu.samples_file``), ``[]`` when absent.
    """

    path: Path
    run: dict[str, Any]
    summary: dict[str, Any]
    requests: list[dict[str, Any]] = field(default_factory=list)
    server_log: str | None = None
    gpu_samples: list[dict[str, Any]] = field(default_factory=list)
    #: The label :func:`load_runs` gives when directory names clash (``a/run``, ``b/run``).
    label: str | None = None

    @property
    def name(self) -> str:
        """The run's label in plots, tables, Markdown and CSV: the directory's name
        (``mml-2048``, ``bf16``), what a person chose and reads, or with the parent directory
        when several runs share it (``a/run``); the random ``run_id`` stays in the conditions
        table."""
        return self.label or self.path.resolve().name or str(self.run.get("run_id"))

    @property
    def levels(self) -> list[dict[str, Any]]:
        return list(self.summary.get("levels") or [])

    def measured_requests(self) -> list[dict[str, Any]]:
        """Requests of the measured window (warm-up excluded)."""
        return [r for r in self.requests if not r.get("warmup")]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise TokcheckError(f"{path} is not valid JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(data, dict):
        raise TokcheckError(f"{path} does not hold a JSON object")
    return data


def read_requests(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSONL file (requests.jsonl, gpu_samples.jsonl); a line that does not
    parse (a torn write) is skipped, since bench appends and flushes each line as it goes."""
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def load_run(path: str | Path) -> Run:
    """Load the run directory at ``path``.

    Raises :class:`TokcheckError` when the directory or its ``run.json`` is missing or broken.
    """
    p = Path(path)
    if not p.is_dir():
        raise TokcheckError(f"no run directory at {p}")
    run_json = p / "run.json"
    if not run_json.exists():
        raise TokcheckError(f"{p} has no run.json — is it a run directory written by `tokcheck bench`?")
    run = _read_json(run_json)
    summary_path = p / "summary.json"
    summary = _read_json(summary_path) if summary_path.exists() else {}
    log_path = p / "server.log"
    server_log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else None
    samples_name = ((run.get("telemetry") or {}).get("gpu") or {}).get("samples_file") or "gpu_samples.jsonl"
    samples = read_requests(p / Path(str(samples_name)).name)
    return Run(path=p, run=run, summary=summary, requests=read_requests(p / "requests.jsonl"),
               server_log=server_log, gpu_samples=samples)


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
    from dataclasses import replace

    return [replace(load_run(p), label=lab) for p, lab in zip(paths, run_labels(paths))]
