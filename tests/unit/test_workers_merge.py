"""Merging a load worker's records (bench --workers / --ray): ``worker`` set, and for a worker on
another host every absolute stamp moved onto the coordinator's clock by its offset, durations
unchanged."""

from __future__ import annotations

import json

import pytest

from tokcheck.loadgen.shard import read_lines
from tokcheck.loadgen.workers import _Handle, _records


def line(**kw) -> str:
    rec = {"level": "c=2", "round": 1, "index": 3, "t_send_ns": 1_000_000_000, "t_first_ns": 1_050_000_000,
           "t_last_ns": 1_150_000_000, "t_end_ns": 1_160_000_000, "t_due_ns": None,
           "chunks": [[1_050_000_000, 1], [1_100_000_000, 1], [1_150_000_000, 1]], "empty_choice_ns": [1_010_000_000],
           "ttft_ms": 50.0, "tpot_ms": 50.0, "n_out": 3}
    rec.update(kw)
    return json.dumps(rec)


def handle(index: int, offset_ns: int) -> _Handle:
    h = _Handle()
    h.index, h.offset_ns = index, offset_ns
    return h


def test_same_host_records_keep_their_stamps():
    (rec,) = _records(handle(1, 0), line() + "\n")
    assert rec.worker == 1 and rec.t_send_ns == 1_000_000_000 and rec.chunks[0] == (1_050_000_000, 1)


def test_another_hosts_stamps_move_by_its_offset_and_durations_do_not_change():
    offset = 7_000_000_123  # the worker's clock runs 7 s ahead of the coordinator's
    (rec,) = _records(handle(0, offset), line() + "\n\n")
    assert rec.t_send_ns == 1_000_000_000 - offset and rec.t_end_ns == 1_160_000_000 - offset
    assert [t for t, _ in rec.chunks] == [1_050_000_000 - offset, 1_100_000_000 - offset, 1_150_000_000 - offset]
    assert rec.empty_choice_ns == [1_010_000_000 - offset] and rec.t_due_ns is None
    assert (rec.t_first_ns - rec.t_send_ns) / 1e6 == pytest.approx(50.0) == rec.ttft_ms
    assert rec.tpot_ms == 50.0  # computed by the worker, on its own clock: never touched


def test_read_lines_leaves_a_torn_last_line(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text(line() + "\n" + '{"level": "c=2", "ro')
    text, offset = read_lines(str(path), 0)
    assert text.count("\n") == 1 and offset == len(line()) + 1
    with path.open("a") as fh:
        fh.write('und": 1}\n')
    text, offset2 = read_lines(str(path), offset)
    assert json.loads(text) == {"level": "c=2", "round": 1} and offset2 == path.stat().st_size
    assert read_lines(str(path), offset2) == ("", offset2)
