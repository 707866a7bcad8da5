"""The streaming recorder: one HTTP/1.1 exchange on a raw asyncio protocol.

Why not aiohttp here: the hot path must only stamp ``time.perf_counter_ns()`` per read and keep
the bytes (keep the recorder dumb). aiohttp's streaming reader parses HTTP and wakes a coroutine per chunk;
a plain ``asyncio.Protocol`` gets ``data_received`` straight from the event loop's read callback,
so the stamp is taken at the earliest moment Python sees the bytes, and ``t_send`` is taken right
after the request bytes are handed to the kernel (``transport.write`` on a connected socket
sends at once). benchmarks/README.md has the measured effect against ``vllm bench serve``
(aiohttp). All HTTP and SSE parsing happens afterwards (:mod:`.wire`, :mod:`tokcheck.loadgen.sse`).

Connections (``--connections``): ``reuse`` (the default) keeps each connection open after its
response (HTTP/1.1 keep-alive) in a :class:`ConnectionPool` and sends the next request on it,
as ``vllm bench serve``'s aiohttp does; ``new`` opens one connection per request and asks the
server to close it (``Connection: close``). Either way a connect happens before ``t_send`` and
is therefore in the queue delay, not in TTFT. The end of a response is found by its framing
(a tail check for the last chunk of a chunked body — ``\r\n0\r\n\r\n``, one comparison per
read; ``Content-Length``), or by the server closing the connection. The loop never parses a
whole response: at 128 streams a full framing parse per response (~1.5 ms each, many ending
together) stalled it for 100 ms and more (benchmarks/README.md). The measurement worker parses
the framing fully afterwards, so a false end would be a recorded error, never a wrong number. A request sent on a reused
connection that the server had closed meanwhile (nothing came back at all) is sent once more on
a new connection.
"""

from __future__ import annotations

import asyncio
import ssl as ssl_module
from dataclasses import dataclass, field
from time import perf_counter_ns
from urllib.parse import urlsplit

from tokcheck.errors import TokcheckError
from tokcheck.loadgen import wire


@dataclass(frozen=True)
class Target:
    """Where requests go: ``host``, ``port``, ``base_path`` (no trailing slash), ``tls``."""

    host: str
    port: int
    base_path: str
    tls: bool

    @classmethod
    def from_url(cls, url: str) -> Target:
        """Parse ``http[s]://host[:port][/base]``. Raises TokcheckError on other schemes."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TokcheckError(f"bad server URL {url!r} — expected http://host:port")
        tls = parts.scheme == "https"
        port = parts.port or (443 if tls else 80)
        base = parts.path.rstrip("/")
        if base.endswith("/v1"):
            base = base[:-3]
        return cls(parts.hostname, port, base, tls)

    @property
    def host_header(self) -> str:
        default = 443 if self.tls else 80
        return self.host if self.port == default else f"{self.host}:{self.port}"


def build_request(target: Target, path: str, body: bytes, api_key: str | None, *, keep_alive: bool = False) -> bytes:
    """The raw bytes of a POST with a JSON body (the API key only ever lives in these bytes).
    ``keep_alive``: leave the connection open for the next request (else ``Connection: close``)."""
    head = (
        f"POST {target.base_path}{path} HTTP/1.1\r\n"
        f"Host: {target.host_header}\r\n"
        "User-Agent: tokcheck\r\n"
        "Content-Type: application/json\r\n"
        "Accept: text/event-stream\r\n"
        + ("" if keep_alive else "Connection: close\r\n") +
        f"Content-Length: {len(body)}\r\n"
    )
    if api_key:
        head += f"Authorization: Bearer {api_key}\r\n"
    return head.encode("latin-1") + b"\r\n" + body


@dataclass
class Exchange:
    """What the recorder saw. Times are ``perf_counter_ns``.

    Attributes:
        t_send_ns: right after the request bytes were written (None if never sent).
        reads: every read as ``(arrival_ns, bytes)``.
        t_end_ns: when the response was known complete, or the connection ended.
        error: transport-level failure ``(kind, detail)``: ``connect_error``,
            ``connection_reset``, ``timeout_headers``, ``timeout_stream``; else None.
    """

    t_send_ns: int | None = None
    reads: list[tuple[int, bytes]] = field(default_factory=list)
    t_end_ns: int | None = None
    error: tuple[str, str] | None = None


class _Recorder(asyncio.Protocol):
    """Stamps and keeps each read; decides only *whether the response has ended*. One protocol
    per connection; :meth:`start` readies it for the next exchange on a kept-alive connection."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.stray = False  # bytes arrived while no exchange was waiting (the connection is unusable)
        self.done: asyncio.Future | None = None
        self.start(None, False)

    def start(self, done: asyncio.Future | None, keep: bool) -> None:
        self.reads: list[tuple[int, bytes]] = []
        self.done = done
        self.keep = keep  # may the connection stay open after this response?
        self.headers_seen = False
        self.mode = 0  # 0 headers pending, 1 chunked, 2 content-length, 3 until close
        self.size = 0
        self.need = 0
        self.tail = b""
        self.t_end: int | None = None
        self.framed_end = False  # the end was found by the framing (not by the connection ending)
        self.lost: BaseException | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        t = perf_counter_ns()
        if self.done is None or self.t_end is not None:
            self.stray = True
            return
        self.reads.append((t, data))
        self.size += len(data)
        mode = self.mode
        if mode == 1:
            # The last chunk is "0\r\n\r\n" right after the previous chunk's CRLF (no trailers
            # from these servers); SSE data chunks end in "\n\r\n", so this test is almost
            # always false and costs one comparison.
            if data[-4:] == b"\r\n\r\n" or len(data) < 7:
                tail = (self.tail + data)[-7:]
                self.tail = tail
                if tail == b"\r\n0\r\n\r\n":
                    self._finish(t)
            else:
                self.tail = data[-7:]
            return
        if mode == 2:
            if self.size >= self.need:
                self._finish(t)
            return
        if mode == 0:
            self._look_for_headers(t)

    def _look_for_headers(self, t: int) -> None:
        buf = b"".join(b for _, b in self.reads)
        he = wire.header_end(buf)
        if he is None:
            return
        self.headers_seen = True
        _, headers = wire.parse_head(buf[: he - 4])
        if "close" in headers.get("connection", "").lower() or buf.startswith(b"HTTP/1.0"):
            self.keep = False
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self.mode = 1
            self.tail = buf[-7:]
            if self.tail == b"\r\n0\r\n\r\n":
                self._finish(t)
        elif headers.get("content-length", "").isdigit():
            self.mode = 2
            self.need = he + int(headers["content-length"])
            if self.size >= self.need:
                self._finish(t)
        else:
            self.mode = 3
            self.keep = False

    def _finish(self, t: int) -> None:
        if self.t_end is None:
            self.t_end = t
            self.framed_end = True
        if self.done is not None and not self.done.done():
            self.done.set_result(None)
        if not self.keep and self.transport is not None:
            self.transport.close()

    def eof_received(self):
        self.closed = True
        if self.t_end is None and self.done is not None:
            self.t_end = perf_counter_ns()
        if self.done is not None and not self.done.done():
            self.done.set_result(None)
        return False

    def connection_lost(self, exc) -> None:
        self.closed = True
        if self.t_end is None and self.done is not None:
            self.t_end = perf_counter_ns()
            self.lost = exc
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    def on_timeout(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_exception(TimeoutError())


_SSL_CONTEXT: ssl_module.SSLContext | None = None


def connect_detail(target: Target, err: BaseException) -> str:
    """A connect failure in words: "nothing is listening on HOST:PORT" for a refused
    connection, else the system's own message (no exception class names)."""
    if isinstance(err, ConnectionRefusedError):
        return f"nothing is listening on {target.host}:{target.port}"
    if isinstance(err, TimeoutError):
        return f"no answer from {target.host}:{target.port} (connect timed out)"
    text = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return f"cannot connect to {target.host}:{target.port}: {text}"


class ConnectionPool:
    """Connections to one target for one event loop. ``reuse``: keep them alive between
    requests (idle ones wait here); else one connection per request. :meth:`close` closes the
    idle ones. ``opened`` counts connections made (for the record)."""

    def __init__(self, target: Target, reuse: bool = True) -> None:
        self.target = target
        self.reuse = reuse
        self._idle: list[tuple[asyncio.Transport, _Recorder]] = []
        self.opened = 0

    async def _connect(self, timeout_s: float) -> tuple[asyncio.Transport, _Recorder]:
        global _SSL_CONTEXT
        loop = asyncio.get_running_loop()
        ssl = None
        if self.target.tls:
            if _SSL_CONTEXT is None:
                _SSL_CONTEXT = ssl_module.create_default_context()
            ssl = _SSL_CONTEXT
        transport, proto = await asyncio.wait_for(
            loop.create_connection(_Recorder, self.target.host, self.target.port, ssl=ssl), timeout_s)
        self.opened += 1
        return transport, proto

    def _take_idle(self) -> tuple[asyncio.Transport, _Recorder] | None:
        while self._idle:
            transport, proto = self._idle.pop()
            if not proto.closed and not proto.stray and not transport.is_closing():
                return transport, proto
            transport.close()
        return None

    def _give_back(self, transport: asyncio.Transport, proto: _Recorder) -> None:
        proto.done = None
        if self.reuse and proto.keep and proto.framed_end and not proto.closed and not proto.stray:
            self._idle.append((transport, proto))
        else:
            transport.close()

    def close(self) -> None:
        for transport, _ in self._idle:
            transport.close()
        self._idle.clear()

    async def exchange(self, request: bytes, timeout_s: float) -> Exchange:
        """Send one request and record the response until it ends, fails or ``timeout_s`` passes.

        Never raises for network failures (they are data, returned in ``Exchange.error``);
        ``asyncio.CancelledError`` propagates after the connection is aborted.
        """
        loop = asyncio.get_running_loop()
        for attempt in (0, 1):
            ex = Exchange()
            conn = self._take_idle() if self.reuse else None
            reused = conn is not None
            if conn is None:
                try:
                    conn = await self._connect(timeout_s)
                except (OSError, TimeoutError) as err:
                    ex.error = ("connect_error", connect_detail(self.target, err))
                    ex.t_end_ns = perf_counter_ns()
                    return ex
            transport, proto = conn
            done = loop.create_future()
            proto.start(done, self.reuse)
            timer = loop.call_later(timeout_s, proto.on_timeout)
            try:
                transport.write(request)
                ex.t_send_ns = perf_counter_ns()
                await done
            except TimeoutError:
                kind = "timeout_stream" if proto.headers_seen else "timeout_headers"
                ex.error = (kind, f"no complete response within {timeout_s:g} s")
                transport.abort()
            except BaseException:
                transport.abort()
                raise
            finally:
                timer.cancel()
            ex.reads = proto.reads
            ex.t_end_ns = proto.t_end if proto.t_end is not None else perf_counter_ns()
            if reused and attempt == 0 and not ex.reads and ex.error is None and proto.closed and proto.lost is None:
                transport.close()  # the server had closed the idle connection (a clean FIN): send it again
                continue
            if ex.error is None and proto.lost is not None:
                err = proto.lost
                ex.error = ("connection_reset", f"the server reset the connection ({getattr(err, 'strerror', None) or err})")
            if ex.error is None:
                self._give_back(transport, proto)
            return ex
        raise AssertionError("unreachable")  # pragma: no cover


async def exchange(target: Target, request: bytes, timeout_s: float, pool: ConnectionPool | None = None) -> Exchange:
    """One request on ``pool`` (a new connection, closed after the response, without one);
    see :meth:`ConnectionPool.exchange`."""
    if pool is None:
        pool = ConnectionPool(target, reuse=False)
    return await pool.exchange(request, timeout_s)
