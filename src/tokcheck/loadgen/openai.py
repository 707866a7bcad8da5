"""OpenAI-compatible streaming: request bodies and the reading of a recorded stream (pure).

Reading happens after the request ended. Failure kinds (``StreamResult.error``) are the ones a
bad server causes: ``http_<status>``, ``connect_error``, ``connection_reset``,
``timeout_headers``, ``timeout_stream``, ``malformed_json``, ``non_utf8``, ``missing_done``
(no ``[DONE]`` and no ``finish_reason``: the stream may be cut), ``empty_choices`` (a data chunk
with neither ``choices`` nor ``usage``), ``stream_error`` (an ``error`` object in the stream),
``no_output`` (a complete stream without any output text). Defects that leave the measurement
valid are listed in ``StreamResult.defects``: ``missing_done`` (when a ``finish_reason`` arrived),
``missing_usage`` (usage asked for, none sent).
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


@dataclass
class StreamResult:
    """A recorded stream, read.

    Attributes:
        status: HTTP status (0 if none arrived).
        deltas: ``[(arrival_ns, text), …]`` for every event that had a choice (text may be "").
        text: all delta texts joined.
        usage: the last ``usage`` object sent, or None.
        finish_reason: the last non-null ``finish_reason``.
        done: ``data: [DONE]`` arrived.
        t_end_ns: end of the stream (arrival of the response's last byte, or the connection end).
        error: ``(kind, detail)`` when the request failed, else None.
        defects: non-fatal defects (see module doc).
        response_id: the server's ``id`` of the completion (to find it in the server's log).
    """

    status: int = 0
    deltas: list[tuple[int, str]] = field(default_factory=list)
    text: str = ""
    usage: dict | None = None
    finish_reason: str | None = None
    done: bool = False
    t_end_ns: int | None = None
    error: tuple[str, str] | None = None
    defects: list[str] = field(default_factory=list)
    response_id: str | None = None


def _snippet(segments: list[tuple[int, bytes]]) -> str:
    raw = b"".join(b for _, b in segments)[:200]
    return " ".join(raw.decode("utf-8", "replace").split())


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
        res.error = (f"http_{resp.status}", f"HTTP {resp.status}: {_snippet(resp.body)}")
        return res
    if resp.complete and resp.end_offset is not None:
        res.t_end_ns = wire.body_end_ns(ex.reads, resp.end_offset)
    events, _rest = parse_sse(resp.body)
    texts: list[str] = []
    for ev in events:
        data = ev.data
        if data.strip() == b"[DONE]":
            res.done = True
            continue
        try:
            obj = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as err:
            res.error = ("non_utf8", f"event data is not UTF-8: {err}"[:300])
            break
        except ValueError as err:
            res.error = ("malformed_json", f"{err}: {data[:80]!r}"[:300])
            break
        if not isinstance(obj, dict):
            res.error = ("malformed_json", f"event is not a JSON object: {data[:80]!r}")
            break
        if obj.get("error"):
            res.error = ("stream_error", json.dumps(obj["error"])[:300])
            break
        if res.response_id is None and isinstance(obj.get("id"), str):
            res.response_id = obj["id"]
        usage = obj.get("usage")
        if usage:
            res.usage = usage
        choices = obj.get("choices")
        if not choices:
            if not usage:
                res.error = ("empty_choices", f"chunk without choices or usage: {data[:80]!r}")
                break
            continue
        choice = choices[0]
        if api == "chat":
            delta = choice.get("delta") or {}
            text = (delta.get("content") or "") + (
                delta.get("reasoning_content") or delta.get("reasoning") or ""
            )
        else:
            text = choice.get("text") or ""
        if choice.get("finish_reason"):
            res.finish_reason = choice["finish_reason"]
        res.deltas.append((ev.t_ns, text))
        texts.append(text)
    res.text = "".join(texts)
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
        res.error = ("no_output", "stream ended without any output text")
    if usage_requested and res.usage is None and res.error is None:
        res.defects.append("missing_usage")
    return res
