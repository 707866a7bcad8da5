"""Terminal rendering (rich) of bounds, memory budgets and claim analyses. Returns renderables;
only the CLI prints them."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from tokcheck.core.catalog import readable_source
from tokcheck.core.units import fmt_bytes, fmt_count, fmt_number, plain_number, sig3


def _plain(x) -> str:
    """A figure as the claim states it (ranges kept)."""
    return plain_number(x)


def gb(x: float | None) -> str:
    """Bytes in decimal units (1 GB = 10⁹ bytes), as every message prints them."""
    return fmt_bytes(x)


def tok_s(x: float | None) -> str:
    """A bound in tok/s to 3 significant digits (27.5 tok/s, 181 tok/s, 1,160 tok/s)."""
    return "n/a" if x is None else f"{sig3(x)} tok/s"


def _num(x: float | None) -> str:
    return "n/a" if x is None else sig3(x)


def _gb_num(x: float | None) -> str:
    """Bytes as a number of GB (10⁹ bytes) for a column headed GB: 569, 26.6, 0.00682."""
    return "n/a" if x is None else fmt_number(x / 1e9)


_VERDICT_STYLE = {"plausible": "bold green", "needs_explanation": "bold yellow", "implausible": "bold red",
                  "unknown": "bold"}


def bound_table(bound: dict, memory: dict | None, title: str = "Bound and memory") -> Table:
    t = Table(title=title, show_header=False, title_justify="left", box=None, pad_edge=False)
    t.add_column(style="dim")
    t.add_column()
    t.add_row("precision", bound["precision_detail"])
    t.add_row("context", f"{bound['context_tokens']:,} tokens in the KV cache")
    t.add_row("bytes per token", f"{gb(bound['bytes_per_token'])}  (weights {gb(bound['weights_bytes_per_token'])}, "
              f"KV {gb(bound['kv_bytes_per_token_read'])})")
    if bound.get("hard_tok_s") is None:
        t.add_row("bound", f"n/a — {bound.get('hard_tok_s_reason')}")
    else:
        tp = bound["tensor_parallel"]
        dev = f"{tp}× {bound['gpu']}" if tp > 1 else bound["gpu"]
        per = "per device" if str(bound.get("gpu") or "").startswith("CPU with") else "per GPU"
        t.add_row("device", f"{dev}, peak {_plain(bound['bandwidth_bytes_per_s'] / 1e12)} TB/s {per}")
        if bound.get("offload"):
            t.add_row("hard bound", f"{tok_s(bound['hard_tok_s'])}  (GPU reads + host-memory reads of the offloaded "
                      f"weights; {tok_s(bound.get('gpu_only_hard_tok_s'))} if all were on the GPU)")
            t.add_row("realistic bound", f"{tok_s(bound['realistic_tok_s'])}  (each memory at its achievable share)")
        else:
            t.add_row("hard bound", f"{tok_s(bound['hard_tok_s'])}  (peak bandwidth / bytes per token)")
            t.add_row("realistic bound", f"{tok_s(bound['realistic_tok_s'])}  ({bound['achievable_fraction']:.0%} of "
                      f"peak — {bound['achievable_source']})")
        if bound.get("tokens_per_step", 1) > 1:
            t.add_row("spec. decoding", f"{bound['tokens_per_step']:.2f} tokens per step")
        if bound.get("aggregate"):
            a = bound["aggregate"]
            t.add_row("aggregate bound", f"{tok_s(a['realistic_tok_s'])} realistic, {tok_s(a['hard_tok_s'])} hard at "
                      f"concurrency {a['concurrency']}")
    if memory:
        t.add_row("weights", gb(memory["weights_bytes"]))
        t.add_row("KV cache", f"{gb(memory['kv_bytes_per_token'])} per token × {memory['max_model_len']:,} × "
                  f"{memory['concurrency']} = {gb(memory['kv_cache_bytes'])}")
        if memory.get("fits") is None:
            t.add_row("fits", f"n/a — {memory.get('reason')}")
        else:
            style = "green" if memory["fits"] else "red"
            t.add_row("fits", Text(f"{'yes' if memory['fits'] else 'no'}: needs {gb(memory['required_bytes'])} "
                                   f"(incl. {gb(memory['overhead_bytes'])} overhead), has {gb(memory['available_bytes'])} "
                                   f"at gpu_memory_utilization {memory['gpu_memory_utilization']}", style=style))
            t.add_row("max sequences", f"{fmt_count(memory['max_concurrent_seqs'])} of {memory['max_model_len']:,} tokens")
            t.add_row("min tensor parallel", str(memory["min_tensor_parallel"] or "more than 64 GPUs"))
            if memory.get("max_seqs_by_max_model_len"):
                t.add_row("seqs by max_model_len", ", ".join(
                    f"{int(k):,} → {fmt_count(v)}" for k, v in memory["max_seqs_by_max_model_len"].items()))
    for note in bound.get("notes", []):
        t.add_row("note", note)
    return t


def options_table(options: list[dict], where: str | None = None) -> Group:
    """one row per precision with units in the headers, short enough for an 80-column terminal;
    what each precision risks follows as a list under the table (a table cell would wrap it word by
    word). ``where``: the GPUs the options are computed on ("2× H200"), said in the title."""
    t = Table(title="Precision options" + (f" on {where}" if where else ""), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              show_edge=False)
    t.add_column("precision", no_wrap=True)
    for head in ("weights\nGB", "per token\nGB", "hard\ntok/s", "realistic\ntok/s"):
        t.add_column(head, justify="right", no_wrap=True)
    t.add_column("fits", no_wrap=True)
    t.add_column("min\nTP", justify="right", no_wrap=True)
    risks = []
    for o in options:
        fits = "n/a" if o["fits"] is None else ("yes" if o["fits"] else "no")
        t.add_row(o["precision"], _gb_num(o["weights_bytes"]), _gb_num(o["bytes_per_token"]),
                  _num(o["hard_tok_s"]), _num(o["realistic_tok_s"]), fits, str(o["min_tensor_parallel"] or "n/a"))
        if o.get("risk"):
            risks.append((o["precision"], o["risk"]))
    parts: list = [t]
    if risks:
        parts.append(Text("What each precision risks:"))
        parts.append(_bullets([f"{p}: {r}" for p, r in risks]))
    return Group(*parts)


def readings_table(readings: list[dict]) -> Table:
    """One row per precision reading the claim was judged at (stated, released, BF16, what fits)."""
    t = Table(title="Precision readings", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("precision")
    counts = any(r.get("gpu_count") for r in readings)
    heads = ("weights\nGB",) + (("GPUs",) if counts else ()) + ("hard\ntok/s", "MBU")
    for head in heads:
        t.add_column(head, justify="right", no_wrap=True)
    t.add_column("fits", no_wrap=True)
    t.add_column("verdict", no_wrap=True)
    for r in readings:
        fits = "n/a" if r.get("fits") is None else ("yes" if r["fits"] else ("offload" if r.get("offload") else "no"))
        label = "released" if r["precision"].startswith("released") else r["precision"]
        n = ((fmt_count(r["gpu_count"]) if r.get("gpu_count") else "n/a"),) if counts else ()
        t.add_row(label, _gb_num(r.get("weights_bytes")), *n, _num(r.get("single_stream_hard_tok_s")),
                  "n/a" if r.get("mbu") is None else f"{r['mbu']:.0%}", fits, r["verdict"])
    return t


def requirements_table(req: dict) -> Group:
    """What a figure needs when no GPU is stated: bandwidth, memory, the smallest setups."""
    parts: list = []
    for p in req.get("by_precision") or []:
        bw = p.get("min_bandwidth_bytes_per_s")
        head = f"Requirements at {p['precision']}: {gb(p['min_memory_bytes'])} of memory"
        if bw:
            head += (f", ≥ {bw / 1e12:,.2f} TB/s of bandwidth per stream "
                     f"(≥ {p['bandwidth_for_plausible_bytes_per_s'] / 1e12:,.2f} TB/s within 90 % of peak)")
        parts.append(Text(head))
        if p.get("setups"):
            t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
            t.add_column("setup")
            t.add_column("hard\ntok/s", justify="right", no_wrap=True)
            t.add_column("realistic\ntok/s", justify="right", no_wrap=True)
            for s in p["setups"]:
                t.add_row(f"{s['count']}× {s['gpu']}", _num(s["hard_tok_s"]), _num(s["realistic_tok_s"]))
            parts.append(t)
        else:
            parts.append(Text("  no catalog setup of up to 8 GPUs reaches it", style="dim"))
    return Group(*parts)


def _bullets(lines: list[str], mark: str = "•", style: str = "") -> Table:
    """A list whose wrapped lines hang under the text, not under the bullet."""
    g = Table.grid(padding=(0, 1, 0, 0))
    g.add_column(no_wrap=True, style=style)
    g.add_column(style=style)
    for line in lines:
        g.add_row(f"  {mark}", line)
    return g


#: What each figure's metric is, in words (the reader's metric names: docs/claims-corpus.md).
METRIC_WORDS = {"ttft": "TTFT", "tpot": "TPOT (time per output token)", "e2e_latency": "E2E latency",
                "generation_tok_s": "generation speed (decode)", "e2e_tok_s": "E2E tok/s (TTFT included)",
                "aggregate_throughput": "throughput (all requests)", "prefill_tok_s": "prefill (prompt processing)"}
SCOPE_WORDS = {"request": "one stream", "user": "per user", "aggregate": "all requests", "gpu": "per GPU",
               "node": "per node"}
QUALIFIER_WORDS = {"up_to": "up to", "over": "over", "approx": "about", "under": "under"}


def figures_table(figures: list[dict]) -> Table:
    """Every figure the text states, with its role; the one judged is marked (the headline:
    docs/claims-corpus.md, "The headline figure")."""
    t = Table(title="Figures (▶ the one judged)", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              show_edge=False)
    for head in ("", "as written", "what it is", "of", "concurrency", "note"):
        t.add_column(head)
    for fig in figures:
        note = [QUALIFIER_WORDS.get(fig.get("qualifier") or "", "")]
        if fig.get("spec_decoding"):
            note.append("with speculative decoding")
        elif fig.get("spec_decoding") is False:
            note.append("without speculative decoding")
        t.add_row("▶" if fig.get("headline") else "", fig.get("words") or _plain(fig.get("value")),
                  METRIC_WORDS.get(fig.get("metric") or "", "not stated"),
                  SCOPE_WORDS.get(fig.get("scope") or "", "not stated"),
                  fmt_count(fig["concurrency"]) if fig.get("concurrency") else "",
                  ", ".join(x for x in note if x))
    return t


def claim_report(data: dict) -> Group:
    """The ``tokcheck claim`` report from :meth:`ClaimAnalysis.to_json` output."""
    parts = [Text(f"Claim: {data['claim']}", style="bold")]
    ft = Table(title="Fields", show_header=False, title_justify="left", box=None, pad_edge=False)
    ft.add_column(style="dim")
    ft.add_column()
    for k, v in data["fields"].items():
        ft.add_row(k, str(v))
    parts.append(ft)
    if len(data.get("figures") or []) > 1:
        parts.append(figures_table(data["figures"]))
    n = data["present_count"]
    parts.append(Text(f"Completeness: {n} of {n + len(data['missing'])} checklist facts present; missing: "
                      + (", ".join(data["missing"]) or "none")))
    if data["reference_only"]:
        parts.append(Text("→ fewer than five facts: a reference impression only, not a basis for capacity planning.",
                          style="yellow"))
    if data.get("model"):
        m = data["model"]
        moe = f", {m['experts']} experts, {m['experts_per_token']} active" if m.get("experts") else ""
        stated = ""
        if m.get("total_params_stated"):
            stated = (f" (card: {m['total_params_stated'] / 1e9:,.1f} B / {m['active_params_stated'] / 1e9:,.1f} B)")
        parts.append(Text(f"Model: {m['name']} — {m['layers']} layers{moe}; {m['total_params'] / 1e9:,.1f} B total, "
                          f"{m['active_params'] / 1e9:,.1f} B active per token{stated}"
                          f"{'; an estimate' if m.get('estimate') else ''}. Source: {readable_source(m['source'])} "
                          f"[checked: {m['checked']}]", style="dim"))
    if data.get("gpu"):
        g = data["gpu"]
        # Vendors quote HBM in binary units (an "80 GB" H100 has 80 GiB): both are shown.
        mem = ("memory n/a" if g["memory_bytes"] is None
               else f"{gb(g['memory_bytes'])} ({g['memory_bytes'] / 2 ** 30:,.0f} GiB)")
        parts.append(Text(f"GPU: {g['name']} — {mem}, {_plain(g['peak_bandwidth_bytes_per_s'] / 1e12)} TB/s peak. "
                          f"Source: {readable_source(g['source'])} [checked: {g['checked']}]", style="dim"))
    fp = data.get("full_precision")
    if fp and (fp.get("claim_says_full_precision") or not fp.get("released_differs")):
        parts.append(Text(f"Precision: {fp['meaning']}"))
    lay = data.get("layout") or {}
    if lay.get("why"):
        parts.append(Text(f"Layout: {lay['why']}"))
    if data.get("bound"):
        parts.append(bound_table(data["bound"], data.get("memory")))
    if data.get("offload"):
        o = data["offload"]
        parts.append(Text(f"Offload: {o['placement']}; {gb(o['gpu_bytes_per_token'])} per token from the GPU, "
                          f"{gb(o['host_bytes_per_token'])} from {o['host_memory']} "
                          f"({o['host_bandwidth_bytes_per_s'] / 1e9:,.1f} GB/s: {o['host_memory_why']}); "
                          f"bound 1 / (GPU bytes / GPU bandwidth + host bytes / host bandwidth) = {tok_s(o['hard_tok_s'])}"))
    if data.get("readings") and len(data["readings"]) > 1:
        parts.append(readings_table(data["readings"]))
    if data.get("requirements"):
        parts.append(requirements_table(data["requirements"]))
    if data.get("released_bound") and data["released_bound"].get("hard_tok_s") and \
            (data.get("full_precision") or {}).get("claim_says_full_precision"):
        rb = data["released_bound"]
        parts.append(Text(f"As released ({rb['precision_detail']}): {gb(rb['bytes_per_token'])} per token, "
                          f"{tok_s(rb['hard_tok_s'])} hard, {tok_s(rb['realistic_tok_s'])} realistic."))
    if data.get("reverse"):
        r = data["reverse"]
        v = data['fields'].get('value')
        parts.append(Text(f"Reverse: at {_plain(max(v) if isinstance(v, (list, tuple)) else v)} tok/s each token may read at most "
                          f"{gb(r['hard_bytes'])} (peak) or {gb(r['realistic_bytes'])} (realistic); the model's weights "
                          f"at this precision are {gb(r['weights_bytes_at_precision'])}."))
    if data.get("precision_options"):
        where = None
        if lay.get("gpu") and lay.get("gpu_count"):
            where = f"{lay['gpu_count']}× {lay['gpu']}"
        parts.append(options_table(data["precision_options"], where))
    mbu = data.get("mbu")
    if mbu:
        parts.append(Text(f"Bandwidth utilisation (MBU): {mbu['value']:.0%} of the hard bound — {mbu['band']}"))
    for c in data.get("consistency") or []:
        parts.append(Text(("consistent: " if c["ok"] else "inconsistent: ") + c["text"],
                          style="dim" if c["ok"] else "yellow"))
    parts.append(Text.assemble(("Verdict: ", "bold"), (data["verdict"], _VERDICT_STYLE.get(data["verdict"], "bold"))))
    if data["explanations"]:
        parts.append(_bullets(data["explanations"]))
    if data.get("notes"):
        parts.append(_bullets(data["notes"], mark="note:", style="dim"))
    return Group(*parts)
