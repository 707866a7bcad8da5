"""``tokcheck inspect MODEL_DIR [--json] [--server-log FILE]``: is it full precision?"""

from __future__ import annotations

import argparse
import json


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect",
        help="audit a model directory (and/or a server log): full precision or quantized?",
        description="Read config.json, every safetensors header and GGUF tensor type (no tensor "
                    "is loaded), flag quantization artifacts, and say whether the weights are full "
                    "precision (BF16/FP16/FP32) or quantized, with the reasons (GGUF: the file "
                    "type, bits per weight and tensor types); what is declared is checked "
                    "against what is stored. With --server-log, also read what the engine says "
                    "it loaded.")
    p.add_argument("model_dir", nargs="?", help="model directory (or one .safetensors/.gguf file)")
    p.add_argument("--server-log", metavar="FILE",
                   help="an engine's start-up log (vLLM, llama.cpp, SGLang; others by the "
                        "names of quantization methods)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tokcheck.errors import TokcheckError
    from tokcheck.machine.weights import audit_model_dir, audit_server_log, combine

    if not args.model_dir and not args.server_log:
        raise TokcheckError("give a model directory, --server-log FILE, or both")
    report = audit_model_dir(args.model_dir) if args.model_dir else None
    if args.server_log:
        path = Path(args.server_log).expanduser()
        try:
            text = path.read_text(errors="replace")
        except OSError as err:
            raise TokcheckError(f"cannot read server log {path}: {err.strerror}") from None
        log_report = audit_server_log(text, str(path))
        report = combine(report, log_report) if report else log_report
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        render(report)
    return 0


def render(report, console=None) -> None:
    """Print a weights audit for a terminal (rich); sizes in decimal units (``BYTES_BASE``)."""
    from rich.console import Console
    from rich.table import Table

    from tokcheck.core.units import fmt_bytes, fmt_count

    console = console or Console()
    style = {True: "bold green", False: "bold yellow", None: "bold"}[report.full_precision]
    title = report.verdict.upper()
    if report.full_precision and report.precision:
        title += f" ({report.precision})"
    elif report.full_precision is False and report.method:
        title += f" ({report.method})"
    console.print(f"[{style}]{title}[/]  {report.path}")
    if report.weight_files:
        t = Table(title="weight files", show_edge=False)
        t.add_column("file")
        t.add_column("format")
        t.add_column("size", justify="right")
        for f in report.weight_files:
            t.add_row(f.name, f.format, fmt_bytes(f.size_bytes))
        console.print(t)
    if report.bytes_by_dtype:
        t = Table(title="tensors by dtype", show_edge=False)
        t.add_column("dtype")
        t.add_column("parameters", justify="right")
        t.add_column("size", justify="right")
        for d, b in sorted(report.bytes_by_dtype.items(), key=lambda kv: -kv[1]):
            t.add_row(d, fmt_count(report.params_by_dtype.get(d, 0)), fmt_bytes(b))
        console.print(t)
        console.print(f"parameters: {fmt_count(report.parameter_count)}   weights: "
                      f"{fmt_bytes(report.weight_bytes)}   config dtype: "
                      f"{report.config_dtype or 'not stated'}", highlight=False)
    if report.kv_cache_dtype:
        console.print(f"KV cache dtype (engine): {report.kv_cache_dtype}")
    for r in report.reasons:
        console.print(f"  • {r}", highlight=False)
