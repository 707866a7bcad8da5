"""Reading streams of real-world shapes (pure): every output channel counts, chunks without a
token never fail a request, error messages stay whole; the client's stall marks; the peak."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokcheck.core import metrics
from tokcheck.loadgen.measure import RequestMeta, measure_request, stamp_uncertainty_ns
from tokcheck.loadgen.openai import read_stream, server_message, shorten
from tokcheck.loadgen.recorder import Exchange
from tokcheck.loadgen.tokens import load_tokenizer

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def stream(*events, times=None) -> Exchange:
    """An exchange whose every SSE event (dict, raw bytes, or ':' comment) is its own read."""
    reads = [(0, HEAD)]
    for i, ev in enumerate(events):
        data = ev if isinstance(ev, bytes) else b"data: " + json.dumps(ev).encode() + b"\n\n"
        reads.append((times[i] if times else (i + 1) * 1_000_000, chunk(data)))
    reads.append((reads[-1][0], chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n"))
    return Exchange(t_send_ns=0, reads=reads, t_end_ns=reads[-1][0])


def delta(**d):
    return {"choices": [{"index": 0, "delta": d, "finish_reason": None}]}


def test_every_channel_is_output():
    ex = stream(delta(role="assistant", content=""), delta(reasoning_content=" think"), delta(reasoning=" more"),
                delta(content=" answer"),
                delta(tool_calls=[{"index": 0, "id": "c1", "type": "function",
                                   "function": {"name": "get", "arguments": "{\"a\""}}]),
                delta(tool_calls=[{"index": 0, "function": {"arguments": ": 1}"}}]))
    res = read_stream(ex, "chat")
    assert res.error is None and res.channels == ["reasoning", "content", "tool_calls"]
    assert res.channel_pieces("reasoning") == ["", " think", " more", "", "", ""]
    assert res.channel_pieces("tool_calls")[4:] == ["get{\"a\"", ": 1}"]
    assert res.text == " think more answerget{\"a\": 1}"


def test_a_tool_only_answer_is_not_no_output():
    ex = stream(delta(tool_calls=[{"index": 0, "function": {"name": "f", "arguments": "{}"}}]),
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    res = read_stream(ex, "chat")
    assert res.error is None and res.finish_reason == "tool_calls"


def test_chunks_without_a_token_are_not_failures():
    ex = stream({"choices": [], "prompt_filter_results": [{"prompt_index": 0}]}, b": ping\n\n",
                {"choices": [], "usage": {"completion_tokens": 0}},
                {"choices": [{"index": 0, "text": " x", "finish_reason": "length"}]})
    res = read_stream(ex, "completions")
    assert res.error is None and res.no_token_chunks == 2 and res.text == " x"
    assert res.deltas[0].t_ns == 4_000_000  # the first token is the fourth read, not the first


def test_error_messages_are_whole():
    long = "Your prompt contains at least " + "many " * 100 + "tokens."
    raw = json.dumps({"error": {"message": long, "code": 400}}).encode()
    head = f"HTTP/1.1 400 Bad Request\r\nContent-Length: {len(raw)}\r\n\r\n".encode()
    res = read_stream(Exchange(t_send_ns=0, reads=[(1, head + raw)], t_end_ns=1), "chat")
    assert res.error == ("http_400", f"HTTP 400: {' '.join(long.split())}")
    assert server_message(b"plain text\n  error") == "plain text error"
    cut = shorten("word " * 1000, limit=50)
    assert cut.endswith(" …") and all(w == "word" for w in cut[:-2].split())  # never mid-word


def test_headline_count_is_the_tokenizers_and_usage_is_a_cross_check(tiny_tokenizer):
    tok = load_tokenizer(tiny_tokenizer)
    events = [{"choices": [{"index": 0, "text": " the", "finish_reason": None}]} for _ in range(10)]
    events.append({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 20}})
    meta = RequestMeta("c=1", 1, 0, False, 0, 0, 4, 10, "completions")
    rec = measure_request(stream(*events), meta, tok)
    assert rec.n_out == 10 and rec.n_out_usage == 20 and rec.usage_difference == 10
    assert "usage_mismatch" in rec.defects and not rec.early_stop
    assert rec.tpot_ms == pytest.approx(1.0)  # 9 gaps of 1 ms over 9 tokens, not over 19


def test_stamps_in_a_stall_of_the_client_are_not_vouched_for(tiny_tokenizer):
    tok = load_tokenizer(tiny_tokenizer)
    # the first token was read 0.1 ms after the send, but the send was stamped inside a 200 ms stall
    events = [{"choices": [{"index": 0, "text": " the", "finish_reason": None}]} for _ in range(5)]
    ex = stream(*events, times=[300_100_000 + i * 5_000_000 for i in range(5)])
    ex.t_send_ns = 300_000_000
    stalls = ((100_000_000, 300_050_000),)
    assert stamp_uncertainty_ns(300_000_000, stalls) == 200_000_000
    meta = RequestMeta("c=1", 1, 0, False, 0, 0, 4, 5, "completions", stalls=stalls)
    rec = measure_request(ex, meta, tok)
    assert rec.ttft_ms == pytest.approx(0.1) and "ttft" in rec.client_marks
    assert rec.stamp_uncertainty_ms == pytest.approx(200.1)  # the first read too was 0.05 ms after it
    floor = RequestMeta("c=1", 1, 0, False, 0, 0, 4, 5, "completions", ttft_floor_ms=0.5)
    assert "ttft_below_floor" in measure_request(ex, floor, tok).client_marks
    clean = RequestMeta("c=1", 1, 0, False, 0, 0, 4, 5, "completions")
    assert measure_request(ex, clean, tok).client_marks == []


def test_peak_output_throughput_counts_tokens_and_is_at_least_the_mean():
    s = 1_000_000_000
    # 2.5 s window: windows [0,1) and [1,2.5); a 4-token chunk counts 4
    chunks = [[(int(0.1 * s), 4), (int(0.2 * s), 1)], [(int(1.5 * s), 1), (int(2.4 * s), 1)]]
    peak = metrics.peak_output_throughput_tok_s(chunks, 0, int(2.5 * s))
    assert peak == pytest.approx(5.0)
    mean = metrics.output_throughput_tok_s([5, 2], 0, int(2.5 * s))
    assert peak >= mean
    assert metrics.peak_output_throughput_tok_s(chunks, 0, int(0.5 * s)) == pytest.approx(7 / 0.5)
    assert metrics.rate_rps([0, s, 2 * s]) == 1.0 and metrics.rate_rps([5]) is None


@given(st.lists(st.tuples(st.integers(0, 5_000_000_000), st.integers(1, 8)), min_size=1, max_size=200),
       st.integers(1, 5_000_000_000))
def test_peak_is_never_below_the_mean(tokens, extra):
    span = max(t for t, _ in tokens) + extra
    peak = metrics.peak_output_throughput_tok_s([sorted(tokens)], 0, span)
    mean = metrics.output_throughput_tok_s([sum(k for _, k in tokens)], 0, span)
    assert peak >= mean * (1 - 1e-12)
