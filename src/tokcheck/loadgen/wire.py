"""HTTP/1.1 response framing, after the fact (pure).

Input: the raw reads of one exchange, ``[(arrival_ns, bytes), …]``. Output: status, headers and
the de-chunked body as time-stamped segments (each body byte keeps the arrival time of the read
that carried it), and where the response ended. Handles ``Transfer-Encoding: chunked``,
``Content-Length`` and close-delimited bodies. Nothing here runs while a request streams.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

_HEADER_END = b"\r\n\r\n"


@dataclass
class HttpResponse:
    """A parsed response.

    Attributes:
        status: HTTP status code (0 when no status line arrived).
        headers: lower-cased header names → last value.
        body: ``[(arrival_ns, bytes), …]`` of the de-chunked body.
        complete: the framing says the body is complete (last chunk, or Content-Length reached;
            for close-delimited bodies: always true once headers arrived).
        end_offset: offset just past the response in the raw stream (None if incomplete).
        framing_error: text when the chunked framing is broken.
    """

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: list[tuple[int, bytes]] = field(default_factory=list)
    complete: bool = False
    end_offset: int | None = None
    framing_error: str | None = None
    headers_end: int | None = None


def header_end(buf: bytes) -> int | None:
    """Offset just past the blank line ending the header block, or None."""
    i = buf.find(_HEADER_END)
    return None if i < 0 else i + 4


def parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    """Status code and headers from the header block (status line included)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        status = 0
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return status, headers


def _slice(reads: list[tuple[int, bytes]], starts: list[int], lo: int, hi: int) -> list[tuple[int, bytes]]:
    """The raw bytes ``[lo, hi)`` as segments, split at read boundaries, each with its read's time."""
    out = []
    i = bisect_right(starts, lo) - 1
    while lo < hi and i < len(reads):
        t, b = reads[i]
        s = starts[i]
        e = s + len(b)
        take_hi = min(hi, e)
        if take_hi > lo:
            out.append((t, b[lo - s : take_hi - s]))
            lo = take_hi
        i += 1
    return out


def parse_response(reads: list[tuple[int, bytes]]) -> HttpResponse:
    """Parse one HTTP/1.1 response from its time-stamped raw reads (see module doc)."""
    buf = b"".join(b for _, b in reads)
    starts, total = [], 0
    for _, b in reads:
        starts.append(total)
        total += len(b)
    resp = HttpResponse()
    he = header_end(buf)
    if he is None:
        return resp
    resp.headers_end = he
    resp.status, resp.headers = parse_head(buf[: he - 4])
    te = resp.headers.get("transfer-encoding", "").lower()
    if "chunked" in te:
        pos = he
        n = len(buf)
        while True:
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                return resp  # incomplete size line
            size_text = buf[pos:eol].split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                resp.framing_error = f"bad chunk size {size_text[:20]!r}"
                return resp
            data_start = eol + 2
            if size == 0:
                # trailers (usually none) end with a blank line
                tend = buf.find(b"\r\n", data_start)
                while tend >= 0 and tend != data_start:
                    data_start = tend + 2
                    tend = buf.find(b"\r\n", data_start)
                if tend < 0:
                    return resp
                resp.complete = True
                resp.end_offset = tend + 2
                return resp
            data_end = data_start + size
            if data_end > n:
                resp.body.extend(_slice(reads, starts, data_start, n))
                return resp
            resp.body.extend(_slice(reads, starts, data_start, data_end))
            if buf[data_end : data_end + 2] != b"\r\n":
                if data_end + 2 <= n:
                    resp.framing_error = "chunk not followed by CRLF"
                return resp
            pos = data_end + 2
    length = resp.headers.get("content-length")
    if length is not None and length.isdigit():
        end = he + int(length)
        resp.body = _slice(reads, starts, he, min(end, len(buf)))
        resp.complete = len(buf) >= end
        resp.end_offset = end if resp.complete else None
        return resp
    resp.body = _slice(reads, starts, he, len(buf))
    resp.complete = True  # close-delimited: complete when the connection closed cleanly
    resp.end_offset = len(buf)
    return resp


def body_end_ns(reads: list[tuple[int, bytes]], end_offset: int) -> int:
    """Arrival time of the read holding the last byte of the response (offset ``end_offset-1``)."""
    total = 0
    for t, b in reads:
        total += len(b)
        if total >= end_offset:
            return t
    return reads[-1][0]
