"""Measurement off the hot path: a worker process parses, counts and writes each finished
request while the event loop keeps stamping the others.

Why a process: reading one 256-token stream (HTTP framing, SSE, JSON, tokenizer, record) costs
about 3 ms of Python. Done on the event loop it delays every other stream's stamps and the next
send by that much (benchmarks/README.md has the before/after); in a thread it would hold the GIL
for as long. The loop only hands over ``(meta, exchange)`` through a ``multiprocessing.Queue``
(its feeder thread pickles and writes), and the worker appends each record to
``requests.jsonl`` and flushes it at once, so a Ctrl-C or a crash of the main process loses
nothing that completed. The worker is started with multiprocessing's ``spawn`` (never ``fork``
in a process with threads), so, as with any spawn user, a script calling
:func:`tokcheck.loadgen.bench.run_bench` needs an ``if __name__ == "__main__":`` guard. The worker ignores SIGINT and drains its queue before it exits. It runs
at the lowest CPU priority (``nice 19``).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
import time
from pathlib import Path

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.measure import RequestMeta
from tokcheck.loadgen.recorder import Exchange

_STOP = "stop"
_SYNC = "sync"


def _worker(requests_path: str, tokenizer_path: str, inbox: mp.Queue, outbox: mp.Queue, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Lowest CPU priority: on a small machine the server under test and the event loop that
    # stamps chunks must never wait for bookkeeping (it catches up when the cores are idle).
    try:
        os.nice(19)
    except OSError:  # pragma: no cover - not permitted: run at normal priority
        pass
    from tokcheck.loadgen.measure import measure_request
    from tokcheck.loadgen.tokens import load_tokenizer

    from tokcheck.record.store import RequestLog

    tok = load_tokenizer(tokenizer_path)
    outbox.put(("ready", None))
    with RequestLog(requests_path) as out:
        while True:
            try:
                item = inbox.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:  # the main process is gone: nothing more will come
                    return
                continue
            kind = item[0]
            if kind == _STOP:
                return
            if kind == _SYNC:
                outbox.put((_SYNC, item[1]))
                continue
            _, meta, ex = item
            try:
                out.append(measure_request(ex, meta, tok))
            except Exception as err:  # never lose the worker to one odd stream
                outbox.put(("error", f"{type(err).__name__}: {err}"))


class MeasureWorker:
    """Owns ``requests.jsonl`` for a run; see the module doc."""

    def __init__(self, requests_path: Path, tokenizer_path: str) -> None:
        ctx = mp.get_context("spawn")  # never fork a process that runs threads and an event loop
        self._inbox: mp.Queue = ctx.Queue()
        self._outbox: mp.Queue = ctx.Queue()
        self._proc = ctx.Process(
            target=_worker,
            args=(str(requests_path), tokenizer_path, self._inbox, self._outbox, os.getpid()),
            name="tokcheck-measure",
            daemon=True,
        )
        # Start it with SIGINT blocked (the child keeps the mask; ours delivers a pending one on
        # restore): a Ctrl-C while it boots would otherwise hit it before it ignores SIGINT and
        # print a traceback. CPython's resource_tracker starts its process the same way.
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._proc.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        self._sync_no = 0
        self._closed = False
        self.errors: list[str] = []
        kind, _ = self._get(timeout=120)
        if kind != "ready":  # pragma: no cover - defensive
            raise RuntimeError("measurement worker did not start")
        # The queue starts its feeder thread on the first put, and Thread.start() waits until
        # the new thread runs: done at the first request's end, that held the event loop for
        # ~7 ms on a busy machine (benchmarks/README.md). Start it now, before any level.
        self.sync()

    def _get(self, timeout: float):
        deadline = time.monotonic() + timeout
        while True:
            try:
                kind, value = self._outbox.get(timeout=1.0)
            except queue.Empty:
                if not self._proc.is_alive():
                    raise TokcheckError(
                        f"the measurement worker stopped (exit code {self._proc.exitcode}); "
                        "requests.jsonl holds what it wrote. A script that calls run_bench must "
                        "guard its entry point with if __name__ == '__main__': (multiprocessing spawn)"
                    ) from None
                if time.monotonic() > deadline:
                    raise TokcheckError("the measurement worker did not answer in time") from None
                continue
            if kind == "error":
                self.errors.append(value)
                continue
            return kind, value

    @property
    def pid(self) -> int | None:
        """The worker process's id (for the client's CPU accounting)."""
        return self._proc.pid

    def submit(self, meta: RequestMeta, ex: Exchange) -> None:
        """Hand over one finished request (never blocks the event loop)."""
        self._inbox.put(("req", meta, ex))

    def sync(self, timeout: float = 600) -> None:
        """Return once every request submitted so far is on disk."""
        self._sync_no += 1
        self._inbox.put((_SYNC, self._sync_no))
        while True:
            kind, value = self._get(timeout=timeout)
            if kind == _SYNC and value == self._sync_no:
                return

    def close(self, timeout: float = 60) -> None:
        """Drain the queue, write what is left, and stop the worker (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._proc.is_alive():
            self._inbox.put((_STOP, None))
            self._proc.join(timeout)
        if self._proc.is_alive():  # pragma: no cover - defensive
            self._proc.terminate()
            self._proc.join(5)
        self._inbox.close()
        self._outbox.close()
