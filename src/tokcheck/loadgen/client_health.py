"""The client's own health while it measures (``docs/measurement.md``, "The client's own health").

A client that is starved — its event loop held off by another thread holding the GIL, by other
processes on its CPU, or by its own work — stamps late: a send stamped after the answer was
already waiting gives a TTFT of 0.1 ms, and tokens that waited in the socket arrive "at once".
Those numbers describe the client, not the server. So while levels run, :class:`ClientMonitor`
keeps a heartbeat on the recorder's event loop (a timer every :data:`HEARTBEAT_S`; its lateness
is the loop's lag) and reads the CPU time of the client processes and, on Linux, how long the
event-loop thread waited for a CPU (``/proc/self/task/<tid>/schedstat``, read at every beat).

A late heartbeat whose lateness is not explained by that wait — the thread was held off by
another thread holding the GIL, or by its own long work — is a **stall** of the client itself:
every stamp taken during it, or just after it, may be late by as much as the stall had lasted,
and the measurement marks requests whose TTFT, TPOT or E2E such stamps could move
(:mod:`tokcheck.loadgen.measure`). Lateness that *is* waiting for a CPU is the whole machine
being busy (the server may well have been late too, and the client cannot tell which); it is
summed per level as the mean wake-up latency and makes the level ``bound`` when it is large.
:func:`client_health` sums a level up and decides ``bound``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from bisect import bisect_left
from collections.abc import Awaitable
from pathlib import Path
from time import perf_counter_ns
from typing import Any, TypeVar

import numpy as np

from tokcheck.record.schema import ClientHealth, LevelSummary, Quantiles, RequestRecord

T = TypeVar("T")

#: Heartbeat period on the event loop, s: 500 wake-ups a second cost the loop ~2 ms of CPU a
#: second (measured: ~4 µs a beat), and resolve stalls a little above the loop's 1 ms timer
#: resolution.
HEARTBEAT_S = 0.002

#: A heartbeat later than this is a stall, ns: event-loop timers fire up to ~1 ms late by
#: design (millisecond resolution), so 2 ms is the first lateness that is not the timer's own.
STALL_NS = 2_000_000

#: ``bound`` when more than this share of a level's successful requests carry a client mark
#: (the same 10 % as the summary's rule for withholding TPOT, docs/measurement.md).
UNTRUSTED_MAX_SHARE = 0.10

#: ``bound`` when the event-loop thread used more than this share of one core: it was busy all
#: the time and could not read the sockets as the bytes came.
LOOP_CPU_BOUND_PERCENT = 90.0

#: ``bound`` when the event-loop thread waited, each time it was woken, longer than this for a
#: CPU on average (ms): every stamp is that much late on average, a fifth of a 5 ms ITL.
WAKEUP_LATENCY_BOUND_MS = 1.0

#: ``bound`` when a level's aggregate output throughput reaches this share of the client's
#: ceiling from ``tokcheck probe``: there the client, not the server, sets the pace.
CEILING_SHARE = 0.9


def _schedstat(tid: int) -> tuple[int, int, int] | None:
    """(ns on a CPU, ns waiting on a run queue, times scheduled) of a thread; None off Linux."""
    try:
        run, wait, slices = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[:3]
        return int(run), int(wait), int(slices)
    except (OSError, ValueError):
        return None


def _process_cpu_s(pid: int) -> float | None:
    """user + system CPU seconds of another process (Linux ``/proc/<pid>/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class ClientMonitor:
    """Heartbeat and CPU accounting for one bench run; see the module doc.

    Use :meth:`begin_level` / :meth:`end_level` around a level (outside the event loop), and
    :meth:`watch` around every coroutine the loop runs for it. :meth:`stalls_around` is cheap
    (a bisect) and is called on the hot path when a request ends.
    """

    def __init__(self, other_pids: list[int] | None = None) -> None:
        self.other_pids = list(other_pids or [])
        self._lags: list[int] = []
        self._stall_ends: list[int] = []
        self._stalls: list[tuple[int, int]] = []
        self._handle: asyncio.TimerHandle | None = None
        self._expected = 0
        self._tid = threading.get_native_id()
        self._start: dict[str, Any] = {}
        self._sched_fd: int | None = None
        self._waited = 0

    # ------------------------------------------------------------------ on the loop
    def _run_queue_wait_ns(self) -> int:
        """The loop thread's run-queue wait so far (ns; 0 where schedstat is unavailable)."""
        if self._sched_fd is None:
            return 0
        try:
            return int(os.pread(self._sched_fd, 128, 0).split()[1])
        except (OSError, ValueError, IndexError):
            return 0

    def _beat(self) -> None:
        now = perf_counter_ns()
        lag = now - self._expected
        waited = self._run_queue_wait_ns()
        self._lags.append(lag)
        if lag > STALL_NS and lag - (waited - self._waited) > STALL_NS:
            self._stalls.append((self._expected, now))
            self._stall_ends.append(now)
        self._waited = waited
        self._expected = now + int(HEARTBEAT_S * 1e9)
        self._handle = self._loop.call_later(HEARTBEAT_S, self._beat)

    async def watch(self, coro: Awaitable[T]) -> T:
        """Run ``coro`` with the heartbeat going (it stops when ``coro`` ends) and Python's cyclic
        garbage collector paused: a full collection over a run's objects held the loop for up to
        ~150 ms at 128 streams (benchmarks/README.md); what it would free waits for the end."""
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return await self._watch(coro)
        finally:
            if gc_was_enabled:
                gc.enable()

    async def _watch(self, coro: Awaitable[T]) -> T:
        self._loop = asyncio.get_running_loop()
        self._tid = threading.get_native_id()
        if self._sched_fd is None:
            try:
                self._sched_fd = os.open(f"/proc/self/task/{self._tid}/schedstat", os.O_RDONLY)
            except OSError:
                self._sched_fd = None
        self._waited = self._run_queue_wait_ns()
        self._expected = perf_counter_ns() + int(HEARTBEAT_S * 1e9)
        self._handle = self._loop.call_later(HEARTBEAT_S, self._beat)
        try:
            return await coro
        finally:
            if self._handle is not None:
                self._handle.cancel()
                self._handle = None

    def stalls_around(self, t_from_ns: int | None) -> tuple[tuple[int, int], ...]:
        """Stalls that ended at or after ``t_from_ns`` minus one stall's worth (ordered)."""
        if not self._stalls or t_from_ns is None:
            return ()
        i = bisect_left(self._stall_ends, t_from_ns)
        return tuple(self._stalls[i:])

    def close(self) -> None:
        """Release the schedstat file."""
        if self._sched_fd is not None:
            os.close(self._sched_fd)
            self._sched_fd = None

    # ------------------------------------------------------------------ between levels
    def _cpu(self) -> dict[str, Any]:
        t = os.times()
        others = [_process_cpu_s(p) for p in self.other_pids]
        return {"wall": time.perf_counter(), "self": t.user + t.system,
                "others": sum(x for x in others if x is not None),
                "sched": _schedstat(self._tid), "thread": None}

    def begin_level(self) -> None:
        """Start a level's accounting (clears the heartbeat samples and stalls)."""
        self._lags.clear()
        self._stalls.clear()
        self._stall_ends.clear()
        self._start = self._cpu()

    def end_level(self) -> dict[str, Any]:
        """The level's raw figures: lags (ns), stalls, CPU shares."""
        end = self._cpu()
        s = self._start or end
        wall = max(end["wall"] - s["wall"], 1e-9)
        out: dict[str, Any] = {
            "lags_ns": list(self._lags), "stalls": len(self._stalls),
            "cpu_percent": 100.0 * ((end["self"] - s["self"]) + (end["others"] - s["others"])) / wall,
            "loop_thread_cpu_percent": None, "run_queue_wait_percent": None, "wakeup_latency_ms": None,
        }
        if s.get("sched") and end.get("sched"):
            run = end["sched"][0] - s["sched"][0]
            wait = end["sched"][1] - s["sched"][1]
            slices = end["sched"][2] - s["sched"][2]
            out["loop_thread_cpu_percent"] = 100.0 * run / 1e9 / wall
            out["run_queue_wait_percent"] = 100.0 * wait / 1e9 / wall
            out["wakeup_latency_ms"] = wait / slices / 1e6 if slices > 0 else None
        return out


def _quantiles(values_ms: list[float]) -> Quantiles | None:
    if not values_ms:
        return None
    a = np.asarray(values_ms, dtype=float)
    return Quantiles(p50=float(np.percentile(a, 50)), p99=float(np.percentile(a, 99)), max=float(a.max()))


def client_health(raw: dict[str, Any] | None, records: list[RequestRecord], level: LevelSummary,
                  ceiling_tok_s: float | None = None) -> ClientHealth:
    """A level's :class:`~tokcheck.record.schema.ClientHealth` from :meth:`ClientMonitor.end_level`'s
    figures (``None``: not monitored) and the level's records, with ``bound`` and its reasons.

    ``bound`` is true when any of: more than :data:`UNTRUSTED_MAX_SHARE` of the successful
    requests carry a client mark; the event-loop thread used more than
    :data:`LOOP_CPU_BOUND_PERCENT` of a core; it waited on average more than
    :data:`WAKEUP_LATENCY_BOUND_MS` for a CPU each time it woke; the level's throughput reached
    :data:`CEILING_SHARE` of the client's ceiling.
    """
    raw = raw or {}
    ok = [r for r in records if not r.warmup and r.error is None]
    untrusted = [r for r in ok if r.client_marks]
    lags = [x / 1e6 for x in raw.get("lags_ns", [])]
    medians = [r.stamp_delay_ms for r in ok if r.stamp_delay_ms is not None]
    maxima = [r.stamp_delay_max_ms for r in ok if r.stamp_delay_max_ms is not None]
    stamp = None
    if medians:
        m = np.asarray(maxima, dtype=float)
        stamp = Quantiles(p50=float(np.median(medians)), p99=float(np.percentile(m, 99)), max=float(m.max()))
    health = ClientHealth(
        loop_lag_ms=_quantiles(lags), heartbeats=len(lags), stalls=int(raw.get("stalls", 0)),
        cpu_percent=raw.get("cpu_percent"), loop_thread_cpu_percent=raw.get("loop_thread_cpu_percent"),
        run_queue_wait_percent=raw.get("run_queue_wait_percent"), wakeup_latency_ms=raw.get("wakeup_latency_ms"),
        stamp_delay_ms=stamp, untrusted_requests=len(untrusted), ceiling_tok_s=ceiling_tok_s)
    reasons: list[str] = []
    if ok and len(untrusted) / len(ok) > UNTRUSTED_MAX_SHARE:
        worst = max(r.stamp_uncertainty_ms or 0.0 for r in untrusted)
        below = sum(1 for r in untrusted if "ttft_below_floor" in r.client_marks)
        reasons.append(f"the client could not vouch for the stamps of {len(untrusted)} of {len(ok)} requests "
                       f"(its event loop stalled around them, up to {worst:,.1f} ms"
                       + (f"; {below} TTFTs below the client's own floor" if below else "") + ")")
    loop_cpu = health.loop_thread_cpu_percent
    if loop_cpu is not None and loop_cpu > LOOP_CPU_BOUND_PERCENT:
        reasons.append(f"the client's event loop used {loop_cpu:.0f} % of a core: it could not read as fast "
                       "as the bytes came")
    wl = health.wakeup_latency_ms
    if wl is not None and wl > WAKEUP_LATENCY_BOUND_MS:
        reasons.append(f"the client's event loop waited {wl:.2f} ms for a CPU each time it woke "
                       f"({health.run_queue_wait_percent:.0f} % of the time): other work held the CPUs")
    thr = level.figure("output_throughput_tok_s").value
    if ceiling_tok_s and thr is not None and thr >= CEILING_SHARE * ceiling_tok_s:
        reasons.append(f"{thr:,.0f} tok/s is at this machine's client ceiling ({ceiling_tok_s:,.0f} tok/s, "
                       "tokcheck probe)")
    health.bound = bool(reasons)
    health.reasons = reasons
    return health
