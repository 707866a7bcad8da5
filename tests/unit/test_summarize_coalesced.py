"""summarize_level on hand-built request records: coalesced reads and the undefined-TPOT rule."""

from __future__ import annotations

from tokcheck.core import metrics
from tokcheck.record.level import Level
from tokcheck.record.schema import RequestRecord
from tokcheck.record.summarize import TPOT_UNDEFINED_MAX_SHARE, summarize_level

MS = 1_000_000


def record(index: int, reads: list[int], gap_ms: float = 8.0) -> RequestRecord:
    """A 16-token request sent at 0, first read at 50 ms, reads ``gap_ms`` apart; ``reads`` is
    the number of one-token SSE events in each read (events of a read share its stamp)."""
    events = [(50 * MS + int(i * gap_ms * MS), 1) for i, n in enumerate(reads) for _ in range(n)]
    chunks, counts = metrics.merge_reads(events)
    t_first, t_last = chunks[0][0], chunks[-1][0]
    tpot = metrics.tpot_ms(t_first, t_last, 16, chunks[0][1])
    return RequestRecord(
        level="c=1", round=1 + index % 3, index=index, warmup=False, prompt_index=index, t_due_ns=None,
        t_send_ns=0, t_first_ns=t_first, t_last_ns=t_last, t_end_ns=t_last + MS, chunks=chunks,
        chunk_events=counts, n_out=16, n_out_usage=16, n_out_tokenizer=16, n_prompt_usage=8, n_first=chunks[0][1],
        text="x" * 16, error=None, early_stop=False, ttft_ms=50.0, tpot_ms=tpot, e2e_latency_ms=metrics.e2e_latency_ms(0, t_last + MS),
        generation_tok_s=metrics.generation_tok_s(tpot), e2e_tok_s=1.0, queue_delay_ms=None,
    )


def test_a_few_single_read_requests_are_counted_and_tpot_still_reported():
    recs = [record(i, [1] * 16) for i in range(39)] + [record(39, [16])]  # 1 of 40 = 2.5 %
    assert 1 / 40 <= TPOT_UNDEFINED_MAX_SHARE
    lv = summarize_level(recs, Level.closed(1))
    assert lv.tpot_undefined_requests == 1
    assert lv.tpot_ms.median == 8.0 and lv.generation_tok_s.median == 125.0
    assert lv.coalesced_token_share == 16 / (40 * 16)
    assert lv.tokens_per_chunk.rounds  # present


def test_many_single_read_requests_withhold_tpot_and_generation_speed():
    # 3 of 12 requests got every token in one read; the other 9 read 2 tokens at a time
    recs = [record(i, [2] * 8) for i in range(9)] + [record(9 + i, [16]) for i in range(3)]
    lv = summarize_level(recs, Level.closed(2))
    assert lv.tpot_undefined_requests == 3 and lv.coalesced_token_share == 1.0
    assert lv.sse_events_per_chunk == (9 * 16 + 3 * 16) / (9 * 8 + 3)
    assert lv.tpot_ms is None and "3 of 12" in lv.tpot_ms_reason
    assert lv.generation_tok_s is None and "3 of 12" in lv.generation_tok_s_reason
    # ITL stays per token: 2-token reads 8 ms apart give 4 ms, never 0
    assert lv.itl_ms.median == 4.0 and lv.itl_ms.p90 == 4.0 and lv.tokens_per_chunk.median == 2


def test_records_written_before_merging_are_merged_by_their_stamps():
    # an old requests.jsonl line: one chunk per SSE event, 4 sharing each stamp
    events = [(50 * MS + i * 8 * MS, 1) for i in range(4) for _ in range(4)]
    old = record(0, [4] * 4).model_copy(update={"chunks": events, "chunk_events": None})
    lv = summarize_level([old], Level.closed(1))
    assert lv.tokens_per_chunk.median == 4 and lv.itl_ms.median == 2.0 and lv.coalesced_token_share == 1.0


def test_one_token_per_median_read_beside_most_tokens_coalesced():
    """Each request: 6 one-token reads, then one read of 10 events. Reads: 6 of 7 hold one token,
    so the median tokens per chunk is 1; tokens: 10 of 16 arrived coalesced (62.5 %). The bench
    table prints both, and its note says why they differ."""
    from rich.console import Console

    from tokcheck.cli.bench_view import CHUNK_NOTE, render_summary
    from tokcheck.record.schema import Summary

    recs = [record(i, [1] * 6 + [10]) for i in range(6)]
    lv = summarize_level(recs, Level.closed(1))
    assert lv.tokens_per_chunk.median == 1 and lv.coalesced_token_share == 10 / 16
    con = Console(record=True, width=200)
    render_summary(Summary(levels=[lv]), con)
    text = con.export_text()
    row = next(line for line in text.splitlines() if "share of tokens in coalesced reads" in line)
    assert "62%" in row or "63%" in row
    assert " ".join(CHUNK_NOTE.split()) in " ".join(text.split())
