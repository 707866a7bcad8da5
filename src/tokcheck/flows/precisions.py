"""The guide's practice step for real: the same model in F16, Q8_0 and Q4_K_M on llama.cpp,
served in turn and measured side by side (``tokcheck demo --engine llama.cpp``).

For each precision: the GGUF file (F16 written by :mod:`tokcheck.engines.gguf_convert`, Q8_0
and Q4_K_M made from it by llama.cpp's own quantizer), its audit (file type, bits per weight,
tensor types), a server with the same explicit settings, a check that it tokenizes as the
model's ``tokenizer.json`` does, a single-stream bench and a bench at a fixed concurrency (exact
input and output lengths), greedy outputs of a fixed prompt set against F16's (token agreement,
first divergence, log-probability difference by teacher forcing), and the server's peak
resident memory. F16 is compared with a second greedy pass of itself, which must agree fully.

What the numbers mean (``docs/measurement.md``): decoding reads every weight once per token, so
on a CPU as on a GPU the speed should follow the bytes read per token (the file's size) — it
does when the weights dominate the time. :func:`speed_vs_bytes` says how closely it did, with
the engine's own decode time beside the client's (llama.cpp logs it per request).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tokcheck.core.units import fmt_bytes
from tokcheck.errors import TokcheckError

#: The precisions compared, reference first (llama.cpp's file type names).
PRECISIONS = ("F16", "Q8_0", "Q4_K_M")

Progress = Callable[[str], None]


@dataclass
class PrecisionRow:
    """One precision's figures. Units: bytes, ms, tokens/s; ``token_agreement`` is the share
    of equal tokens at equal positions against F16's greedy outputs (F16: against a second pass
    of itself), ``first_divergence`` the median index of the first differing token (None: all
    identical), ``mean_abs_logprob_diff`` nats per token (teacher-forced on F16's tokens);
    ``engine_decode_tok_s`` the decode speed llama.cpp itself logged (no HTTP, no Python);
    ``model_buffer_bytes`` the weights as llama.cpp holds them in memory, from its own log
    (:func:`tokcheck.engines.llama_cpp_log.model_buffer_bytes`)."""

    precision: str
    file: str
    file_bytes: int
    bits_per_weight: float | None
    verdict: str
    peak_rss_bytes: int | None
    ttft_ms: float | None
    generation_tok_s: float | None
    output_throughput_tok_s: float | None
    token_agreement: float | None
    first_divergence: float | None = None
    mean_abs_logprob_diff: float | None = None
    engine_decode_tok_s: float | None = None
    model_buffer_bytes: int | None = None
    tokenizer_identical: bool | None = None
    exact_output_len: bool | None = None
    server_prompt_tokens: list[int] = field(default_factory=list)
    tensor_types: dict[str, int] = field(default_factory=dict)
    run_dirs: dict[str, str] = field(default_factory=dict)

    #: the keys of ``--json``'s rows the guide's practice step names, in order
    JSON_KEYS = ("precision", "file_bytes", "peak_rss_bytes", "ttft_ms", "generation_tok_s",
                 "output_throughput_tok_s", "token_agreement")

    def to_dict(self) -> dict:
        d = asdict(self)
        head = {k: d.pop(k) for k in self.JSON_KEYS}
        return {**head, **d}


@dataclass
class PrecisionComparison:
    """The rows (F16 first), what they mean (:func:`speed_vs_bytes`), the quality details per
    precision, and where the files are."""

    rows: list[PrecisionRow]
    explanation: list[str]
    quality: dict[str, Any]
    settings: dict[str, Any]
    out: str
    report: str | None = None

    def to_dict(self) -> dict:
        return {"rows": [r.to_dict() for r in self.rows], "explanation": self.explanation,
                "quality": self.quality, "settings": self.settings, "out": self.out,
                "report": self.report}


# ---------------------------------------------------------------------------------------------
# What the numbers mean (pure)


def speed_vs_bytes(rows: list[PrecisionRow], cache_bytes: int | None = None) -> list[str]:
    """Sentences that compare each quantized row with the first (F16): how many times fewer
    bytes per token it reads, how many times faster it generated — as the client measured it
    and as llama.cpp timed its own decode — and how closely speed followed bytes
    (``log(speed ratio) / log(bytes ratio)``: 100 % = speed grew exactly as bytes shrank, 0 % =
    not at all); what the server around llama.cpp adds per token; and, with ``cache_bytes``
    (the CPU's last-level cache), whether the weights fit in it — then they are read from the
    cache, not from memory, and bytes bound the speed only loosely. Pure."""
    if not rows:
        return []
    ref = rows[0]
    out = []
    if cache_bytes and max(r.file_bytes for r in rows) <= cache_bytes:
        out.append(f"Every file fits in this CPU's last-level cache ({fmt_bytes(cache_bytes)}): "
                   "decoding reads the weights from the cache, not from memory, so the "
                   "bytes per token bound the speed only loosely here; a model larger than the "
                   "cache (or a GPU reading HBM) follows them more closely.")
    if ref.generation_tok_s and ref.engine_decode_tok_s:
        extra = 1000 / ref.generation_tok_s - 1000 / ref.engine_decode_tok_s
        out.append(f"The HTTP server and Python around llama.cpp add {extra:.2f} ms per token "
                   f"({ref.precision}: {1000 / ref.engine_decode_tok_s:.2f} ms in llama.cpp, "
                   f"{1000 / ref.generation_tok_s:.2f} ms seen by the client).")
    for r in rows[1:]:
        if not r.file_bytes or not ref.file_bytes:
            continue
        fewer = ref.file_bytes / r.file_bytes
        parts = [f"{r.precision} reads {fewer:.2f}x fewer bytes per token than {ref.precision}"]
        for what, a, b in (("the client measured", ref.generation_tok_s, r.generation_tok_s),
                           ("llama.cpp timed its own decode", ref.engine_decode_tok_s,
                            r.engine_decode_tok_s)):
            if a and b:
                faster = b / a
                share = math.log(faster) / math.log(fewer) if fewer > 1 and faster > 0 else None
                follow = f" (speed followed bytes {share:.0%})" if share is not None else ""
                parts.append(f"{what} {faster:.2f}x the speed{follow}")
        out.append("; ".join(parts) + ".")
    buf = [r.model_buffer_bytes for r in rows]
    if all(buf):
        out.append("Weights in memory, as llama.cpp accounts them: " + ", ".join(
            f"{r.precision} {fmt_bytes(r.model_buffer_bytes)}" for r in rows) + ".")
    rss = [r.peak_rss_bytes for r in rows]
    if all(rss):
        line = ("Peak resident memory of the server: " + ", ".join(
            f"{r.precision} {fmt_bytes(r.peak_rss_bytes)}" for r in rows)
            + f" — the weights are {', '.join(fmt_bytes(r.file_bytes) for r in rows)} "
            "of it; the rest is the Python server, llama.cpp's buffers and the KV cache.")
        order_rss = sorted(range(len(rows)), key=lambda i: rss[i])
        order_file = sorted(range(len(rows)), key=lambda i: rows[i].file_bytes)
        if order_rss != order_file:
            line += (" The peaks are not in the files' order: the Python server's own memory "
                     "moves by a few MB from one start to the next, so differences smaller than "
                     "that do not show in the peak; the line above does.")
        out.append(line)
    return out


def meaning() -> list[str]:
    """What each column means (for the terminal and the HTML report)."""
    return [
        "file MB: the GGUF file (MB = 10⁶ bytes); decoding reads every weight once per token, so this is the "
        "bytes read per token (plus the KV cache, tiny here).",
        "peak RSS: the server process's peak resident memory (VmHWM), weights read into "
        "memory (--use_mmap False) so each byte counts once; it also holds the Python server, "
        "whose heap moves by a few MB between starts.",
        "weights in memory: llama.cpp's own account of the buffers holding the weights (its log's "
        "model buffer lines; Q4_K is re-laid out for the CPU into a second, repacked buffer).",
        "TTFT and gen. tok/s: medians of a single stream; gen. tok/s = 1/TPOT, the decode "
        "speed the client saw. engine tok/s: llama.cpp's own decode time from its log.",
        "output tok/s at concurrency: llama-cpp-python serves one request at a time (the "
        "others queue), so it does not rise above the single-stream speed; TTFT grows with "
        "the queue.",
        "agreement: equal greedy tokens at equal positions against F16 (F16 against a second "
        "pass of itself: 1.0 means decoding is deterministic); first div.: the median position "
        "of the first different token; |Δlogprob|: how far the probability the model gives "
        "F16's tokens moved, teacher-forced (0 for identical weights).",
    ]


# ---------------------------------------------------------------------------------------------
# The files


def make_ggufs(model_dir: str | Path, python: str | Path, dest: str | Path,
               progress: Progress) -> dict[str, Path]:
    """The model as ``model-f16.gguf`` (written by tokcheck) and ``model-q8_0.gguf``,
    ``model-q4_k_m.gguf`` (llama.cpp's quantizer, its per-tensor log beside each) in ``dest``.

    Raises:
        TokcheckError: the conversion or a quantization failed.
    """
    from tokcheck.engines.gguf_convert import write_llama_gguf
    from tokcheck.engines.llama_cpp import quantize_gguf

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    files = {"F16": dest / "model-f16.gguf"}
    write_llama_gguf(model_dir, files["F16"], "F16")
    progress(f"  F16: {files['F16']} ({files['F16'].stat().st_size:,} bytes, written by tokcheck)")
    for q in PRECISIONS[1:]:
        files[q] = dest / f"model-{q.lower()}.gguf"
        res = quantize_gguf(python, files["F16"], files[q], q,
                            log_path=dest / f"quantize-{q.lower()}.log")
        progress(f"  {q}: {files[q]} ({res['out_bytes']:,} bytes, llama.cpp's quantizer, "
                 f"{res['seconds']:.2f} s)")
    return files


# ---------------------------------------------------------------------------------------------
# The run


def _log_since(path: Path, offset: int) -> str:
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace")


def _engine_decode_tok_s(log_text: str) -> float | None:
    from tokcheck.engines.llama_cpp_log import decode_timings

    rates = [n / (ms / 1000) for ms, n in decode_timings(log_text) if ms > 0 and n > 1]
    return statistics.median(rates) if rates else None


def _exact_lengths(run_dir: Path, output_len: int) -> bool:
    from tokcheck.record.store import read_requests

    reqs = [r for r in read_requests(run_dir) if r.ok]
    return bool(reqs) and all(r.n_out_tokenizer == output_len for r in reqs)


def compare_precisions(model_dir: str | Path, out: str | Path, *, python: str | Path,
                       input_len: int = 256, output_len: int = 128, concurrency: int = 4,
                       rounds: int = 3, threads: int = 1, batch_size: int = 512,
                       quality_tokens: int = 64, progress: Progress | None = None,
                       on_server: Callable[[str, Any], None] | None = None) -> PrecisionComparison:
    """Serve ``model_dir`` (a Hugging Face Llama directory with ``tokenizer.json``) as F16, Q8_0
    and Q4_K_M GGUF files on llama.cpp (``python``: the engine's environment), one after the
    other, and measure each (see the module doc). Run directories go to
    ``out/<precision>/{single,concurrency}``, the files to ``out/models``.

    ``on_server(precision, server)`` is called while each server runs (e.g. to print its
    engine report).

    Raises:
        TokcheckError: a conversion, a start, a bench or a quality request failed.
    """
    from tokcheck.analysis.quality import (TEXT_PROMPTS, compare_greedy, forced_logprobs,
                                           greedy_outputs)
    from tokcheck.engines.base import ServeSettings
    from tokcheck.engines.lifecycle import serve
    from tokcheck.engines.llama_cpp import check_tokenizer
    from tokcheck.engines.llama_cpp_log import model_buffer_bytes, prompt_token_counts
    from tokcheck.flows.pipeline import bench_served
    from tokcheck.machine.doctor import environment_report
    from tokcheck.machine.weights import audit_model_dir

    say = progress or (lambda line: None)
    out = Path(out)
    files = make_ggufs(model_dir, python, out / "models", say)
    environment = environment_report()
    rows: list[PrecisionRow] = []
    quality: dict[str, Any] = {}
    ref = None
    for prec in PRECISIONS:
        path = files[prec]
        audit = audit_model_dir(path)
        say(f"{prec}: {audit.verdict}"
            f" ({audit.method or audit.precision}), {audit.bits_per_weight} bits per weight,"
            f" tensor types {audit.tensors_by_dtype}")
        settings = ServeSettings(
            model=str(path), engine="llama.cpp", python=str(python),
            max_model_len=max(2048, input_len + output_len + 8), threads=threads,
            batch_size=batch_size, served_model_name="tiny-llama",
            log_dir=str(out / prec.lower() / "server"), startup_timeout_s=300)
        with serve(settings, progress=say) as server:
            if on_server is not None:
                on_server(prec, server)
            tok = check_tokenizer(server.url, model_dir)
            say(f"  tokenizer: {tok['identical']}/{tok['texts']} texts tokenized exactly as "
                "tokenizer.json does")
            dirs = {}
            decode = None
            prompt_counts: list[int] = []
            for name, levels in (("single", [1]), ("concurrency", [concurrency])):
                run_dir = out / prec.lower() / name
                say(f"  bench {name}: concurrency {levels[0]}, {input_len} tokens in / "
                    f"{output_len} out, {rounds} rounds → {run_dir}")
                log_before = server.log_path.stat().st_size
                bench_served(server, run_dir, model_dir=model_dir, input_len=input_len,
                             output_len=output_len, concurrency=levels, rounds=rounds,
                             environment=environment)
                dirs[name] = str(run_dir)
                bench_log = _log_since(server.log_path, log_before)
                prompt_counts += prompt_token_counts(bench_log)
                if name == "single":
                    decode = _engine_decode_tok_s(bench_log)
            say(f"  quality: greedy, {len(TEXT_PROMPTS)} prompts × {quality_tokens} tokens")
            outputs = greedy_outputs(server.url, "tiny-llama", max_tokens=quality_tokens,
                                     extra=server.request_fields)
            if ref is None:
                ref = outputs
                outputs = greedy_outputs(server.url, "tiny-llama", max_tokens=quality_tokens,
                                         extra=server.request_fields)
            forced = forced_logprobs(server.url, "tiny-llama", ref, model_dir,
                                     extra=server.request_fields)
            q = compare_greedy(ref, outputs, forced)
            quality[prec] = q
            rss = server.peak_rss_bytes()
            buffers = model_buffer_bytes(server.log_path.read_text(errors="replace"))
        from tokcheck.record.store import load_run

        single = load_run(dirs["single"]).levels[0]
        conc = load_run(dirs["concurrency"]).levels[0]
        rows.append(PrecisionRow(
            precision=prec, file=str(path), file_bytes=path.stat().st_size,
            bits_per_weight=audit.bits_per_weight, verdict=audit.verdict, peak_rss_bytes=rss,
            ttft_ms=single.figure("ttft_ms").value,
            generation_tok_s=single.figure("generation_tok_s").value,
            output_throughput_tok_s=conc.figure("output_throughput_tok_s").value,
            token_agreement=q["mean_token_agreement"],
            first_divergence=q["median_first_divergence"],
            mean_abs_logprob_diff=q["mean_abs_logprob_diff"], engine_decode_tok_s=decode,
            model_buffer_bytes=buffers,
            tokenizer_identical=tok["identical"] == tok["texts"],
            exact_output_len=all(_exact_lengths(Path(d), output_len) for d in dirs.values()),
            server_prompt_tokens=sorted(set(prompt_counts)),
            tensor_types=dict(audit.tensors_by_dtype), run_dirs=dirs))
    settings_used = {"engine": "llama.cpp", "threads": threads, "batch_size": batch_size,
                     "input_len": input_len, "output_len": output_len,
                     "concurrency": concurrency, "rounds": rounds,
                     "quality_prompts": len(TEXT_PROMPTS), "quality_tokens": quality_tokens}
    return PrecisionComparison(rows=rows, explanation=speed_vs_bytes(rows, last_level_cache_bytes()),
                               quality=quality, settings=settings_used, out=str(out))


def last_level_cache_bytes() -> int | None:
    """Size of the CPU's largest cache (Linux sysfs ``cpu0/cache/index*/size``, e.g.
    ``491520K``), None where unreadable."""
    sizes = []
    for d in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (d / "size").read_text().strip()
        except OSError:
            continue
        unit = {"K": 1024, "M": 2**20, "G": 2**30}.get(text[-1:].upper(), 1)
        digits = text[:-1] if text[-1:].isalpha() else text
        if digits.isdigit():
            sizes.append(int(digits) * unit)
    return max(sizes) if sizes else None


def check_rows(rows: list[PrecisionRow], input_len: int | None = None) -> None:
    """Raise if a row lacks what the comparison rests on (used by the demo before it prints).

    Raises:
        TokcheckError: a precision whose tokenizer differs, whose server counted other prompt
            lengths than ``input_len``, or whose outputs were not of the exact length asked for
            (its speed would not compare).
    """
    for r in rows:
        if input_len is not None and r.server_prompt_tokens and \
                r.server_prompt_tokens != [input_len]:
            raise TokcheckError(f"the {r.precision} server counted prompts of "
                                f"{r.server_prompt_tokens} tokens, not {input_len}")
        if r.tokenizer_identical is False:
            raise TokcheckError(f"the {r.precision} server tokenizes differently from "
                                "tokenizer.json: its token counts cannot be trusted")
        if r.exact_output_len is False:
            raise TokcheckError(f"the {r.precision} server did not return exactly the asked "
                                "number of output tokens")

