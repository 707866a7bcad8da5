"""OpenAI-compatible streaming: request bodies and the reading of a recorded stream (pure).

Reading happens after the request ended. Output arrives on **channels**, and every channel is
output (``docs/measurement.md``): ``text`` (completions), and in chat deltas ``content``,
``reasoning`` (``reasoning_content`` or ``reasoning``) and ``tool_calls`` (each call's
``function.name`` and ``function.arguments``). Chunks that carry no output on any channel —
a role-only delta, ``choices: []`` with only metadata (content-filter results), a usage-only
chunk, an SSE comment such as ``: ping`` — are not tokens and never fail a request.

Failure kinds (``StreamResult.error``) are the ones a bad server causes: ``http_<status>``,
``connect_error``, ``connection_reset``, ``timeout_headers``, ``timeout_stream``,
``malformed_json``, ``non_utf8``, ``missing_done`` (no ``[DONE]`` and no ``finish_reason``: the
stream may be cut), ``stream_error`` (an ``error`` object in the stream), ``no_output`` (a
complete stream without output on any channel). Defects that leave the measurement valid are
listed in ``StreamResult.defects``: ``missing_done`` (when a ``finish_reason`` arrived),
``missing_usage`` (usage asked for, none sent). Error details are whole sentences: a server's
message is kept whole up to :data:`MESSAGE_LIMIT` characters and cut only between words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tokcheck.loadgen import wire
from tokcheck.loadgen.recorder import Exchange
from tokcheck.loadgen.sse import parse_sse

PATHS = {"completions": "/v1/completions", "chat": "/v1/chat/completions"}

# vLLM's extensions that force an exact output length (docs/engines.md: ``ignore_eos`` together with
# ``min_tokens == max_tokens`` gave exactly the asked number of real tokens).
FORCING_FULL = "max_tokens+min_tokens+ignore_eos"
FORCING_MAX_ONLY = "max_tokens"


def request_body(
    api: str,
    model: str,
    prompt: str,
    output_len: int,
    *,
    forcing: str = FORCING_FULL,
    include_usage: bool = True,
    temperature: float = 0.0,
    extra: dict | None = None,
) -> bytes:
    """JSON body of a streaming request. ``api`` is ``completions`` or ``chat``. ``extra``:
    fields an engine needs beyond these (e.g. llama.cpp's ``repeat_penalty`` and ``logit_bias``,
    :meth:`tokcheck.engines.base.Engine.request_fields`), set last."""
    body: dict = {"model": model, "stream": True, "max_tokens": output_len, "temperature": temperature}
    if api == "chat":
        body["messages"] = [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    if forcing == FORCING_FULL:
        body["min_tokens"] = output_len
        body["ignore_eos"] = True
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    body.update(extra or {})
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


#: Output channels, in the order their text is joined within one delta (a reasoning model
#: reasons before it answers; a tool call's name comes before its arguments).
CHANNELS = ("text", "reasoning", "content", "tool_calls")

#: Channels that are the answer (``ttfo_ms``: time to the first token of the answer).
ANSWER_CHANNELS = ("text", "content", "tool_calls")

#: Longest server message kept in an error's detail, characters (a whole paragraph; longer
#: ones are cut between words with "…").
MESSAGE_LIMIT = 2000


def shorten(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line (whitespace collapsed), cut between words with "…" when longer
    than ``limit`` characters — never mid-word."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit)
    return (flat[:cut] if cut > limit // 2 else flat[:limit]).rstrip(" ,;:") + " …"


def server_message(body: bytes) -> str:
    """The message of an error response body: ``error.message`` (or ``message``/``detail``)
    of a JSON body, else the body as text; whole, on one line (see :func:`shorten`)."""
    text = body.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except ValueError:
        return shorten(text)
    if isinstance(obj, dict):
        err = obj.get("error")
        for cand in ((err.get("message") if isinstance(err, dict) else err), obj.get("message"), obj.get("detail")):
            if isinstance(cand, str) and cand.strip():
                return shorten(cand)
    return shorten(text)


@dataclass
class Delta:
    """One SSE event that had a choice: its arrival (``perf_counter_ns``) and its output text
    per channel (:data:`CHANNELS`; a channel without text is absent)."""

    t_ns: int
    parts: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "".join(self.parts.get(c, "") for c in CHANNELS)


@dataclass
class StreamResult:
    """A recorded stream, read.

    Attributes:
        status: HTTP status (0 if none arrived).
        deltas: every event that had a choice, in order (a role-only delta has no parts).
        text: all channels' texts joined, in arrival order.
        usage: the last ``usage`` object sent, or None.
        finish_reason: the last non-null ``finish_reason``.
        done: ``data: [DONE]`` arrived.
        t_end_ns: end of the stream (arrival of the response's last byte, or the connection end).
        error: ``(kind, detail)`` when the request failed, else None.
        defects: non-fatal defects (see module doc).
        response_id: the server's ``id`` of the completion (to find it in the server's log).
        t_last_data_ns: arrival of the last data event other than ``[DONE]`` (the usage event
            when one was sent).
        no_token_chunks: data chunks that carried no choice (metadata or usage only).
        write_stamps: ``(arrival_ns, server write ns)`` of chunks whose server wrote its own
            ``perf_counter_ns`` into them (``tokcheck_write_ns``: tokcheck's echo server, the
            scripted test server), for the client's stamp delay.
    """

    status: int = 0
    deltas: list[Delta] = field(default_factory=list)
    text: str = ""
    usage: dict | None = None
    finish_reason: str | None = None
    done: bool = False
    t_end_ns: int | None = None
    error: tuple[str, str] | None = None
    defects: list[str] = field(default_factory=list)
    response_id: str | None = None
    t_last_data_ns: int | None = None
    no_token_chunks: int = 0
    write_stamps: list[tuple[int, int]] = field(default_factory=list)

    def channel_pieces(self, channel: str) -> list[str]:
        """The channel's text of every delta (``""`` where a delta has none), parallel to ``deltas``."""
        return [d.parts.get(channel, "") for d in self.deltas]

    @property
    def channels(self) -> list[str]:
        """Channels that carried any text, in :data:`CHANNELS` order."""
        return [c for c in CHANNELS if any(c in d.parts for d in self.deltas)]


def _parts(choice: dict, api: str) -> dict[str, str]:
    """Output text per channel of one choice (channels without text left out)."""
    out: dict[str, str] = {}
    if api != "chat":
        text = choice.get("text")
        if isinstance(text, str) and text:
            out["text"] = text
        return out
    delta = choice.get("delta") or {}
    if not isinstance(delta, dict):
        return out
    reasoning = delta.get("reasoning_content") or delta.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        out["reasoning"] = reasoning
    content = delta.get("content")
    if isinstance(content, str) and content:
        out["content"] = content
    calls = delta.get("tool_calls")
    if isinstance(calls, list):
        pieces = []
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict):
                for key in ("name", "arguments"):
                    v = fn.get(key)
                    if isinstance(v, str) and v:
                        pieces.append(v)
        if pieces:
            out["tool_calls"] = "".join(pieces)
    return out


def read_stream(ex: Exchange, api: str, *, usage_requested: bool = True) -> StreamResult:
    """Interpret a recorded exchange as an OpenAI streaming response (see module doc)."""
    res = StreamResult(t_end_ns=ex.t_end_ns)
    if ex.error and ex.error[0] == "connect_error":
        res.error = ex.error
        return res
    resp = wire.parse_response(ex.reads)
    res.status = resp.status
    if resp.headers_end is None:
        res.error = ex.error or ("connection_reset", "connection closed before the response headers")
        return res
    if resp.status != 200:
        body = b"".join(b for _, b in resp.body)
        res.error = (f"http_{resp.status}", f"HTTP {resp.status}: {server_message(body)}")
        return res
    if resp.complete and resp.end_offset is not None:
        res.t_end_ns = wire.body_end_ns(ex.reads, resp.end_offset)
    events, _rest = parse_sse(resp.body)
    for ev in events:
        data = ev.data
        if data.strip() == b"[DONE]":
            res.done = True
            continue
        try:
            obj = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as err:
            res.error = ("non_utf8", f"event data is not UTF-8: {err}")
            break
        except ValueError as err:
            res.error = ("malformed_json", f"{err}: {data[:80]!r}")
            break
        if not isinstance(obj, dict):
            res.error = ("malformed_json", f"event is not a JSON object: {data[:80]!r}")
            break
        res.t_last_data_ns = ev.t_ns
        if obj.get("error"):
            err = obj["error"]
            msg = err.get("message") if isinstance(err, dict) else None
            res.error = ("stream_error", shorten(msg) if isinstance(msg, str) else shorten(json.dumps(err)))
            break
        if res.response_id is None and isinstance(obj.get("id"), str):
            res.response_id = obj["id"]
        stamp = obj.get("tokcheck_write_ns")
        if isinstance(stamp, int):
            res.write_stamps.append((ev.t_ns, stamp))
        usage = obj.get("usage")
        if usage:
            res.usage = usage
        choices = obj.get("choices")
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            res.no_token_chunks += 1  # metadata or usage only: not a token, never a failure
            continue
        choice = choices[0]
        if choice.get("finish_reason"):
            res.finish_reason = choice["finish_reason"]
        res.deltas.append(Delta(ev.t_ns, _parts(choice, api)))
    res.text = "".join(d.text for d in res.deltas)
    if res.error is None and ex.error is not None:
        res.error = ex.error
    if res.error is None and not resp.complete:
        detail = resp.framing_error or "connection closed before the response ended"
        res.error = ("connection_reset", detail)
    if res.error is None and not res.done:
        if res.finish_reason:
            res.defects.append("missing_done")
        else:
            res.error = ("missing_done", "stream ended without [DONE] or a finish_reason")
    if res.error is None and not res.text:
        res.error = ("no_output", "stream ended without output on any channel (text, content, reasoning, tool calls)")
    if usage_requested and res.usage is None and res.error is None:
        res.defects.append("missing_usage")
    return res
