"""Load from several processes and hosts: the coordinator of ``tokcheck bench --workers N`` and
``tokcheck bench --ray auto|ADDRESS`` (docs/measurement.md, "Past one process").

:func:`run_bench_workers` does what :func:`tokcheck.loadgen.bench.run_bench` does (checks the
server, builds exact-length prompts, probes what it accepts, writes the run directory) but sends
each level's requests from N load workers (:class:`tokcheck.loadgen.shard.Shard`), each with its
own event loop, connections and measurement worker:

- closed loop at concurrency C: worker i keeps ``C // N (+1 for the first C % N)`` in flight and
  sends that share of every round's requests; workers with no share sit the level out;
- open loop at rate R: the whole round's Poisson schedule is drawn once (as a single process
  would, same seed) and request j goes to worker ``j % N``, so the merged schedule is exactly the
  one asked for; ``--max-in-flight`` is split like a concurrency;
- every round starts together: the coordinator has every worker build its request bytes, then
  names one start time on its own clock, translated to each worker's clock (a barrier), and waits
  for every worker to finish the round;
- every record a worker writes is merged into the run's one ``requests.jsonl`` with ``worker`` set;
  the run directory has exactly the single-process form, so every other command reads it
  unchanged; the level's window (first send to last end of a round) is the union of the workers'
  windows because all stamps are on one clock (see below).

Clocks. Every duration of a record (TTFT, TPOT, ITL, E2E) is a difference of two stamps taken by
one worker on its own ``perf_counter_ns`` (``CLOCK_MONOTONIC``). Processes on one host (the same
kernel boot id) share that clock, so nothing is translated. A worker on another host (Ray) has its
clock offset from the coordinator's estimated by the round-trip with the smallest delay of
:data:`CLOCK_PINGS` (Cristian's method: offset = worker stamp − midpoint of the round-trip,
error ≤ half that round-trip); its records' absolute stamps are moved onto the coordinator's clock
by that offset, which places windows and never changes a duration. run.json ``distributed``
states each worker's offset and its error bound.

Losses. A worker that dies (process exit, Ray actor death, no answer within the round's deadline)
is reported in run.json ``distributed.lost`` and in the level's warnings, and the run ends after
that round with ``summary.interrupted`` set: never a hang. Nothing it completed is lost: its
measurement worker (a separate process) drains what it was handed into the worker's file, and
the coordinator reads the rest of that file (on another Ray node through a task placed on that
node, back through Ray's object store).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.bench import (BenchConfig, Progress, _call_hooks, _conditions, _default_out,
                                    _new_loop_runner, _probe, finish_run, prepare, save_interrupted)
from tokcheck.loadgen.client_health import workers_health
from tokcheck.loadgen.recorder import ConnectionPool
from tokcheck.loadgen.schedule import poisson_offsets_ns
from tokcheck.loadgen.shard import Item, Part, ShardSpec, host_facts, process_main, read_lines, wait_gone
from tokcheck.record.level import Level
from tokcheck.record.schema import RequestRecord, RunConditions, Summary, Telemetry
from tokcheck.record.store import RequestLog, RunDirectory, read_requests
from tokcheck.record.summarize import summarize_level

#: Round-trips used to estimate a remote worker's clock offset (the one with the smallest delay
#: is kept; Cristian's method, docs/measurement.md "Past one process").
CLOCK_PINGS = 9
#: How far ahead of "now" a round's common start is named, ns: room for the "go" to reach every
#: worker (a pipe on one host, a Ray call across hosts) before it is due.
START_MARGIN_NS = 100_000_000
#: Slack on top of a round's own worst case (requests × timeout) before a silent worker is lost, s.
ROUND_SLACK_S = 60.0
#: How long a worker may take to start (spawn, tokenizer, measurement worker), s.
START_TIMEOUT_S = 180.0

_STAMPS = ("t_due_ns", "t_send_ns", "t_first_ns", "t_first_answer_ns", "t_last_ns", "t_end_ns", "t_last_event_ns")


class WorkerLost(Exception):
    """A load worker stopped answering (its process or actor died, or it missed a deadline)."""


# --------------------------------------------------------------------------- splitting a level


def split(total: int, ways: int) -> list[int]:
    """``total`` split ``ways`` ways as evenly as integers allow, larger shares first
    (``split(5, 2) == [3, 2]``)."""
    return [total // ways + (1 if i < total % ways else 0) for i in range(ways)]


def split_by(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainder; zero weight, zero share)."""
    wsum = sum(weights)
    if wsum <= 0:
        return [0] * len(weights)
    exact = [total * w / wsum for w in weights]
    out = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - out[i]), i))
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def plan_round(level: Level, workers: int, items: list[Item], *, warmup: bool, label: str) -> list[Part]:
    """One round's (or warm-up's) :class:`Part` for each of ``workers`` (see the module doc).

    ``items`` carry their place in the level and, in an open loop, their due offset in the whole
    round's schedule; the parts together hold every item exactly once.
    """
    cap = level.concurrency if not level.is_open else level.max_in_flight
    shares = split(cap, workers) if cap else [None] * workers
    active = [i for i in range(workers) if shares[i] is None or shares[i] > 0]
    parts: list[list[Item]] = [[] for _ in range(workers)]
    if level.is_open and not warmup:
        for j, it in enumerate(items):
            parts[active[j % len(active)]].append(it)
    else:
        weights = [(shares[i] or 1) if i in active else 0 for i in range(workers)]
        counts = split_by(len(items), weights)
        k = 0
        for i, n in enumerate(counts):
            parts[i] = items[k:k + n]
            k += n
    out = []
    for i in range(workers):
        if warmup or not level.is_open:
            conc = max(1, min(shares[i] or len(parts[i]) or 1, len(parts[i]) or 1))
            out.append(Part(label, False, parts[i], concurrency=conc))
        else:
            out.append(Part(label, True, parts[i], request_rate=level.request_rate, max_in_flight=shares[i]))
    return out


# --------------------------------------------------------------------------- workers


class _Handle:
    """One load worker as the coordinator sees it (a process here, or a Ray actor)."""

    index: int
    info: dict[str, Any]
    offset_ns: int = 0            # worker clock − coordinator clock
    offset_error_ns: int = 0      # bound on the error of ``offset_ns``
    taken: int = 0                # bytes of its file already merged
    lost: str | None = None

    def send(self, method: str, *args: Any) -> None: ...
    def result(self, timeout_s: float) -> Any: ...
    def take(self) -> str: ...
    def salvage(self) -> str: ...
    def kill(self) -> None: ...
    def close(self) -> None: ...

    def started(self, timeout_s: float) -> dict[str, Any]:
        """Wait until the worker runs; its :meth:`Shard.info`."""
        return self.call("info", timeout_s=timeout_s)

    def call(self, method: str, *args: Any, timeout_s: float = 60.0) -> Any:
        self.send(method, *args)
        return self.result(timeout_s)


class ProcessWorker(_Handle):
    """A load worker in a process of this host (multiprocessing ``spawn``; its pipe carries the
    commands, its file on this disk the records)."""

    def __init__(self, index: int, spec: ShardSpec) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.index, self.spec = index, spec
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=process_main, args=(spec, child, os.getpid()),
                                 name=f"tokcheck-load-{index}")
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._proc.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        child.close()
        self.info = {}

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def started(self, timeout_s: float) -> dict[str, Any]:
        return self.result(timeout_s)  # the process says it runs with its info, unasked

    def send(self, method: str, *args: Any) -> None:
        try:
            self._conn.send((method, args))
        except (BrokenPipeError, OSError) as err:
            raise WorkerLost(f"its process is gone ({err})") from None

    def result(self, timeout_s: float) -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                ready = self._conn.poll(0.2)
            except (EOFError, OSError):
                ready = False
            if ready:
                try:
                    kind, value = self._conn.recv()
                except (EOFError, OSError):
                    raise WorkerLost(f"its process died (exit code {self._proc.exitcode})") from None
                if kind == "error":
                    raise WorkerLost(value)
                return value
            if not self._proc.is_alive():
                raise WorkerLost(f"its process died (exit code {self._proc.exitcode})")
            if time.monotonic() > deadline:
                raise WorkerLost(f"no answer within {timeout_s:.0f} s")

    def take(self) -> str:
        text, self.taken = read_lines(self.spec.requests_path, self.taken)
        return text

    def salvage(self) -> str:
        wait_gone(self.info.get("measure_pid"), 30.0)
        return self.take()

    def kill(self) -> None:
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)

    def close(self) -> None:
        if self._proc.is_alive() and self.lost is None:
            try:
                self.call("close", timeout_s=60)
            except WorkerLost:
                pass
        self._proc.join(10)
        if self._proc.is_alive():  # pragma: no cover - defensive
            self.kill()
        self._conn.close()


class _RayShard:
    """The Ray actor around a :class:`Shard` (created by :class:`RayWorker`)."""

    def __init__(self, spec: ShardSpec) -> None:
        from tokcheck.loadgen.shard import Shard

        self.shard = Shard(spec)

    def call(self, method: str, *args: Any) -> Any:
        return getattr(self.shard, method)(*args)

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def remove_work(self) -> None:
        """Remove this worker's folder (its file is merged by then; on another host nothing else
        would)."""
        shutil.rmtree(Path(self.shard.spec.requests_path).parent, ignore_errors=True)


def _read_tail(path: str, offset: int, measure_pid: int | None) -> tuple[str, int]:
    """(A Ray task placed on a lost actor's node.) The rest of its file once its measurement
    worker has written all it was handed."""
    wait_gone(measure_pid, 30.0)
    return read_lines(path, offset)


class RayWorker(_Handle):
    """A load worker as a Ray actor (``num_cpus=0``: it does not take a CPU slot from Ray's
    accounting), placed on ``node_id`` when given, else spread over the cluster's nodes."""

    def __init__(self, index: int, spec: ShardSpec, node_id: str | None) -> None:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.index, self.spec = index, spec
        strategy = NodeAffinitySchedulingStrategy(node_id, soft=False) if node_id else "SPREAD"
        actor_cls = ray.remote(_RayShard)
        self._actor = actor_cls.options(num_cpus=0, max_restarts=0, max_task_retries=0,
                                        scheduling_strategy=strategy,
                                        name=f"tokcheck-load-{index}-{uuid.uuid4().hex[:6]}").remote(spec)
        self._ref = None
        self.node_id: str | None = node_id
        self.info = {}

    def where(self) -> str:
        """The id of the Ray node the actor runs on."""
        import ray

        return ray.get(self._actor.node.remote(), timeout=60)

    def send(self, method: str, *args: Any) -> None:
        self._ref = self._actor.call.remote(method, *args)

    def result(self, timeout_s: float) -> Any:
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

        try:
            return ray.get(self._ref, timeout=timeout_s)
        except GetTimeoutError:
            raise WorkerLost(f"no answer within {timeout_s:.0f} s") from None
        except RayActorError as err:
            raise WorkerLost(f"its Ray actor died ({str(err).splitlines()[0][:200]})") from None
        except RayTaskError as err:
            cause = err.cause if getattr(err, "cause", None) is not None else err
            raise WorkerLost(f"{type(cause).__name__}: {str(cause).splitlines()[0][:200]}") from None

    def take(self) -> str:
        text, self.taken = self.call("records", self.taken, timeout_s=120)
        return text

    def salvage(self) -> str:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if not self.node_id:
            return ""
        task = ray.remote(_read_tail).options(
            num_cpus=0, max_retries=0, scheduling_strategy=NodeAffinitySchedulingStrategy(self.node_id, soft=False))
        try:
            text, self.taken = ray.get(task.remote(self.spec.requests_path, self.taken,
                                                   self.info.get("measure_pid")), timeout=90)
        except Exception as err:  # the node itself is gone: what it held is lost with it
            self.lost = f"{self.lost}; its node could not be read ({type(err).__name__})"
            return ""
        return text

    def kill(self) -> None:
        import ray

        ray.kill(self._actor, no_restart=True)

    def close(self) -> None:
        import ray

        if self.lost is None:
            try:
                self.call("close", timeout_s=60)
                ray.get(self._actor.remove_work.remote(), timeout=60)
            except Exception:  # closing is best effort: the run is written by now
                pass
        try:
            ray.kill(self._actor, no_restart=True)
        except Exception:  # pragma: no cover - already gone
            pass


def _clock_offset(handle: _Handle, my_boot_id: str | None) -> None:
    """Set ``handle.offset_ns`` and its error bound (module doc, "Clocks")."""
    if my_boot_id and handle.info.get("boot_id") == my_boot_id:
        handle.offset_ns, handle.offset_error_ns = 0, 0
        return
    best: tuple[int, int] | None = None
    for _ in range(CLOCK_PINGS):
        t0 = time.perf_counter_ns()
        w = handle.call("clock", timeout_s=30)
        t1 = time.perf_counter_ns()
        rtt = t1 - t0
        if best is None or rtt < best[0]:
            best = (rtt, w - (t0 + t1) // 2)
    assert best is not None
    handle.offset_error_ns, handle.offset_ns = best[0] // 2, best[1]


def _ray_connect(address: str) -> dict[str, Any]:
    """Join (``address``: ``host:port`` of a running head, or ``auto``: the cluster this host
    belongs to, else a new local one) and describe the cluster; the seconds it took.

    Raises:
        TokcheckError: Ray is not installed, or the cluster cannot be reached.
    """
    try:
        import ray
    except ImportError:
        raise TokcheckError("--ray needs Ray: pip install 'tokcheck[ray]'") from None
    t0 = time.monotonic()
    if not ray.is_initialized():
        try:
            if address == "auto":
                try:
                    ray.init(address="auto", logging_level="ERROR", log_to_driver=False)
                except ConnectionError:  # no cluster on this host: a local one for this run
                    ray.init(include_dashboard=False, logging_level="ERROR", log_to_driver=False,
                             num_cpus=os.cpu_count() or 1, object_store_memory=100 * 1024 * 1024)
            else:
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        except Exception as err:
            raise TokcheckError(f"cannot join the Ray cluster at {address}: {str(err).splitlines()[0]}") from None
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return {"address": address, "ray_version": ray.__version__, "connect_s": round(time.monotonic() - t0, 3),
            "nodes": [{"node_id": n["NodeID"], "ip": n.get("NodeManagerAddress"),
                       "cpus": n.get("Resources", {}).get("CPU")} for n in nodes]}


def _placement(cluster: dict[str, Any], workers: int, nodes: list[str] | None) -> list[str | None]:
    """The node id of each worker: ``nodes`` (IP addresses or node ids, used in turn), else None
    (Ray spreads them).

    Raises:
        TokcheckError: a named node is not in the cluster.
    """
    if not nodes:
        return [None] * workers
    ids = []
    for want in nodes:
        hit = next((n["node_id"] for n in cluster["nodes"] if want in (n["ip"], n["node_id"])), None)
        if hit is None:
            known = ", ".join(n["ip"] for n in cluster["nodes"])
            raise TokcheckError(f"--ray-node {want} is not a node of the Ray cluster (its nodes: {known})")
        ids.append(hit)
    return [ids[i % len(ids)] for i in range(workers)]


# --------------------------------------------------------------------------- the run


def _records(handle: _Handle, text: str) -> list[RequestRecord]:
    """A worker's lines as records: ``worker`` set, stamps on the coordinator's clock."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        obj["worker"] = handle.index
        if handle.offset_ns:
            d = handle.offset_ns
            for k in _STAMPS:
                if obj.get(k) is not None:
                    obj[k] -= d
            obj["chunks"] = [[t - d, n] for t, n in obj.get("chunks") or []]
            if obj.get("empty_choice_ns"):
                obj["empty_choice_ns"] = [t - d for t in obj["empty_choice_ns"]]
        out.append(RequestRecord.model_validate(obj))
    return out


def run_bench_workers(
    config: BenchConfig,
    *,
    workers: int = 2,
    ray_address: str | None = None,
    ray_nodes: list[str] | None = None,
    conditions_extra: dict | None = None,
    hooks: list | None = None,
    progress: Progress | None = None,
    on_round: Callable[[str, int, list[_Handle]], None] | None = None,
) -> Summary:
    """:func:`~tokcheck.loadgen.bench.run_bench` with the load sent by ``workers`` load workers
    (see the module doc): processes of this host, or Ray actors when ``ray_address`` is given
    (``"auto"`` or ``host:port``; ``ray_nodes``: the node, by IP or id, of each worker in turn).

    ``progress`` is called for each merged record after each round; ``on_round(label, round,
    handles)`` after each round has started on every worker (tests use it to kill one).

    Returns:
        The :class:`~tokcheck.record.schema.Summary` (also written as ``summary.json``).

    Raises:
        TokcheckError: as :func:`run_bench`; also ``workers`` < 1, Ray missing or unreachable,
            a ``ray_nodes`` entry not in the cluster, or a worker that does not start.
    """
    if workers < 1:
        raise TokcheckError("--workers must be at least 1")
    hooks = list(hooks or [])
    prep = prepare(config)
    slo, tok, target, levels = prep.slo, prep.tok, prep.target, prep.levels
    server, prompts, tokenize_count, ceiling = prep.server, prep.prompts, prep.tokenize_count, prep.ceiling
    loopback = prep.loopback
    runner = _new_loop_runner()
    pool = ConnectionPool(target, reuse=config.connections == "reuse")
    try:
        probe = _probe(runner, config, target, pool, prompts[-1])
        event_loop = type(runner.get_loop()).__module__
    finally:
        pool.close()
        runner.close()

    cluster = _ray_connect(ray_address) if ray_address else None
    placement = _placement(cluster, workers, ray_nodes) if cluster else [None] * workers
    run_dir = RunDirectory(config.out or _default_out(config))
    work = Path(tempfile.mkdtemp(prefix="tokcheck-load-"))
    tok_json = Path(tok.source) if Path(tok.source).is_file() else Path(tok.source) / "tokenizer.json"
    me = host_facts()
    handles: list[_Handle] = []
    t_start = time.monotonic()
    try:
        for i in range(workers):
            spec = ShardSpec(
                index=i, url=config.url, api=config.api, model=config.model, input_len=config.input_len,
                output_len=config.output_len, temperature=config.temperature, extra_body=config.extra_body,
                timeout_s=config.timeout_s, connections=config.connections,
                include_usage=probe["include_usage"], output_forcing=probe["output_forcing"],
                tokenizer=str(tok_json), requests_path=str(work / f"worker-{i}" / "requests.jsonl"),
                api_key=config.api_key.get_secret_value() if config.api_key else None,
                ttft_floor_ms=ceiling.ttft_floor_ms if ceiling is not None else None, loopback=loopback,
                tokenizer_json=tok_json.read_bytes() if cluster else None)
            handles.append(RayWorker(i, spec, placement[i]) if cluster else ProcessWorker(i, spec))
        for h in handles:
            try:
                h.info = h.started(START_TIMEOUT_S)
                if isinstance(h, RayWorker) and h.node_id is None:
                    h.node_id = h.where()
                _clock_offset(h, me["boot_id"])
            except WorkerLost as err:
                _forget(run_dir)
                raise TokcheckError(f"load worker {h.index} did not start: {err}") from None
        start_s = time.monotonic() - t_start

        run = RunConditions.model_validate({
            **_conditions(config, tok, server, probe, prompts, tokenize_count, levels, event_loop, ceiling),
            **(conditions_extra or {})})
        if slo is not None:
            run.slo = {"spec": slo.spec, "text": slo.text, "source": slo.source}
        distributed: dict[str, Any] = {
            "backend": "ray" if cluster else "processes",
            "workers": [{"worker": h.index, **{k: h.info.get(k) for k in ("host", "pid", "boot_id", "event_loop")},
                         **({"node_id": h.node_id} if isinstance(h, RayWorker) else {}),
                         "clock_offset_ns": h.offset_ns, "clock_offset_error_ns": h.offset_error_ns}
                        for h in handles],
            "clock": ("one host: every worker shares this host's CLOCK_MONOTONIC (same kernel boot id), no "
                      "offset" if all(h.offset_error_ns == 0 for h in handles) else
                      f"offsets by the smallest of {CLOCK_PINGS} round-trips (Cristian's method); the error "
                      "bound is half that round-trip; durations never cross clocks"),
            "clock_offset_error_bound_ns": max(h.offset_error_ns for h in handles),
            "split": "closed loop: concurrency and requests split across workers; open loop: one Poisson "
                     "schedule per round, request j sent by worker j % N",
            "start_s": round(start_s, 3),
            "lost": [],
        }
        if cluster:
            distributed["ray"] = cluster
        run.distributed = distributed
        run_dir.write_run(run)
        summary = Summary(run_id=run.run_id, run_dir=str(run_dir.path), levels=[])
        log = RequestLog(run_dir.requests_path)
        rounds_log: list[dict[str, Any]] = []
        stop = False
        next_prompt = 0
        planned_in_level = 0
        label, lv = None, None

        def merge(hs: list[_Handle], lost: bool = False) -> None:
            got: list[RequestRecord] = []
            for h in hs:
                try:
                    text = h.salvage() if lost or h.lost else h.take()
                except WorkerLost as err:
                    _lose(h, str(err))
                    text = h.salvage()
                got += _records(h, text)
            got.sort(key=lambda r: (r.t_end_ns or 0))
            for r in got:
                log.append(r)
                if progress is not None:
                    progress(r.level, r.error is None, planned_in_level, r.warmup)

        def _lose(h: _Handle, why: str) -> None:
            nonlocal stop
            if h.lost is None:
                h.lost = why
                distributed["lost"].append({"worker": h.index, "level": label, "why": why})
                h.kill()
            stop = True

        def alive() -> list[_Handle]:
            return [h for h in handles if h.lost is None]

        def each(hs: list[_Handle], method: str, args_of: Callable[[_Handle], tuple], timeout_s: float) -> dict:
            out = {}
            for h in hs:
                try:
                    h.send(method, *args_of(h))
                except WorkerLost as err:
                    _lose(h, str(err))
            for h in hs:
                if h.lost is None:
                    try:
                        out[h.index] = h.result(timeout_s)
                    except WorkerLost as err:
                        _lose(h, str(err))
            return out

        def run_round(round_no: int, parts: list[Part]) -> None:
            hs = [h for h in alive() if parts[h.index].items]
            each(hs, "prepare", lambda h: (parts[h.index],), 120)
            hs = [h for h in hs if h.lost is None]
            t0 = time.perf_counter_ns() + START_MARGIN_NS
            deadline = max(_round_worst_s(parts[h.index], config.timeout_s) for h in hs) + ROUND_SLACK_S if hs else 1
            for h in hs:
                try:
                    h.send("go", t0 + h.offset_ns)
                except WorkerLost as err:
                    _lose(h, str(err))
            if on_round is not None:
                on_round(label, round_no, hs)
            for h in hs:
                if h.lost is None:
                    try:
                        got = h.result(deadline)
                        rounds_log.append({"level": label, "round": round_no, "worker": h.index, **got})
                    except WorkerLost as err:
                        _lose(h, str(err))
            each([h for h in hs if h.lost is None], "sync", lambda h: (), 600)
            merge(hs)

        try:
            _call_hooks(hooks, "on_run_start", run_dir.path)
            for lv in levels:
                label = lv.label
                _call_hooks(hooks, "before_level", label)
                n_round = config.per_round(lv)
                planned_in_level = config.warmup + config.rounds * n_round
                each(alive(), "begin_level", lambda h: (), 60)
                index = 0
                batches: list[tuple[int, bool, list[Item]]] = []
                for r in range(0 if config.warmup else 1, config.rounds + 1):
                    count = config.warmup if r == 0 else n_round
                    offsets = (poisson_offsets_ns(lv.request_rate, count, config.seed + r)
                               if lv.is_open and r > 0 else [None] * count)
                    items = [Item(r, index + k, r == 0, next_prompt + k, prompts[next_prompt + k], offsets[k])
                             for k in range(count)]
                    index += count
                    next_prompt += count
                    batches.append((r, r == 0, items))
                for r, warm, items in batches:
                    if stop:
                        break
                    run_round(r, plan_round(lv, workers, items, warmup=warm, label=label))
                raws = each(alive(), "end_level", lambda h: (), 60)
                records = [r for r in read_requests(run_dir.path) if r.level == label]
                level_summary = summarize_level(records, lv, slo, input_len=config.input_len,
                                                output_len=config.output_len)
                per_worker = []
                for h in handles:
                    mine = [r for r in records if r.worker == h.index]
                    if not mine and h.index not in raws:
                        continue
                    per_worker.append((h.index, raws.get(h.index), mine,
                                       summarize_level(mine, lv, None, input_len=config.input_len,
                                                       output_len=config.output_len)))
                health = workers_health(per_worker, records, level_summary,
                                        ceiling.tok_s if ceiling is not None else None)
                level_summary.client = health
                if health.bound:
                    level_summary.warnings.append("the client, not the server, limited these numbers: "
                                                  + "; ".join(health.reasons))
                for loss in distributed["lost"]:
                    if loss["level"] == label:
                        level_summary.warnings.append(
                            f"load worker {loss['worker']} was lost ({loss['why']}); the requests it completed "
                            "are kept and the run stopped after this round")
                tele = _call_hooks(hooks, "after_level", label)
                level_summary.telemetry = Telemetry.model_validate(tele) if tele else None
                summary.levels.append(level_summary)
                run_dir.write_summary(summary)
                if stop:
                    summary.interrupted = True
                    break
        except KeyboardInterrupt:
            for h in handles:
                h.lost = h.lost or "interrupted"
                h.kill()
            merge(handles, lost=True)
            save_interrupted(run_dir, run, summary, label, lv, slo, config)
            raise
        finally:
            log.close()
        errors = []
        for h in alive():
            try:
                errors += h.call("sync", timeout_s=600)
            except WorkerLost:
                pass
        if errors:
            run.measurement_errors = errors[:20]
        distributed["rounds"] = rounds_log
        run.distributed = distributed
        if stop:
            run.interrupted = True
        return finish_run(run_dir, run, summary, config, hooks)
    finally:
        for h in handles:
            try:
                h.close()
            except Exception:  # pragma: no cover - never let one worker's close hide the run
                print(f"tokcheck: load worker {h.index} did not close cleanly", file=sys.stderr)
        run_dir.close()
        shutil.rmtree(work, ignore_errors=True)


def _forget(run_dir: RunDirectory) -> None:
    """Undo an empty run directory (nothing was sent from it), so that the same ``--out`` can be
    given again."""
    try:
        if run_dir.requests_path.stat().st_size == 0:
            run_dir.requests_path.unlink()
            run_dir.path.rmdir()  # only when nothing else is in it
    except OSError:
        pass


def _round_worst_s(part: Part, timeout_s: float) -> float:
    """The longest a worker's part may take when every request runs to its timeout, s."""
    n = len(part.items)
    if part.open_loop:
        last = max((it.offset_ns or 0 for it in part.items), default=0) / 1e9
        slots = part.max_in_flight or n or 1
        return last + timeout_s * -(-n // slots)
    return timeout_s * -(-n // max(1, part.concurrency or 1))


def describe_workers(run: dict[str, Any]) -> str | None:
    """One line on a run's load workers for a terminal (None for a single-process run)."""
    d = run.get("distributed") if isinstance(run, dict) else None
    if not d:
        return None
    hosts = sorted({w.get("host") for w in d.get("workers", [])})
    text = (f"{len(d.get('workers', []))} load workers ({d.get('backend')}) on {len(hosts)} host(s); "
            f"clock offset error ≤ {d.get('clock_offset_error_bound_ns', 0) / 1e6:.3f} ms")
    if d.get("lost"):
        text += "; lost: " + ", ".join(f"worker {x['worker']} ({x['why']})" for x in d["lost"])
    return text


