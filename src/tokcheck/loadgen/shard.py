"""One load worker's share of a bench run: its own event loop, connections, measurement worker and
health monitor (``tokcheck bench --workers N`` and ``--ray``; docs/measurement.md, "Past one
process").

A :class:`Shard` is what a single-process bench does for each level, for the requests it is given:
it stamps with the same recorder (:mod:`tokcheck.loadgen.recorder`), hands each finished exchange
to its own measurement worker process (:mod:`tokcheck.loadgen.measure_worker`), which appends the
record to this shard's own ``requests.jsonl`` and flushes it at once, and keeps its own heartbeat
(:mod:`tokcheck.loadgen.client_health`). Every duration of a record (TTFT, TPOT, ITL, E2E) is
therefore taken on this worker's own monotonic clock. The coordinator
(:mod:`tokcheck.loadgen.workers`) reads the records from that file as they are written, so a
worker that dies loses nothing that it completed: its measurement worker drains what it was
handed and writes it before it exits.

A round is run in two steps so that every worker starts it together: :meth:`Shard.prepare`
builds the request bytes, then :meth:`Shard.go` waits for the start time the coordinator chose
(on this worker's clock) and sends.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from tokcheck.loadgen import openai as oai
from tokcheck.loadgen.client_health import ClientMonitor
from tokcheck.loadgen.measure import STALL_AFTERGLOW_NS, RequestMeta
from tokcheck.loadgen.recorder import ConnectionPool, Exchange, Target, build_request
from tokcheck.loadgen.runner import Planned, run_closed, run_open


@dataclass(frozen=True)
class ShardSpec:
    """What a worker needs to send and measure its share (picklable; the API key travels to the
    worker, which puts it in its request bytes, and is never written).

    ``include_usage`` and ``output_forcing`` are what the coordinator's probe request found the
    server to accept; ``ttft_floor_ms`` the client's floor from ``tokcheck probe`` (or None);
    ``loopback``: the server is on the coordinator's machine (its write stamps share our clock).
    """

    index: int
    url: str
    api: str
    model: str
    input_len: int
    output_len: int
    temperature: float
    extra_body: dict
    timeout_s: float
    connections: str
    include_usage: bool
    output_forcing: str
    tokenizer: str
    requests_path: str
    api_key: str | None = field(default=None, repr=False)
    ttft_floor_ms: float | None = None
    loopback: bool = False
    tokenizer_json: bytes | None = field(default=None, repr=False)  # for a host without ``tokenizer``


@dataclass(frozen=True)
class Item:
    """One request of a round: its place in the level, its prompt and, in an open loop, when it
    is due after the round's start (ns)."""

    round: int
    index: int
    warmup: bool
    prompt_index: int
    prompt: str
    offset_ns: int | None = None


@dataclass(frozen=True)
class Part:
    """A worker's share of one round (or of a level's warm-up).

    Closed loop: ``concurrency`` of the worker's own; open loop: ``request_rate`` of the whole
    level (for the record) with each item's ``offset_ns``, and the worker's share of
    ``max_in_flight``.
    """

    label: str
    open_loop: bool
    items: list[Item]
    concurrency: int | None = None
    request_rate: float | None = None
    max_in_flight: int | None = None


def host_facts() -> dict[str, Any]:
    """Where this process runs: host name, pid and the kernel's boot id (two processes with the
    same boot id share one ``CLOCK_MONOTONIC``, so their ``perf_counter_ns`` stamps agree)."""
    try:
        boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:  # pragma: no cover - not Linux
        boot_id = None
    return {"host": socket.gethostname(), "pid": os.getpid(), "boot_id": boot_id}


class Shard:
    """One worker's event loop, connections, measurement worker and health monitor.

    Raises (from the constructor):
        TokcheckError: the measurement worker does not start.
    """

    def __init__(self, spec: ShardSpec) -> None:
        from tokcheck.loadgen.bench import _new_loop_runner
        from tokcheck.loadgen.measure_worker import MeasureWorker

        self.spec = spec
        self.target = Target.from_url(spec.url)
        self.runner = _new_loop_runner()
        self.pool = ConnectionPool(self.target, reuse=spec.connections == "reuse")
        work = Path(spec.requests_path).parent
        work.mkdir(parents=True, exist_ok=True)
        Path(spec.requests_path).touch()
        tokenizer = spec.tokenizer
        if not Path(tokenizer).exists() and spec.tokenizer_json is not None:
            # another host (Ray): the coordinator shipped its tokenizer.json
            (work / "tokenizer.json").write_bytes(spec.tokenizer_json)
            tokenizer = str(work / "tokenizer.json")
        self.measure = MeasureWorker(Path(spec.requests_path), tokenizer)
        self.monitor = ClientMonitor(other_pids=[self.measure.pid] if self.measure.pid else [])
        self._prepared: tuple[Part, list[Planned]] | None = None
        self.sent = 0

    # ------------------------------------------------------------------ facts
    def info(self) -> dict[str, Any]:
        """Where this worker runs and what it writes to (see :func:`host_facts`)."""
        from tokcheck import __version__

        return {**host_facts(), "measure_pid": self.measure.pid, "requests_path": self.spec.requests_path,
                "event_loop": type(self.runner.get_loop()).__module__, "tokcheck_version": __version__}

    @staticmethod
    def clock() -> int:
        """This worker's ``perf_counter_ns`` now (for the coordinator's clock-offset estimate)."""
        return perf_counter_ns()

    # ------------------------------------------------------------------ levels
    def begin_level(self) -> None:
        self.monitor.begin_level()

    def end_level(self) -> dict[str, Any]:
        """The level's raw health figures (:meth:`ClientMonitor.end_level`)."""
        return self.monitor.end_level()

    def prepare(self, part: Part) -> int:
        """Build the request bytes of ``part``; returns how many requests it holds."""
        s = self.spec
        path = oai.PATHS[s.api]
        planned = []
        for it in part.items:
            body = oai.request_body(s.api, s.model, it.prompt, s.output_len, forcing=s.output_forcing,
                                    include_usage=s.include_usage, temperature=s.temperature,
                                    extra=s.extra_body)
            planned.append(Planned(it.round, it.index, it.warmup, it.prompt_index,
                                   build_request(self.target, path, body, s.api_key, keep_alive=self.pool.reuse)))
        self._prepared = (part, planned)
        return len(planned)

    def go(self, start_at_ns: int | None) -> dict[str, Any]:
        """Send the prepared part from ``start_at_ns`` (this worker's clock; None: now) and return
        when every request of it has ended: ``{"requests", "start_late_ns" (first send − start,
        ns), "first_send_ns", "last_end_ns"}`` (stamps on this worker's clock)."""
        if self._prepared is None:
            raise RuntimeError("go() before prepare()")
        part, planned = self._prepared
        self._prepared = None
        s = self.spec
        first_send: list[int] = []
        last_end = [0]

        def on_exchange(p: Planned, t_due: int | None, ex: Exchange) -> None:
            # The hot path, as in a single-process bench: hand over, never parse here.
            t0 = ex.t_send_ns if ex.t_send_ns is not None else t_due
            stalls = self.monitor.stalls_around(t0 - STALL_AFTERGLOW_NS if t0 is not None else None)
            self.measure.submit(RequestMeta(part.label, p.round, p.index, p.warmup, p.prompt_index, t_due,
                                            s.input_len, s.output_len, s.api, s.include_usage,
                                            part.open_loop, stalls, s.ttft_floor_ms, s.loopback), ex)
            if ex.t_send_ns is not None and not first_send:
                first_send.append(ex.t_send_ns)
            if ex.t_end_ns is not None and ex.t_end_ns > last_end[0]:
                last_end[0] = ex.t_end_ns

        async def round_() -> None:
            if part.open_loop:
                offsets = [it.offset_ns or 0 for it in part.items]
                t0 = start_at_ns if start_at_ns is not None else perf_counter_ns() + 1_000_000
                await run_open(self.target, planned, part.request_rate or 1.0, s.timeout_s, on_exchange,
                               max_in_flight=part.max_in_flight, pool=self.pool, offsets_ns=offsets, t0_ns=t0)
            else:
                await run_closed(self.target, planned, part.concurrency or 1, s.timeout_s, on_exchange,
                                 pool=self.pool, start_at_ns=start_at_ns)

        if planned:
            self.runner.run(self.monitor.watch(round_()))
        self.sent += len(planned)
        late_ns = first_send[0] - start_at_ns if first_send and start_at_ns is not None else None
        return {"requests": len(planned), "start_late_ns": late_ns,
                "first_send_ns": first_send[0] if first_send else None,
                "last_end_ns": last_end[0] or None}

    def sync(self) -> list[str]:
        """Return once every request handed over so far is in this worker's file; the
        measurement worker's errors so far."""
        self.measure.sync()
        return list(self.measure.errors)

    def records(self, offset: int) -> tuple[str, int]:
        """The whole lines of this worker's file from byte ``offset`` (what the coordinator has
        not taken yet) and the offset after them (see :func:`read_lines`)."""
        return read_lines(self.spec.requests_path, offset)

    def close(self) -> None:
        """Write what is left and stop (idempotent)."""
        try:
            self.measure.close()
        finally:
            self.monitor.close()
            self.pool.close()
            self.runner.close()


def read_lines(path: str, offset: int) -> tuple[str, int]:
    """The whole lines of ``path`` from byte ``offset`` (a torn last line, still being written,
    is left for the next call) and the offset after them; ``("", offset)`` when there is none."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        return "", offset
    end = data.rfind(b"\n") + 1
    return data[:end].decode("utf-8"), offset + end


def wait_gone(pid: int | None, timeout_s: float) -> bool:
    """Wait until process ``pid`` (a lost worker's measurement worker, which drains what it was
    handed before it exits) is gone; True when it is."""
    import time

    if pid is None:
        return True
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":  # a zombie has written all it will
                return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        except PermissionError:  # pragma: no cover - someone else's pid now
            return True
        time.sleep(0.05)
    return False


# --------------------------------------------------------------------------- a worker process


def process_main(spec: ShardSpec, conn, parent_pid: int) -> None:
    """The body of one ``--workers`` process (multiprocessing ``spawn``): a :class:`Shard` that
    answers the coordinator's commands on ``conn`` (``(method, args)`` → ``("ok", value)`` or
    ``("error", text)``) until ``close`` or until the coordinator is gone. SIGINT is ignored:
    the coordinator decides when to stop (a Ctrl-C reaches every process of the terminal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        shard = Shard(spec)
    except Exception as err:  # the coordinator shows it as a one-line error
        conn.send(("error", f"{type(err).__name__}: {err}"))
        return
    conn.send(("ok", shard.info()))
    try:
        while True:
            if not conn.poll(1.0):
                if os.getppid() != parent_pid:
                    return
                continue
            try:
                method, args = conn.recv()
            except EOFError:
                return
            if method == "close":
                shard.close()
                conn.send(("ok", None))
                return
            try:
                value = getattr(shard, method)(*args)
            except Exception as err:  # report it; the coordinator decides
                conn.send(("error", f"{type(err).__name__}: {err}"))
                continue
            conn.send(("ok", value))
    finally:
        shard.close()
