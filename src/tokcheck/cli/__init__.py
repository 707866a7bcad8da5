"""Thin command line: arguments → one library call → rendering.

Each sub-command is a module in this package with ``add_parser(subparsers)``; the parser it
adds sets ``func`` (called with the parsed ``argparse.Namespace``, returns an exit code).
Command modules import heavy libraries inside ``func`` only, so ``tokcheck --help`` stays
instant. User errors (:class:`tokcheck.errors.TokcheckError`) print one line and exit 1;
tracebacks only with ``--debug``. Local variables are never printed (they can hold API keys).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tokcheck import __version__
from tokcheck.errors import TokcheckError

# Sub-command modules, in the order `tokcheck --help` lists them.
COMMANDS: tuple[str, ...] = (
    "claim", "bound", "bench", "probe", "inspect", "serve", "demo", "tiny_model", "doctor",
    "verify", "compare", "sweep", "report", "reproduce", "receipt",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 1, like every other user error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(1, f"Error: {' '.join(message.split())} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tokcheck",
        description="Judge, reproduce and explain LLM inference speed claims (tok/s).",
    )
    parser.add_argument("--version", action="version", version=f"tokcheck {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tokcheck.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except TokcheckError as err:  # raised by an option's type= parser (tokcheck.core.units)
        print(f"Error: {err}", file=sys.stderr)
        return 1
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except TokcheckError as err:
        if args.debug:
            raise
        print(f"Error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("Interrupted.", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
