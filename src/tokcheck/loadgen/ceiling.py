"""This machine's client ceiling on disk: where ``tokcheck probe`` stores it and bench reads it.

One JSON file (:func:`ceiling_file`) maps a machine key (:func:`machine_key`) to a
:class:`~tokcheck.record.schema.ClientCeiling`; entries of other machines are kept.
"""

from __future__ import annotations

import json
import os
import platform
import socket
from pathlib import Path

from tokcheck.record.schema import ClientCeiling

CEILING_FILE = "client-ceiling.json"


def cache_dir() -> Path:
    """tokcheck's cache folder: ``$TOKCHECK_CACHE`` or ``~/.cache/tokcheck`` (the same as the
    engines' virtualenvs, ``tokcheck.engines.provision``)."""
    env = os.environ.get("TOKCHECK_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tokcheck"


def machine_key() -> str:
    """What makes two runs "the same machine" for the client's ceiling: host name, CPU model,
    CPUs this process may use, and the Python it runs."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 0
    return f"{socket.gethostname()} | {cpu} | {n} CPUs | Python {platform.python_version()}"


def ceiling_file() -> Path:
    """Where ceilings are stored: ``$TOKCHECK_CEILING_FILE``, else ``client-ceiling.json`` in
    :func:`cache_dir`."""
    env = os.environ.get("TOKCHECK_CEILING_FILE")
    return Path(env).expanduser() if env else cache_dir() / CEILING_FILE


def load_ceiling(path: Path | None = None) -> ClientCeiling | None:
    """This machine's stored ceiling, or None (never measured here, or the file is unreadable)."""
    file = path or ceiling_file()
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError):
        return None
    entry = data.get(machine_key()) if isinstance(data, dict) else None
    return ClientCeiling.model_validate(entry) if isinstance(entry, dict) else None


def save_ceiling(ceiling: ClientCeiling, path: Path | None = None) -> Path:
    """Store ``ceiling`` for this machine (other machines' entries are kept); returns the file."""
    file = path or ceiling_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(file.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[machine_key()] = ceiling.model_dump(mode="json")
    tmp = file.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(file)
    return file
