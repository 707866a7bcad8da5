"""The streaming recorder: one HTTP/1.1 exchange on a raw asyncio protocol.

Why not aiohttp here: the hot path must only stamp ``time.perf_counter_ns()`` per read and keep
the bytes (keep the recorder dumb). aiohttp's streaming reader parses HTTP and wakes a coroutine per chunk;
a plain ``asyncio.Protocol`` gets ``data_received`` straight from the event loop's read callback,
so the stamp is taken at the earliest moment Python sees the bytes, and ``t_send`` is taken right
after the request bytes are handed to the kernel (``transport.write`` on a connected socket
sends at once). benchmarks/README.md has the measured effect against ``vllm bench serve``
(aiohttp). All HTTP and SSE parsing happens afterwards (:mod:`.wire`, :mod:`tokcheck.loadgen.sse`).

One connection per request (``Connection: close``): the connect happens before ``t_send`` and
is therefore in the queue delay, not in TTFT. The end of the response is found by the server
closing the connection, or — for servers that keep it open anyway — by a cheap tail check for
the last chunk of a chunked body, confirmed by a full framing parse.
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


def build_request(target: Target, path: str, body: bytes, api_key: str | None) -> bytes:
    """The raw bytes of a POST with a JSON body (the API key only ever lives in these bytes)."""
    head = (
        f"POST {target.base_path}{path} HTTP/1.1\r\n"
        f"Host: {target.host_header}\r\n"
        "User-Agent: tokcheck\r\n"
        "Content-Type: application/json\r\n"
        "Accept: text/event-stream\r\n"
        "Connection: close\r\n"
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
    """Stamps and keeps each read; decides only *whether the response has ended*."""

    def __init__(self, done: asyncio.Future) -> None:
        self.reads: list[tuple[int, bytes]] = []
        self.done = done
        self.transport: asyncio.Transport | None = None
        self.headers_seen = False
        self.mode = 0  # 0 headers pending, 1 chunked, 2 content-length, 3 until close
        self.size = 0
        self.need = 0
        self.tail = b""
        self.t_end: int | None = None
        self.lost: BaseException | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        t = perf_counter_ns()
        self.reads.append((t, data))
        self.size += len(data)
        mode = self.mode
        if mode == 1:
            # The last chunk is "0\r\n\r\n" (no trailers from these servers); SSE data chunks
            # end in "\n\r\n", so this test is almost always false and costs one comparison.
            if data[-4:] == b"\r\n\r\n" or len(data) < 5:
                tail = (self.tail + data)[-5:]
                self.tail = tail
                if tail == b"0\r\n\r\n":
                    self._confirm_chunked(t)
            else:
                self.tail = data[-5:]
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
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self.mode = 1
            self.tail = buf[-5:]
            if self.tail == b"0\r\n\r\n":
                self._confirm_chunked(t)
        elif headers.get("content-length", "").isdigit():
            self.mode = 2
            self.need = he + int(headers["content-length"])
            if self.size >= self.need:
                self._finish(t)
        else:
            self.mode = 3

    def _confirm_chunked(self, t: int) -> None:
        if wire.parse_response(self.reads).complete:
            self._finish(t)

    def _finish(self, t: int) -> None:
        if self.t_end is None:
            self.t_end = t
        if not self.done.done():
            self.done.set_result(None)
        if self.transport is not None:
            self.transport.close()

    def eof_received(self):
        if self.t_end is None:
            self.t_end = perf_counter_ns()
        if not self.done.done():
            self.done.set_result(None)
        return False

    def connection_lost(self, exc) -> None:
        if self.t_end is None:
            self.t_end = perf_counter_ns()
            self.lost = exc
        if not self.done.done():
            self.done.set_result(None)

    def on_timeout(self) -> None:
        if not self.done.done():
            self.done.set_exception(TimeoutError())


_SSL_CONTEXT: ssl_module.SSLContext | None = None


async def exchange(target: Target, request: bytes, timeout_s: float) -> Exchange:
    """Send one request and record the response until it ends, fails or ``timeout_s`` passes.

    Never raises for network failures (they are data, returned in ``Exchange.error``);
    ``asyncio.CancelledError`` propagates after the connection is aborted.
    """
    global _SSL_CONTEXT
    loop = asyncio.get_running_loop()
    ex = Exchange()
    done = loop.create_future()
    ssl = None
    if target.tls:
        if _SSL_CONTEXT is None:
            _SSL_CONTEXT = ssl_module.create_default_context()
        ssl = _SSL_CONTEXT
    try:
        transport, proto = await asyncio.wait_for(
            loop.create_connection(lambda: _Recorder(done), target.host, target.port, ssl=ssl),
            timeout_s,
        )
    except (OSError, TimeoutError) as err:
        ex.error = ("connect_error", f"{type(err).__name__}: {err}"[:300])
        ex.t_end_ns = perf_counter_ns()
        return ex
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
    if ex.error is None and proto.lost is not None:
        ex.error = ("connection_reset", f"{type(proto.lost).__name__}: {proto.lost}"[:300])
    return ex
