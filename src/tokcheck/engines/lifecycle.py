"""One lifecycle for every engine: start it, wait until it is ready, keep its log, stop it.

:func:`serve` takes explicit :class:`~tokcheck.engines.base.ServeSettings` and an engine from
the registry (:mod:`tokcheck.engines.registry`). The engine runs without a shell, in its own
Python environment (``settings.python``, or the engine's cached one from
:meth:`~tokcheck.engines.base.Engine.provision`), in its own process group, with its output
written to ``server.log``. tokcheck waits for the engine's readiness check while watching the
process, and stops the whole group (SIGTERM, then SIGKILL after a time limit) on exit, failure
or Ctrl-C. If tokcheck dies without doing so (SIGKILL), the parent-death signal and a watchdog
(:mod:`tokcheck.engines.reaper`) stop the engine instead. Processes and ports:
:mod:`tokcheck.engines.process`.

What differs between engines (command line, environment, readiness, the log's meaning) is
asked of the engine; the precision audit of the served weights is the caller's
(:func:`tokcheck.flows.pipeline.run_conditions`).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokcheck.engines.base import Engine, EngineReport, Progress, ServeSettings
from tokcheck.engines.process import (GroupReaper, die_with_parent, free_port,
                                      group_peak_rss_bytes, port_taken, stop_process_group)
from tokcheck.engines.registry import get_engine
from tokcheck.errors import TokcheckError

# How often the readiness check is tried, and how often "still starting" is said (seconds).
POLL_S = 0.5
NOTE_EVERY_S = 15.0


@dataclass
class RunningServer:
    """A started engine: ``url`` (``http://host:port``), ``engine_report`` (from its start-up
    log), ``log_path``, ``argv``, ``settings`` (as started: model resolved, engine by its
    registered name), ``startup_s`` (seconds until the readiness check passed), ``engine``."""

    url: str
    engine_report: EngineReport
    log_path: Path
    argv: list[str]
    settings: ServeSettings
    startup_s: float
    process: subprocess.Popen
    engine: Engine
    notes: dict[str, Any] = field(default_factory=dict)  # Engine.serve_notes
    request_fields: dict[str, Any] = field(default_factory=dict)  # Engine.request_fields

    def peak_rss_bytes(self) -> int | None:
        """Peak resident memory of the engine's processes so far (bytes; Linux ``VmHWM`` summed
        over its process group), None where ``/proc`` cannot say."""
        return group_peak_rss_bytes(self.process.pid)

    @property
    def pid(self) -> int:
        return self.process.pid

    def serve_conditions(self) -> dict:
        """The run record's ``serve`` section: how the engine was started
        (``docs/run-directory.md``)."""
        s = self.settings
        out = {"engine": s.engine, "dtype": s.dtype, "max_model_len": s.max_model_len,
               "gpu_memory_utilization": s.gpu_memory_utilization,
               "tensor_parallel_size": s.tensor_parallel_size,
               "quantization": s.quantization or "none", **self.notes,
               "enforce_eager": s.enforce_eager}
        for key in ("threads", "batch_size"):  # only engines that take them
            if getattr(s, key) is not None:
                out[key] = getattr(s, key)
        out.update({"extra_args": list(s.extra_args), "argv": self.argv[1:],
                    "startup_s": round(self.startup_s, 2)})
        return out

    def stop(self) -> None:
        stop_process_group(self.process, self.settings.stop_timeout_s)

    def run_conditions(self) -> dict:
        """What the server says of itself for a run record (``run.json``): ``engine_report``
        (from its start-up log) and ``serve`` (how it was started). The precision audit of the
        weights is the caller's (:func:`tokcheck.flows.pipeline.run_conditions`)."""
        return {"engine_report": self.engine_report.to_dict(), "serve": self.serve_conditions()}

    def log_hook(self) -> ServerLogHook:
        """A bench hook that copies this server's log into the run directory at the end."""
        return ServerLogHook(self.log_path)


class ServerLogHook:
    """Bench hook: at the end of a run, copy the server's log into the run directory as
    ``server.log``, so the record keeps what the engine said (``docs/run-directory.md``)."""

    def __init__(self, log_path: str | Path) -> None:
        self.log_path = Path(log_path)
        self.run_dir: Path | None = None

    def on_run_start(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)

    def on_run_end(self) -> None:
        import shutil

        if self.run_dir is not None and self.log_path.is_file():
            shutil.copyfile(self.log_path, self.run_dir / "server.log")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def start_failure(engine: Engine, log_text: str, *, model: str, port: int,
                  returncode: int | None) -> str:
    """One line for an engine that exited during start-up: the engine's diagnosis of its log,
    else the log's last line (pure)."""
    said = engine.diagnose_failure(log_text, model=model, port=port)
    if said:
        return said
    tail = [ln for ln in log_text.splitlines() if ln.strip()]
    last = " ".join(tail[-1].split())[:220] if tail else "empty log"
    code = f" (exit code {returncode})" if returncode is not None else ""
    return f"{engine.display_name} exited during start-up{code}: {last}"


def _wait_ready(engine: Engine, proc: subprocess.Popen, url: str, log_path: Path,
                settings: ServeSettings, port: int, progress: Progress) -> float:
    import httpx

    t0 = time.monotonic()
    next_note = t0 + NOTE_EVERY_S
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        while True:
            if proc.poll() is not None:
                text = log_path.read_text(errors="replace")
                raise TokcheckError(start_failure(engine, text, model=str(settings.model),
                                                  port=port, returncode=proc.returncode)
                                    + f" (log: {log_path})")
            with contextlib.suppress(httpx.HTTPError):
                if engine.ready(client, url):
                    return time.monotonic() - t0
            now = time.monotonic()
            if now - t0 > settings.startup_timeout_s:
                raise TokcheckError(f"{engine.display_name} did not answer "
                                    f"{url}{engine.readiness_path} within "
                                    f"{settings.startup_timeout_s:.0f} s (log: {log_path})")
            if now >= next_note:
                progress(f"  still starting ({now - t0:.0f} s) …")
                next_note = now + NOTE_EVERY_S
            time.sleep(POLL_S)


def engine_python(given: str | Path) -> str:
    """``--python`` as the engine gets it: absolute (a relative path is taken from the current
    folder, and stays right in run.json and the engine's own child processes).

    Raises:
        TokcheckError: no such file, a folder, or a file that is not executable (one line, with
            the path as given).
    """
    p = Path(given).expanduser()
    if not p.exists():
        raise TokcheckError(f"engine python {given} does not exist")
    if p.is_dir():
        raise TokcheckError(f"engine python {given} is a folder: give the interpreter, e.g. "
                            f"{Path(given) / 'bin' / 'python'}")
    if not os.access(p, os.X_OK):
        raise TokcheckError(f"engine python {given} is not executable")
    return str(p.absolute())


def _python(engine: Engine, settings: ServeSettings, progress: Progress) -> str:
    if settings.python is None:
        return str(engine.provision(progress=progress))
    return engine_python(settings.python)


def _port(settings: ServeSettings) -> int:
    """The port asked for, checked free; or a free one (tried again should another process
    take the chosen port before it is checked: ports are shared with the whole machine)."""
    if settings.port:
        if port_taken(settings.host, settings.port):
            raise TokcheckError(f"port {settings.port} on {settings.host} is already in use: "
                                "choose another --port or stop the process that holds it")
        return settings.port
    for _ in range(5):
        port = free_port(settings.host)
        if not port_taken(settings.host, port):
            return port
    raise TokcheckError(f"no free port on {settings.host} after 5 tries")


@contextlib.contextmanager
def serve(settings: ServeSettings, *, engine: str | Engine | None = None,
          progress: Progress | None = None) -> Iterator[RunningServer]:
    """Start an engine, wait until it is ready, yield a :class:`RunningServer`, stop it on exit.

    ``engine``: a registered name or alias, or an :class:`~tokcheck.engines.base.Engine`;
    default ``settings.engine``. The server is stopped (whole process group) when the ``with``
    block ends, raises, or is interrupted (Ctrl-C), and at interpreter exit as a last resort.

    Raises:
        TokcheckError: an unknown engine, a model the engine cannot load, a port in use, no
            engine in ``settings.python``, a setting the engine cannot honour, a failed start
            (one line from the log: out of memory with the fixes to try, unknown architecture,
            …), or no readiness within ``settings.startup_timeout_s``.
    """
    progress = progress or _say
    eng = get_engine(engine if engine is not None else settings.engine)
    eng.validate(settings)
    model = eng.resolve_model(str(settings.model))
    python = _python(eng, settings, progress)
    port = _port(settings)
    log_dir = Path(settings.log_dir) if settings.log_dir else \
        Path("runs") / time.strftime("serve-%Y%m%d-%H%M%S", time.gmtime())
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "server.log"

    run_settings = dataclasses.replace(settings, model=model, engine=eng.name,
                                       extra_args=list(settings.extra_args),
                                       env=dict(settings.env))
    installed = eng.probe(python, run_settings)
    argv = eng.argv(run_settings, python, port, installed)
    notes = eng.serve_notes(run_settings, argv)
    env = eng.environment(run_settings, os.environ)
    url = f"http://{settings.host}:{port}"
    progress(f"Starting {eng.display_name}: {' '.join(argv[1:])}")
    progress(f"  log: {log_path}")
    with open(log_path, "ab") as log:
        # Its own session (Ctrl-C reaches tokcheck alone, which stops it in order) and a
        # parent-death signal (a killed tokcheck never leaves it running).
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                preexec_fn=die_with_parent())
        # The parent-death signal is SIGTERM to the engine's leader alone, which an engine may
        # ignore in parts of its start-up (vLLM does): a watchdog stops the whole group if
        # tokcheck dies.
        try:
            reaper = GroupReaper(proc.pid, eng.reaper_grace_s, log=log)
        except BaseException:
            stop_process_group(proc, eng.startup_stop_timeout_s)
            raise
    guard = _ExitGuard(proc, settings.stop_timeout_s)
    atexit.register(guard)
    stop_timeout_s = min(settings.stop_timeout_s, eng.startup_stop_timeout_s)
    try:
        try:
            startup_s = _wait_ready(eng, proc, url, log_path, run_settings, port, progress)
        except KeyboardInterrupt:
            progress("Stopping the server …")
            raise
        stop_timeout_s = settings.stop_timeout_s
        log_text = log_path.read_text(errors="replace")
        report = eng.complete_report(eng.parse_startup_log(log_text), argv, installed)
        progress(f"{eng.display_name} {report.version} ready at {url} after {startup_s:.0f} s "
                 f"({eng.ready_line(report)})")
        server = RunningServer(url=url, engine_report=report, log_path=log_path, argv=argv,
                               settings=run_settings, startup_s=startup_s, process=proc,
                               engine=eng, notes=notes,
                               request_fields=eng.request_fields(report, log_text))
        try:
            yield server
        except KeyboardInterrupt:
            progress("Stopping the server …")
            raise
    finally:
        stop_process_group(proc, stop_timeout_s)
        reaper.close()
        atexit.unregister(guard)


class _ExitGuard:
    """atexit fallback: stop the engine if the interpreter exits without leaving ``serve``."""

    def __init__(self, proc: subprocess.Popen, timeout_s: float) -> None:
        self.proc, self.timeout_s = proc, timeout_s

    def __call__(self) -> None:
        stop_process_group(self.proc, self.timeout_s)
