"""A local OpenAI-compatible server with scripted timing — the known true values for tests
and for benchmarks/ (it is a real HTTP/1.1 server on loopback, not a mock of a client).

Run: ``python tests/scripted_server.py --tokenizer PATH [--port 0]``; it prints
``PORT <n>`` when listening. ``POST /_script`` (JSON) sets the script for the next requests
(unset keys take :data:`DEFAULT_SCRIPT`); ``GET /_stats`` returns the server's own stamps
(``time.perf_counter_ns``, the same monotonic clock as the client's on Linux) per request, with
the number of the connection it came on (``conn``);
``POST /_reset`` clears them.

Timing: every chunk of a request is scheduled against an absolute deadline,
``t_recv + ttft_ms + j · tokens_per_chunk · itl_ms`` for chunk j (t_recv: the request fully
read, or with ``max_running`` N the moment one of the N slots freed for it: a server at
capacity queues the rest), so lateness never accumulates; actual lateness is in ``/_stats``. With
``events_per_write`` E > 1, events are written E at a time in one ``write`` (at the deadline of
the group's first event), as a loaded server does: the client reads them together. Output tokens are
words that are one token each in the given tokenizer, so the true token count is exact.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tokcheck.loadgen.prompts import single_token_words  # noqa: E402
from tokcheck.loadgen.tokens import load_tokenizer  # noqa: E402

DEFAULT_SCRIPT: dict = {
    "ttft_ms": 20.0,          # request read → first token chunk written
    "itl_ms": 2.0,            # per output token
    "tokens_per_chunk": 1,    # > 1: speculative-decoding-like chunks
    "events_per_write": 1,    # > 1: that many SSE events in one socket write (coalesced reads)
    "output_tokens": None,    # None: the request's max_tokens
    "eos_after": None,        # early EOS after this many tokens (finish_reason "stop")
    "usage": "present",       # present | absent | wrong
    "usage_off_by": 0,        # with usage=wrong: completion_tokens reported off by this
    "prompt_off_by": 0,       # usage.prompt_tokens off by this
    "role_first": True,       # chat: a role-only first delta, sent at once (before TTFT)
    "special_tail": False,    # append "<|eos|>" text to the last chunk (not a counted token)
    "reject_params": [],      # 400 if any of these body keys is present (e.g. ["min_tokens"])
    "fault": None,            # see FAULTS
    "error_message": None,    # the message of a scripted HTTP error (default "scripted <code>")
    "fault_every": 1,         # fault on requests n with n % fault_every == 0 (n from 0)
    "fault_after_chunks": 2,  # mid-stream faults strike after this many chunks
    "keep_open": False,       # ignore "Connection: close" (client must find the end itself)
    "max_running": None,      # serve at most this many streams at once; the rest queue (a capacity)
    "reasoning_tokens": 0,    # chat: the first N output tokens stream as delta.reasoning_content
    "tool_call": False,       # chat: output streams as one tool call (name = the first token,
                              # arguments = the rest), finish_reason "tool_calls"
    "preamble": [],           # token-less chunks first: "empty_choices" (choices [] with content-filter
                              # metadata), "usage_only" (choices [] with usage), "ping" (an SSE comment)
    "ping_every": 0,          # > 0: an SSE comment ": ping" after every that many token chunks
    "write_stamps": False,    # put the server's perf_counter_ns at the write into each token chunk
    "max_model_len": None,    # stated in /v1/models for the model (None: not stated)
}

FAULTS = (
    "http_500", "http_429", "http_400", "reset_before_headers", "reset_mid_stream", "stall_before_headers",
    "stall_mid_stream", "malformed_json", "non_utf8", "missing_done", "cut_stream",
    "empty_choices",
)


class State:
    def __init__(self, tokenizer_path: str, model: str) -> None:
        self.tok = load_tokenizer(tokenizer_path)
        self.words = single_token_words(self.tok)
        self.model = model
        self.script = dict(DEFAULT_SCRIPT)
        self.count = 0
        self.connections = 0
        self.stats: list[dict] = []
        self.slots: asyncio.Semaphore | None = None


def _json_response(status: int, obj, close: bool = True) -> bytes:
    body = json.dumps(obj).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests",
              500: "Internal Server Error"}.get(status, "X")
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{'Connection: close' if close else 'Connection: keep-alive'}\r\n\r\n")
    return head.encode() + body


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _event(obj) -> bytes:
    return _chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")


def _content_text(content) -> str:
    """A chat message's text: a string, or the ``text`` parts of a list of content parts."""
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content or ""


def _rst(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


# Event-loop timers have millisecond granularity (libuv and epoll alike): they fire up to ~1 ms
# late, and sometimes a little early. With few streams the server wakes 1.2 ms early and spins
# to the deadline (cheap at that rate); with many, spinning would starve the client sharing the
# machine, so it only sleeps (lateness is then ~0.5 ms, reported in /_stats either way).
SPIN_STREAMS = 4
SPIN_NS = 1_200_000
ACTIVE = [0]


async def _sleep_until(deadline_ns: int) -> None:
    spin_ns = SPIN_NS if ACTIVE[0] <= SPIN_STREAMS else 200_000
    while True:
        delay = deadline_ns - time.perf_counter_ns()
        if delay <= 0:
            return
        if delay > spin_ns:
            await asyncio.sleep((delay - spin_ns) / 1e9)
        else:
            while time.perf_counter_ns() < deadline_ns:
                pass
            return


async def stream(state: State, writer, body: dict, api: str, t_recv: int, close: bool, conn: int = 0) -> None:
    ACTIVE[0] += 1
    try:
        await _stream(state, writer, body, api, t_recv, close, conn)
    finally:
        ACTIVE[0] -= 1


async def _stream(state: State, writer, body: dict, api: str, t_recv: int, close: bool, conn: int) -> None:
    sc = state.script
    n_req = state.count
    state.count += 1
    fault = sc["fault"] if sc["fault"] and n_req % max(1, sc["fault_every"]) == 0 else None
    stat = {"n": n_req, "id": f"cmpl-{n_req}", "recv_ns": t_recv, "first_ns": None, "last_ns": None, "end_ns": None,
            "late_max_ns": 0, "late_sum_ns": 0, "chunks": 0, "fault": fault, "conn": conn}
    state.stats.append(stat)
    for p in sc["reject_params"]:
        if p in body:
            writer.write(_json_response(400, {"error": {"message": f"unsupported parameter {p}"}}))
            return
    if fault in ("http_500", "http_429", "http_400"):
        code = int(fault[5:])
        writer.write(_json_response(code, {"error": {"message": sc["error_message"] or f"scripted {code}"}}))
        return
    if fault == "reset_before_headers":
        _rst(writer)
        return
    if fault == "stall_before_headers":
        await asyncio.sleep(3600)
        return
    max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or 16)
    n_out = int(sc["output_tokens"] or max_tokens)
    stop_reason = "length"
    if sc["eos_after"] is not None and sc["eos_after"] < n_out:
        n_out, stop_reason = int(sc["eos_after"]), "stop"
    k = max(1, int(sc["tokens_per_chunk"]))
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    conn = "close" if close and not sc["keep_open"] else "keep-alive"
    writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                 f"Transfer-Encoding: chunked\r\nConnection: {conn}\r\n\r\n".encode())
    base = {"id": f"cmpl-{n_req}", "created": 0, "model": state.model}
    obj_kind = "chat.completion.chunk" if api == "chat" else "text_completion"

    def choice(text: str | None, finish=None, role=False) -> dict:
        if api == "chat":
            delta = {"role": "assistant", "content": ""} if role else {"content": text}
            return {**base, "object": obj_kind, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return {**base, "object": obj_kind, "choices": [{"index": 0, "text": text, "finish_reason": finish}]}

    n_reasoning = int(sc["reasoning_tokens"]) if api == "chat" else 0
    tool = bool(sc["tool_call"]) and api == "chat"
    plain = not (n_reasoning or tool or sc["write_stamps"])

    def token_event(first_index: int, text: str, finish) -> bytes:
        """A token chunk of any channel (the general, slower path)."""
        if tool:
            fn = {"arguments": text}
            if first_index == 0:  # the call's name comes with its first argument tokens
                fn = {"name": "lookup", "arguments": text}
            call = {"index": 0, "function": fn}
            if first_index == 0:
                call.update({"id": f"call-{n_req}", "type": "function"})
            delta: dict = {"tool_calls": [call]}
        elif first_index < n_reasoning:
            split = n_reasoning - first_index  # words of this chunk still reasoning
            words_ = [" " + w for w in text.split(" ")[1:]]
            delta = {"reasoning_content": "".join(words_[:split])}
            if words_[split:]:
                delta["content"] = "".join(words_[split:])
        else:
            delta = {"content": text}
        obj = ({**base, "object": obj_kind, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
               if api == "chat" else choice(text, finish))
        if sc["write_stamps"]:
            obj["tokcheck_write_ns"] = time.perf_counter_ns()
        return _event(obj)

    for kind in sc["preamble"]:
        if kind == "empty_choices":
            writer.write(_event({**base, "object": obj_kind, "choices": [], "prompt_filter_results": [
                {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]}))
        elif kind == "usage_only":
            writer.write(_event({**base, "object": obj_kind, "choices": [],
                                 "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}))
        elif kind == "ping":
            writer.write(_chunk(b": ping\n\n"))
    if api == "chat" and sc["role_first"]:
        writer.write(_event(choice(None, role=True)))
    marker = "\u0000MARK\u0000"
    template = ("data: " + json.dumps(choice(marker)) + "\n\n").encode()
    head_bytes, tail_bytes = template.split(json.dumps(marker).encode())
    ttft_ns = int(sc["ttft_ms"] * 1e6)
    itl_ns = int(sc["itl_ms"] * 1e6)
    words = state.words
    sent = 0
    j = 0
    per_write = max(1, int(sc["events_per_write"]))
    pending: list[bytes] = []
    deadline = t_recv + ttft_ns
    while sent < n_out:
        if j % per_write == 0:
            deadline = t_recv + ttft_ns + j * k * itl_ns
            await _sleep_until(deadline)
        if fault and j == sc["fault_after_chunks"]:
            if pending:
                writer.write(b"".join(pending))
                pending.clear()
            if fault == "reset_mid_stream":
                _rst(writer)
                return
            if fault == "stall_mid_stream":
                await asyncio.sleep(3600)
                return
            if fault == "malformed_json":
                writer.write(_chunk(b'data: {"choices": [{"text": "x"\n\n'))
            elif fault == "non_utf8":
                writer.write(_chunk(b'data: {"choices": [{"index": 0, "text": "\xff\xfe"}]}\n\n'))
            elif fault == "empty_choices":
                writer.write(_event({**base, "object": obj_kind, "choices": []}))
            elif fault == "cut_stream":
                writer.write(b"0\r\n\r\n")
                stat["end_ns"] = time.perf_counter_ns()
                return
        m = min(k, n_out - sent)
        text = "".join(words[(sent + i) % len(words)] for i in range(m))
        sent += m
        last = sent >= n_out
        if last and sc["special_tail"]:
            text += "<|eos|>"
        now = time.perf_counter_ns()  # stamped before the write: bytes cannot arrive earlier
        if not plain:
            pending.append(token_event(sent - m, text, ("tool_calls" if tool else stop_reason) if last else None))
        elif last:
            pending.append(_event(choice(text, stop_reason)))
        else:
            # the common chunk, pre-encoded around the text: json.dumps of a whole chunk per
            # token would be most of this server's CPU at 128 streams
            data = head_bytes + json.dumps(text).encode() + tail_bytes
            pending.append(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        if last or (j + 1) % per_write == 0:
            writer.write(pending[0] if len(pending) == 1 else b"".join(pending))
            pending.clear()
            if sc["ping_every"] and (j + 1) % int(sc["ping_every"]) == 0:
                writer.write(_chunk(b": ping\n\n"))
        late = now - deadline
        stat["late_max_ns"] = max(stat["late_max_ns"], late)
        stat["late_sum_ns"] += late
        stat["chunks"] += 1
        if stat["first_ns"] is None:
            stat["first_ns"] = now
        stat["last_ns"] = now
        j += 1
    if include_usage and sc["usage"] != "absent":
        # counted only now, off the request's critical path (intake time is in every TTFT)
        prompt = body.get("prompt") if api == "completions" else " ".join(
            _content_text(m.get("content")) for m in body.get("messages", []))
        n_prompt = state.tok.count(prompt or "") + int(sc["prompt_off_by"])
        reported = n_out + (int(sc["usage_off_by"]) if sc["usage"] == "wrong" else 0)
        usage = {"prompt_tokens": n_prompt, "completion_tokens": reported, "total_tokens": n_prompt + reported}
        if n_reasoning:
            usage["completion_tokens_details"] = {"reasoning_tokens": min(n_reasoning, n_out)}
        writer.write(_event({**base, "object": obj_kind, "choices": [], "usage": usage}))
    if fault != "missing_done":
        writer.write(_chunk(b"data: [DONE]\n\n"))
    writer.write(b"0\r\n\r\n")
    stat["end_ns"] = time.perf_counter_ns()


async def handle(state: State, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    state.connections += 1
    conn_no = state.connections
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            # Parsed here, not with tokcheck's own echo server: the server whose stamps are the
            # true values shares no code with the client it checks.
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = (lines[0].split(" ") + ["", ""])[:3]
            headers = {}
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if sep:
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or 0)
            raw = await reader.readexactly(length) if length else b""
            t_recv = time.perf_counter_ns()
            close = headers.get("connection", "").lower() == "close"
            path = path.split("?")[0]
            if path in ("/v1/completions", "/v1/chat/completions") and method == "POST":
                body = json.loads(raw or b"{}")
                api = "chat" if "chat" in path else "completions"
                if not body.get("stream"):
                    writer.write(_json_response(400, {"error": {"message": "only streaming"}}, close))
                elif state.slots is not None:
                    async with state.slots:  # at capacity the request waits for a slot
                        await stream(state, writer, body, api, time.perf_counter_ns(), close)
                        await writer.drain()
                else:
                    await stream(state, writer, body, api, t_recv, close, conn_no)
                    if state.script["keep_open"] and close:
                        await writer.drain()
                        await asyncio.sleep(3600)
            elif path == "/v1/models":
                entry = {"id": state.model, "object": "model"}
                if state.script["max_model_len"]:
                    entry["max_model_len"] = int(state.script["max_model_len"])
                writer.write(_json_response(200, {"object": "list", "data": [entry]}, close))
            elif path == "/version":
                writer.write(_json_response(200, {"version": "scripted-1"}, close))
            elif path == "/tokenize" and method == "POST":
                body = json.loads(raw or b"{}")
                ids = state.tok.tokenizer.encode(body.get("prompt", ""), add_special_tokens=False).ids
                n = len(ids) + int(state.script["prompt_off_by"])
                writer.write(_json_response(200, {"count": n, "tokens": ids, "max_model_len": 1 << 20}, close))
            elif path == "/detokenize" and method == "POST":
                body = json.loads(raw or b"{}")
                text = state.tok.tokenizer.decode(body.get("tokens", []))
                writer.write(_json_response(200, {"prompt": text}, close))
            elif path == "/_script" and method == "POST":
                state.script = {**DEFAULT_SCRIPT, **json.loads(raw or b"{}")}
                state.count = 0
                n = state.script["max_running"]
                state.slots = asyncio.Semaphore(int(n)) if n else None
                writer.write(_json_response(200, state.script, close))
            elif path == "/_stats":
                writer.write(_json_response(200, state.stats, close))
            elif path == "/_reset":
                state.stats = []
                writer.write(_json_response(200, {}, close))
            else:
                writer.write(_json_response(404, {"error": {"message": f"no route {path}"}}, close))
            if writer.transport.is_closing():
                return
            await writer.drain()
            if close:
                writer.close()
                return
    except (ConnectionError, asyncio.CancelledError):
        writer.transport.abort()


async def main_async(args) -> None:
    state = State(args.tokenizer, args.model)
    server = await asyncio.start_server(lambda r, w: handle(state, r, w), args.host, args.port, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--model", default="scripted")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    try:
        import uvloop

        uvloop.run(main_async(args))
    except ImportError:
        asyncio.run(main_async(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
