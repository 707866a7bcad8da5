"""Server-sent events, parsed after the fact from time-stamped body segments (pure).

The recorder keeps each read as ``(arrival_ns, bytes)``; this module turns those segments into
events. An event's time is the arrival of the segment that holds the end of the blank line
closing it — the moment a streaming client could first have acted on it — so the result does
not depend on how the bytes were split into reads (tests split the same stream at every byte
boundary and expect identical events). Framing follows the WHATWG ``text/event-stream`` rules:
lines end in CRLF, LF or CR; ``:`` starts a comment; ``data:`` lines of one event are joined
with ``\\n``; one space after the colon is dropped; an unterminated last event is discarded.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: ``t_ns`` (arrival, ``perf_counter_ns``) and its ``data`` bytes
    (``data:`` lines joined by ``\\n``; still bytes, so the caller decides on UTF-8 errors)."""

    t_ns: int
    data: bytes
    event: str = ""


def segment_ends(segments: list[tuple[int, bytes]]) -> list[int]:
    """Cumulative end offsets of the segments in their concatenation."""
    ends, total = [], 0
    for _, b in segments:
        total += len(b)
        ends.append(total)
    return ends


def parse_sse(segments: list[tuple[int, bytes]]) -> tuple[list[SseEvent], bytes]:
    """Parse time-stamped body segments into events.

    Args:
        segments: ``[(arrival_ns, bytes), …]`` in arrival order (the response body, de-chunked).

    Returns:
        ``(events, rest)``: the dispatched events in order, and the bytes after the last
        complete event (non-empty when the stream ended inside an event).
    """
    buf = b"".join(b for _, b in segments)
    ends = segment_ends(segments)
    events: list[SseEvent] = []
    data_lines: list[bytes] = []
    event_name = ""
    pos = 0
    last_dispatch = 0
    n = len(buf)
    while pos < n:
        m = _LINE_END.search(buf, pos)
        if m is None:
            break
        # A lone CR at the very end might be the first half of a CRLF split across reads; the
        # whole stream is here, so a CR at the end of the buffer really is a line end.
        line = buf[pos : m.start()]
        pos = m.end()
        if not line:
            if data_lines:
                # index of the segment holding the last byte of the blank line (offset pos-1)
                seg = bisect_left(ends, pos)
                events.append(SseEvent(segments[seg][0], b"\n".join(data_lines), event_name))
            data_lines = []
            event_name = ""
            last_dispatch = pos
            continue
        if line[:1] == b":":
            continue
        field, sep, value = line.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if field == b"data":
            data_lines.append(value)
        elif field == b"event":
            event_name = value.decode("utf-8", "replace")
        # id / retry / unknown fields: ignored (no effect on measurement)
    return events, buf[last_dispatch:]
