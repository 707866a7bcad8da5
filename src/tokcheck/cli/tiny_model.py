"""``tokcheck tiny-model``: build (or reuse) the tiny Llama and print its directory.

The cache keeps one ``tiny-llama-<key>`` folder per build recipe (the key is a content hash),
so a glob over the cache can match several; this prints the one this tokcheck uses, for
``--model "$(tokcheck tiny-model)"``. Progress goes to stderr, the path alone to stdout.
"""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tiny-model",
        help="build (or reuse) the tiny Llama and print its directory",
        description="Print the directory of the tiny Llama that `tokcheck demo` serves (4 layers, "
                    "random BF16 weights, a locally trained tokenizer; no model hub), building "
                    "it first if the cache lacks it (this needs the vLLM environment: installed "
                    "on first use). Use it as --model \"$(tokcheck tiny-model)\".")
    p.add_argument("--python", metavar="PATH",
                   help="an environment with torch and transformers to build the weights "
                        "(default: the cached vLLM for the CPU)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.console import Console

    from tokcheck.cli.live import live_steps
    from tokcheck.engines.tinymodel import build_tiny_llama

    python = Path(args.python).expanduser() if args.python else None
    # the first use may install vLLM for the CPU (its torch builds the weights): one live line
    with live_steps(Console(stderr=True)) as say:
        model = build_tiny_llama(python=python, progress=say)
    print(model)
    return 0
