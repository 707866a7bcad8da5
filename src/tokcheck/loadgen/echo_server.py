"""A fast OpenAI-compatible echo server on loopback: the known server behind ``tokcheck probe``.

It streams ``max_tokens`` words, each one token in the probe's word-level tokenizer
(:data:`WORDS`), the way a batching engine does: one tick every ``itl_ms`` writes the next token
of every active stream, each in its own write, the first one at the first tick at least
``ttft_ms`` after the request was read (``ttft_ms`` 0: at once). Every chunk carries the
server's own ``time.perf_counter_ns()`` at its write (``tokcheck_write_ns``; the same monotonic
clock as the client's on Linux), so the client can see how late it stamped each read. Chunks are
built from pre-encoded bytes, so the server's own cost per token stays small beside the client's.

Routes: ``POST /v1/completions`` (streaming; ``stream_options.include_usage`` honoured),
``GET /v1/models``, ``POST /_script`` (JSON ``{"ttft_ms", "itl_ms"}``), ``GET /_stats``
(per request ``recv_ns``, ``first_ns``, ``end_ns``, ``tokens``), ``POST /_reset``.

Run: ``python -m tokcheck.loadgen.echo_server [--port 0]``; prints ``PORT <n>`` when listening.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from time import perf_counter_ns

#: The probe's vocabulary: 2,000 three-letter lowercase words (consonant, vowel, consonant),
#: each one token of the word-level tokenizer the probe builds from them.
WORDS: tuple[str, ...] = tuple(
    a + b + c for a, b, c in itertools.product("bcdfghjklmnpqrstvwxz", "aeiou", "bcdfghjklmnpqrstvwxz"))[:2000]


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _json_response(status: int, obj, keep: bool) -> bytes:
    body = json.dumps(obj).encode()
    return (f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if keep else 'close'}\r\n\r\n").encode() + body


class _Stream:
    __slots__ = ("writer", "n", "sent", "start_ns", "stat", "usage", "keep", "done", "pre")

    def __init__(self, writer, n: int, start_ns: int, stat: dict, usage: bool, keep: bool, pre: bytes) -> None:
        self.writer, self.n, self.sent, self.start_ns = writer, n, 0, start_ns
        self.stat, self.usage, self.keep, self.pre = stat, usage, keep, pre
        self.done = asyncio.get_running_loop().create_future()


class EchoServer:
    """The server's state: its script, the active streams and the ticker that feeds them."""

    def __init__(self) -> None:
        self.ttft_ns = 20_000_000
        self.itl_ns = 2_000_000
        self.active: list[_Stream] = []
        self.stats: list[dict] = []
        self.count = 0
        self.wake = asyncio.Event()
        self.word_bytes = [json.dumps(" " + w).encode() for w in WORDS]

    async def ticker(self) -> None:
        """Every ``itl_ms``: one token to every active stream (absolute deadlines, so lateness
        does not add up; far behind, it starts afresh instead of bursting)."""
        next_t = perf_counter_ns()
        while True:
            if not self.active:
                self.wake.clear()
                await self.wake.wait()
                next_t = perf_counter_ns()
            now = perf_counter_ns()
            if next_t > now:
                await asyncio.sleep((next_t - now) / 1e9)
            next_t += self.itl_ns
            now = perf_counter_ns()
            if next_t < now - 50 * self.itl_ns:
                next_t = now
            self._tick(now)

    def _tick(self, now: int) -> None:
        words = self.word_bytes
        finished = []
        for st in self.active:
            if now < st.start_ns:
                continue
            last = st.sent + 1 >= st.n
            t = perf_counter_ns()
            data = st.pre + words[st.sent % len(words)] + (
                b',"finish_reason":"length"}],"tokcheck_write_ns":%d}\n\n' % t if last
                else b',"finish_reason":null}],"tokcheck_write_ns":%d}\n\n' % t)
            out = [_chunk(data)]
            if st.stat["first_ns"] is None:
                st.stat["first_ns"] = t
            st.sent += 1
            if last:
                if st.usage:
                    out.append(_chunk(b'data: {"id":"%s","object":"text_completion","choices":[],"usage":'
                                      b'{"prompt_tokens":0,"completion_tokens":%d,"total_tokens":%d}}\n\n'
                                      % (st.stat["id"].encode(), st.n, st.n)))
                out.append(_chunk(b"data: [DONE]\n\n"))
                out.append(b"0\r\n\r\n")
                st.stat["end_ns"] = perf_counter_ns()
                st.stat["tokens"] = st.sent
                finished.append(st)
            st.writer.write(out[0] if len(out) == 1 else b"".join(out))
        for st in finished:
            self.active.remove(st)
            if not st.done.done():
                st.done.set_result(None)

    async def stream(self, writer, body: dict, t_recv: int, keep: bool) -> None:
        n = max(1, int(body.get("max_tokens") or 16))
        rid = f"echo-{self.count}"
        self.count += 1
        stat = {"id": rid, "recv_ns": t_recv, "first_ns": None, "end_ns": None, "tokens": 0}
        self.stats.append(stat)
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                     b"Connection: " + (b"keep-alive" if keep else b"close") + b"\r\n\r\n")
        pre = b'data: {"id":"%s","object":"text_completion","choices":[{"index":0,"text":' % rid.encode()
        st = _Stream(writer, n, t_recv + self.ttft_ns, stat, usage, keep, pre)
        if self.ttft_ns <= 0:  # at once: the first token with the headers' turn
            self._tick_one(st)
        if st.sent < st.n:
            self.active.append(st)
            self.wake.set()
            await st.done

    def _tick_one(self, st: _Stream) -> None:
        self.active.append(st)
        self._tick(perf_counter_ns())
        if st in self.active:
            self.active.remove(st)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path = (lines[0].split(" ") + ["", ""])[:2]
                headers = {}
                for line in lines[1:]:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                t_recv = perf_counter_ns()
                keep = headers.get("connection", "").lower() != "close"
                path = path.split("?")[0]
                if path in ("/v1/completions", "/v1/chat/completions") and method == "POST":
                    await self.stream(writer, json.loads(raw or b"{}"), t_recv, keep)
                elif path == "/v1/models":
                    writer.write(_json_response(200, {"object": "list", "data": [{"id": "echo", "object": "model"}]},
                                                keep))
                elif path == "/_script" and method == "POST":
                    sc = json.loads(raw or b"{}")
                    self.ttft_ns = int(float(sc.get("ttft_ms", self.ttft_ns / 1e6)) * 1e6)
                    self.itl_ns = max(100_000, int(float(sc.get("itl_ms", self.itl_ns / 1e6)) * 1e6))
                    writer.write(_json_response(200, {"ttft_ms": self.ttft_ns / 1e6, "itl_ms": self.itl_ns / 1e6},
                                                keep))
                elif path == "/_stats":
                    writer.write(_json_response(200, self.stats, keep))
                elif path == "/_reset":
                    self.stats = []
                    writer.write(_json_response(200, {}, keep))
                else:
                    writer.write(_json_response(404, {"error": {"message": f"no route {path}"}}, keep))
                await writer.drain()
                if not keep:
                    writer.close()
                    return
        except (ConnectionError, asyncio.CancelledError):
            writer.transport.abort()


async def serve(host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve until cancelled; prints ``PORT <n>`` once listening."""
    state = EchoServer()
    server = await asyncio.start_server(state.handle, host, port, backlog=1024)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    ticker = asyncio.ensure_future(state.ticker())
    try:
        async with server:
            await server.serve_forever()
    finally:
        ticker.cancel()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    try:
        import uvloop

        uvloop.run(serve(args.host, args.port))
    except ImportError:  # pragma: no cover - uvloop is in the "fast" extra
        asyncio.run(serve(args.host, args.port))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
