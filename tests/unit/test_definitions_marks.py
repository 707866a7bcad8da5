"""Every tool's reading leaves out the stamps the client could not vouch for, as the summary does,
so that a comparison of definitions is never a comparison of different requests."""

from __future__ import annotations

from tokcheck.analysis.definitions import TOOLS, read_level
from tokcheck.core import metrics
from tokcheck.record.level import Level
from tokcheck.record.schema import RequestRecord
from tokcheck.record.summarize import summarize_level

MS = 1_000_000


def record(index: int, ttft_ms: int, marks: list[str]) -> RequestRecord:
    """A 4-token completions request sent at 0, one token per read 10 ms apart from ``ttft_ms``."""
    chunks = [((ttft_ms + 10 * i) * MS, 1) for i in range(4)]
    t_first, t_last = chunks[0][0], chunks[-1][0]
    tpot = metrics.tpot_ms(t_first, t_last, 4, 1)
    return RequestRecord(
        level="c=1", round=1, index=index, warmup=False, prompt_index=index, t_due_ns=None, t_send_ns=0,
        t_first_ns=t_first, t_last_ns=t_last, t_end_ns=t_last + MS, chunks=chunks, chunk_events=[1] * 4,
        n_out=4, n_out_usage=4, n_out_tokenizer=4, n_prompt_usage=8, n_first=1, text="abcd", error=None,
        ttft_ms=float(ttft_ms), tpot_ms=tpot, e2e_latency_ms=(t_last + MS) / MS,
        generation_tok_s=metrics.generation_tok_s(tpot), e2e_tok_s=1.0, client_marks=marks)


def test_a_marked_ttft_enters_no_tools_ttft_but_its_tpot_still_counts():
    # one trusted request at 20 ms; two whose first-token stamps came after a loop stall (900 ms)
    recs = [record(0, 20, []), record(1, 900, ["ttft"]), record(2, 900, ["ttft"])]
    lv = summarize_level(recs, Level.closed(1))
    assert lv.ttft_ms.median == 20.0
    for name, tool in TOOLS.items():
        reading = read_level(recs, tool)
        assert reading["ttft_ms"] == 20.0, name   # with the marked stamps the median is 900
        if name != "aiperf":                      # AIPerf has no TPOT; its ITL rests on the TTFT stamp
            assert reading["tpot_ms"] is not None, name
    # without the mark the stall's stamp counts, for every tool alike
    unmarked = [r.model_copy(update={"client_marks": []}) for r in recs]
    for tool in TOOLS.values():
        assert read_level(unmarked, tool)["ttft_ms"] == 900.0
