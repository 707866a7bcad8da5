"""The evidence receipt of a run directory (``docs/run-directory.md``, "receipt.json").

A receipt makes a run's numbers checkable later and elsewhere: the SHA-256 of every file of the
run directory (so a changed ``requests.jsonl`` or ``summary.json`` shows), and beside them the
conditions that make the run reproducible, gathered from ``run.json`` in one place — the GPUs
(model, driver, memory, power limit and maximum clocks where the doctor read them), the engine's
own flags as read back from its start-up log (the engine report, ``non_default_args`` among them)
and how tokcheck started it, the workload and load, the SLO, the client (and its health when
bench recorded it), the quality probe when one ran. Its ``digest`` is the SHA-256 of the
canonical JSON (sorted keys, no spaces) of everything else in the receipt; the report shows it.

:func:`make_receipt` builds and writes ``receipt.json``; :func:`check_receipt` recomputes every
hash and the digest and says what changed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokcheck import __version__
from tokcheck.errors import TokcheckError
from tokcheck.record.store import RECEIPT_FILE, read_conditions, read_receipt, write_receipt

#: Version of the receipt's format.
RECEIPT_VERSION = 1

_SKIP_SUFFIXES = (".tmp",)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_hashes(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Every file under ``run_dir`` (recursively, the receipt itself and half-written ``*.tmp``
    files left out): relative POSIX path → ``{"bytes", "sha256"}``."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(p for p in run_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(run_dir).as_posix()
        if rel == RECEIPT_FILE or rel.endswith(_SKIP_SUFFIXES):
            continue
        out[rel] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
    return out


def digest_of(receipt: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the receipt without its ``digest``."""
    body = {k: v for k, v in receipt.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _levels_client_health(run_dir: Path) -> dict[str, Any] | None:
    """Each level's client health from ``summary.json`` (bench writes it per level): whether the
    client limited the numbers, why, and its event-loop lag p99 in ms."""
    path = Path(run_dir) / "summary.json"
    if not path.is_file():
        return None
    try:
        levels = json.loads(path.read_text(encoding="utf-8")).get("levels") or []
    except (OSError, ValueError):
        return None
    out = {}
    for lv in levels:
        c = lv.get("client") if isinstance(lv, dict) else None
        if c:
            lag = (c.get("loop_lag_ms") or {}).get("p99")
            out[str(lv.get("label"))] = {"bound": c.get("bound"), "reasons": c.get("reasons") or [],
                                         "loop_lag_p99_ms": lag}
    return out or None


def reproducible_conditions(run_dir: Path) -> dict[str, Any]:
    """The conditions of ``run.json`` that make the run reproducible (module doc). A section the
    run did not record is ``None`` with ``<section>_reason``."""
    c = read_conditions(run_dir)
    raw = c.model_dump(mode="json")
    out: dict[str, Any] = {"run_id": c.run_id, "tokcheck_version": c.tokcheck_version,
                           "created_at": c.created_at, "endpoint": raw.get("endpoint"),
                           "server": raw.get("server"), "tokenizer": raw.get("tokenizer"),
                           "workload": raw.get("workload"), "load": raw.get("load"),
                           "stream_options": raw.get("stream_options"), "slo": raw.get("slo")}
    env = c.environment.gpu if c.environment is not None else None
    if env is not None:
        gpus = []
        for g in env.gpus:
            d = g.model_dump(mode="json")
            gpus.append({k: d.get(k) for k in ("index", "name", "uuid", "memory_total_bytes", "power_limit_w",
                                                 "sm_clock_max_mhz", "memory_clock_max_mhz", "persistence_mode",
                                                 "ecc_enabled") if d.get(k) is not None})
        out["gpu"] = {"available": env.available, "reason": env.reason, "driver_version": env.driver_version,
                      "cuda_driver_version": env.cuda_driver_version, "gpus": gpus}
    else:
        out["gpu"], out["gpu_reason"] = None, "the run recorded no environment (a remote server, or --no-telemetry)"
    er = raw.get("engine_report")
    out["engine"] = er
    if er is None:
        out["engine_reason"] = "no engine log was read (bench --server-log, or serve/reproduce)"
    out["engine_flags"] = (er or {}).get("non_default_args")
    out["serve"] = raw.get("serve")
    out["precision"] = raw.get("precision_report", {}).get("verdict") if raw.get("precision_report") else None
    client = dict(raw.get("client") or {})
    out["client"] = client or None
    health = raw.get("client_health") or client.get("health") or _levels_client_health(run_dir)
    out["client_health"] = health
    if health is None:
        out["client_health_reason"] = "bench recorded no client health (summary.json levels' `client`)"
    out["quality"] = raw.get("quality")
    if out["quality"] is None:
        out["quality_reason"] = "no quality probe in run.json"
    return out


def make_receipt(run_dir: str | Path) -> dict[str, Any]:
    """Build the receipt of ``run_dir`` and write it as ``receipt.json``; returns it.

    Raises:
        TokcheckError: not a run directory (no ``run.json``).
    """
    p = Path(run_dir)
    conditions = reproducible_conditions(p)  # raises for a directory without run.json
    receipt: dict[str, Any] = {
        "receipt_version": RECEIPT_VERSION,
        "made_by": f"tokcheck {__version__}",
        "made_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "algorithm": "sha256",
        "files": file_hashes(p),
        "conditions": conditions,
    }
    receipt["digest"] = digest_of(receipt)
    write_receipt(p, receipt)
    return receipt


@dataclass
class ReceiptCheck:
    """What :func:`check_receipt` found: ``changed`` (hash or size differs), ``missing`` (in the
    receipt, not on disk), ``added`` (on disk, not in the receipt), ``digest_ok`` (the receipt's
    own digest matches its content). ``ok`` when nothing differs."""

    digest: str
    digest_ok: bool
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.digest_ok and not (self.changed or self.missing or self.added)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "digest": self.digest, "digest_ok": self.digest_ok, "changed": self.changed,
                "missing": self.missing, "added": self.added}


def check_receipt(run_dir: str | Path) -> ReceiptCheck:
    """Recompute every file's SHA-256 and the receipt's digest against ``receipt.json``.

    Raises:
        TokcheckError: the directory has no receipt (make one with ``tokcheck receipt``), or the
            receipt is not one.
    """
    p = Path(run_dir)
    if not p.is_dir():
        raise TokcheckError(f"no run directory at {p}")
    receipt = read_receipt(p)
    if receipt is None:
        raise TokcheckError(f"{p} has no {RECEIPT_FILE} — make one with `tokcheck receipt {p}`")
    files = receipt.get("files")
    if not isinstance(files, dict) or not isinstance(receipt.get("digest"), str):
        raise TokcheckError(f"{p / RECEIPT_FILE} is not a tokcheck receipt (no files or digest)")
    now = file_hashes(p)
    check = ReceiptCheck(digest=receipt["digest"], digest_ok=digest_of(receipt) == receipt["digest"])
    for rel, entry in files.items():
        if rel not in now:
            check.missing.append(rel)
        elif not isinstance(entry, dict) or entry.get("sha256") != now[rel]["sha256"] \
                or entry.get("bytes") != now[rel]["bytes"]:
            check.changed.append(rel)
    check.added = [rel for rel in now if rel not in files]
    return check
