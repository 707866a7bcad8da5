"""SSE and HTTP framing, parsed after the fact: the same bytes split anywhere give the same
events (httpx tests/test_decoders.py practice), and each event is stamped with the arrival of
the read that completed it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tokcheck.loadgen import wire
from tokcheck.loadgen.openai import read_stream
from tokcheck.loadgen.recorder import Exchange
from tokcheck.loadgen.sse import parse_sse

EVENTS = [
    {"choices": [{"index": 0, "text": " héllo", "finish_reason": None}]},
    {"choices": [{"index": 0, "text": " wörld ✓", "finish_reason": None}]},
    {"choices": [{"index": 0, "text": " 日本", "finish_reason": "length"}]},
    {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
]


def sse_bytes(newline: bytes = b"\n") -> bytes:
    out = b": keep-alive comment" + newline + newline
    for ev in EVENTS:
        out += b"data: " + json.dumps(ev, ensure_ascii=False).encode() + newline + newline
    return out + b"data: [DONE]" + newline + newline


def http_bytes(body: bytes, piece: int = 37) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunks = b"".join(f"{len(body[i:i + piece]):x}\r\n".encode() + body[i:i + piece] + b"\r\n"
                      for i in range(0, len(body), piece))
    return head + chunks + b"0\r\n\r\n"


def split(data: bytes, cuts: list[int]) -> list[tuple[int, bytes]]:
    """Reads at the given cut offsets, read i stamped i·1000 ns."""
    bounds = [0] + sorted(set(c for c in cuts if 0 < c < len(data))) + [len(data)]
    return [(i * 1000, data[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def expected_times(data: bytes, reads: list[tuple[int, bytes]], terminator: bytes) -> list[int]:
    """Stamp of the read holding the last byte of each event's closing blank line."""
    times, pos = [], 0
    ends, total = [], 0
    for _, b in reads:
        total += len(b)
        ends.append(total)
    while (i := data.find(b"data:", pos)) >= 0:
        end = data.find(terminator, i) + len(terminator) - 1
        times.append(next(reads[k][0] for k, e in enumerate(ends) if e > end))
        pos = end
    return times


def test_events_and_payloads():
    events, rest = parse_sse([(5, sse_bytes())])
    assert [e.data for e in events][-1] == b"[DONE]"
    assert [json.loads(e.data) for e in events[:-1]] == EVENTS
    assert rest == b"" and all(e.t_ns == 5 for e in events)


def test_every_two_way_split_gives_identical_events():
    for nl in (b"\n", b"\r\n", b"\r"):
        data = sse_bytes(nl)
        whole = [e.data for e in parse_sse([(0, data)])[0]]
        for cut in range(1, len(data)):
            reads = split(data, [cut])
            events, _ = parse_sse(reads)
            assert [e.data for e in events] == whole, (nl, cut)
            assert [e.t_ns for e in events] == expected_times(data, reads, nl + nl), (nl, cut)


@settings(max_examples=300, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=2000), max_size=40),
       nl=st.sampled_from([b"\n", b"\r\n", b"\r"]))
def test_any_split_gives_identical_events_and_times(cuts, nl):
    data = sse_bytes(nl)
    reads = split(data, [c % len(data) for c in cuts])
    events, rest = parse_sse(reads)
    assert [e.data for e in events] == [e.data for e in parse_sse([(0, data)])[0]]
    assert [e.t_ns for e in events] == expected_times(data, reads, nl + nl)
    assert rest == b""


@settings(max_examples=300, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=3000), max_size=40),
       piece=st.integers(min_value=1, max_value=200))
def test_http_chunked_stream_split_anywhere_reads_the_same(cuts, piece):
    body = sse_bytes()
    raw = http_bytes(body, piece)
    reads = split(raw, [c % len(raw) for c in cuts])
    resp = wire.parse_response(reads)
    assert resp.status == 200 and resp.complete and resp.end_offset == len(raw)
    assert b"".join(b for _, b in resp.body) == body
    ex = Exchange(t_send_ns=0, reads=reads, t_end_ns=10**9)
    res = read_stream(ex, "completions")
    assert res.error is None and res.done and res.defects == []
    assert res.text == " héllo wörld ✓ 日本"
    assert res.usage == {"prompt_tokens": 3, "completion_tokens": 3}
    assert res.t_end_ns == reads[-1][0]  # the read that carried the last chunk


def test_incomplete_chunked_body_is_not_complete():
    raw = http_bytes(sse_bytes())[:-5]
    resp = wire.parse_response([(0, raw)])
    assert not resp.complete
    res = read_stream(Exchange(t_send_ns=0, reads=[(0, raw)], t_end_ns=1), "completions")
    assert res.error[0] == "connection_reset"


def test_content_length_error_response():
    body = b'{"error": {"message": "no such model"}}'
    raw = b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    res = read_stream(Exchange(t_send_ns=0, reads=split(raw, [10, 50]), t_end_ns=1), "completions")
    assert res.error[0] == "http_404" and "no such model" in res.error[1]


def test_unterminated_last_event_is_discarded():
    events, rest = parse_sse([(0, b"data: a\n\ndata: b\n")])
    assert [e.data for e in events] == [b"a"] and rest == b"data: b\n"


def test_multiline_data_and_fields():
    events, _ = parse_sse([(0, b"event: x\ndata:one\ndata: two\nid: 3\nretry: 10\n\n")])
    assert events[0].data == b"one\ntwo" and events[0].event == "x"
