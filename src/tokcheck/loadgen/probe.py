"""``tokcheck probe``: how fast can this machine's client measure, and how exactly?

The real client (:func:`tokcheck.loadgen.bench.run_bench`, with its recorder, measurement worker
and health monitor) is driven against tokcheck's own fast echo server
(:mod:`tokcheck.loadgen.echo_server`, another process on loopback) over a ladder of concurrency.
Each rung's aggregate output throughput is put beside the echo server's own window, its TTFT
beside the server's own (read → first write), and its read stamps beside the server's write
stamps. The **ceiling** is the highest throughput the client measured; the **floor** is half the
median TTFT against a server that answers at once (a TTFT below it cannot have been measured
right). Both are stored per machine (:func:`tokcheck.loadgen.ceiling.save_ceiling`) and every
later run on the same machine records them (run.json ``client.ceiling``): levels at or near the
ceiling are flagged client-bound, and reports say "numbers above N tok/s on this machine are
client-bound".
"""

from __future__ import annotations

import datetime as dt
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tokcheck.errors import TokcheckError
from tokcheck.loadgen.ceiling import machine_key, save_ceiling
from tokcheck.record.schema import ClientCeiling

#: The ladder of concurrency a probe climbs by default.
DEFAULT_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def write_probe_tokenizer(path: Path) -> Path:
    """A word-level ``tokenizer.json`` whose words are the echo server's (one token each)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    from tokcheck.loadgen.echo_server import WORDS

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path


@dataclass
class Rung:
    """One rung of the ladder: the client's figures beside the echo server's own."""

    concurrency: int
    requests_ok: int
    output_tok_s: float | None
    server_output_tok_s: float | None
    ttft_ms: float | None
    server_ttft_ms: float | None
    ttft_error_ms: float | None
    itl_ms: float | None
    stamp_delay_p50_ms: float | None
    loop_lag_p99_ms: float | None
    cpu_percent: float | None
    bound: bool
    reasons: list[str] = field(default_factory=list)


@dataclass
class ProbeResult:
    """What a probe found: its rungs, the ceiling (stored unless asked not to) and the settings."""

    rungs: list[Rung]
    ceiling: ClientCeiling
    output_len: int
    itl_ms: float
    ttft_ms: float
    stored_in: str | None = None

    def to_dict(self) -> dict:
        return {"rungs": [asdict(r) for r in self.rungs], "ceiling": self.ceiling.model_dump(mode="json"),
                "output_len": self.output_len, "itl_ms": self.itl_ms, "ttft_ms": self.ttft_ms,
                "stored_in": self.stored_in}


class _Echo:
    """The echo server as a child process."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tokcheck.loadgen.echo_server"],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("PORT "):
            self.close()
            raise TokcheckError("the probe's echo server did not start")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def call(self, path: str, payload: dict | None = None):
        import httpx

        with httpx.Client(trust_env=False, timeout=30) as c:
            r = c.post(self.url + path, json=payload) if payload is not None else c.get(self.url + path)
            r.raise_for_status()
            return r.json()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - defensive
            self.proc.kill()


def _server_window(stats: list[dict], ids: set[str]) -> tuple[float | None, float | None]:
    """(output tok/s over the server's own window, median server TTFT ms) of the given requests."""
    mine = [s for s in stats if s["id"] in ids and s["first_ns"] and s["end_ns"]]
    if not mine:
        return None, None
    window = max(s["end_ns"] for s in mine) - min(s["recv_ns"] for s in mine)
    tok_s = sum(s["tokens"] for s in mine) * 1e9 / window if window > 0 else None
    return tok_s, statistics.median((s["first_ns"] - s["recv_ns"]) / 1e6 for s in mine)


def run_probe(ladder: tuple[int, ...] | list[int] = DEFAULT_LADDER, *, output_len: int = 256,
              itl_ms: float = 2.0, ttft_ms: float = 20.0, waves: int = 2, save: bool = True,
              store: Path | None = None) -> ProbeResult:
    """Climb ``ladder`` against the echo server and return (and, with ``save``, store) the ceiling.

    Each rung sends ``waves × concurrency`` requests (at least 8) of ``output_len`` tokens, one
    token per ``itl_ms`` per stream after ``ttft_ms``; before the ladder, 16 requests at
    concurrency 1 against a server that answers at once give the TTFT floor.

    Raises:
        TokcheckError: the echo server does not start, or a rung fails entirely.
    """
    from tokcheck.loadgen.bench import BenchConfig, run_bench
    from tokcheck.record.store import read_requests

    work = Path(tempfile.mkdtemp(prefix="tokcheck-probe-"))
    tok = write_probe_tokenizer(work / "tokenizer.json")
    echo = _Echo()
    rungs: list[Rung] = []
    try:
        def bench(name: str, levels: list[int], n_out: int, per_round: int | None = None):
            cfg = BenchConfig(url=echo.url, model="echo", tokenizer=str(tok), input_len=8, output_len=n_out,
                              concurrency=levels, rounds=1, warmup=0, requests_per_round=per_round,
                              out=str(work / name), timeout_s=120, use_client_ceiling=False)
            return run_bench(cfg), read_requests(work / name)

        echo.call("/_script", {"ttft_ms": 0, "itl_ms": itl_ms})
        _, recs = bench("floor", [1], 4, 16)
        floor_ttfts = [r.ttft_from_send_ms for r in recs if r.ttft_from_send_ms is not None]
        floor_ms = 0.5 * statistics.median(floor_ttfts) if floor_ttfts else None

        echo.call("/_script", {"ttft_ms": ttft_ms, "itl_ms": itl_ms})
        for c in ladder:
            echo.call("/_reset", {})
            summary, recs = bench(f"c{c}", [c], output_len, max(8, waves * c))
            lv = summary.levels[0]
            ids = {r.response_id for r in recs if r.response_id}
            srv_tok_s, srv_ttft = _server_window(echo.call("/_stats"), ids)
            ttft = lv.figure("ttft_ms").value
            client = lv.client
            rungs.append(Rung(
                concurrency=c, requests_ok=lv.requests_ok, output_tok_s=lv.figure("output_throughput_tok_s").value,
                server_output_tok_s=srv_tok_s, ttft_ms=ttft, server_ttft_ms=srv_ttft,
                ttft_error_ms=ttft - srv_ttft if ttft is not None and srv_ttft is not None else None,
                itl_ms=lv.figure("itl_ms").value,
                stamp_delay_p50_ms=client.stamp_delay_ms.p50 if client and client.stamp_delay_ms else None,
                loop_lag_p99_ms=client.loop_lag_ms.p99 if client and client.loop_lag_ms else None,
                cpu_percent=client.cpu_percent if client else None,
                bound=bool(client and client.bound), reasons=list(client.reasons) if client else []))
            if lv.requests_ok == 0:
                raise TokcheckError(f"every request of the probe failed at concurrency {c}: {lv.errors}")
    finally:
        echo.close()
    best = max((r for r in rungs if r.output_tok_s is not None), key=lambda r: r.output_tok_s, default=None)
    if best is None:
        raise TokcheckError("the probe measured no throughput")
    ceiling = ClientCeiling(tok_s=best.output_tok_s, at_concurrency=best.concurrency, ttft_error_ms=best.ttft_error_ms,
                            ttft_floor_ms=floor_ms, measured_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                            machine=machine_key())
    result = ProbeResult(rungs, ceiling, output_len, itl_ms, ttft_ms)
    if save:
        result.stored_in = str(save_ceiling(ceiling, store))
    return result
