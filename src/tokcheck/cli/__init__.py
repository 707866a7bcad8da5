"""Thin command line: arguments → one library call → rendering.

Each sub-command is a module in this package with ``add_parser(subparsers)``; the parser it
adds sets ``func`` (called with the parsed ``argparse.Namespace``, returns an exit code).
Command modules import heavy libraries inside ``func`` only, so ``tokcheck --help`` stays
instant. User errors (:class:`tokcheck.errors.TokcheckError`) print one line and exit 1;
tracebacks only with ``--debug``. Local variables are never printed (they can hold API keys).
A closed output pipe (``tokcheck bound … --json | head -1``) ends the command quietly with exit
code 141 (128 + SIGPIPE, what a shell reports for other tools cut off by ``head``).
"""

from __future__ import annotations

import argparse
import importlib
import os
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


#: Exit code after the reader of stdout went away: 128 + SIGPIPE (13), as a shell reports it.
EXIT_BROKEN_PIPE = 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of text nobody reads cannot
    raise again ("Exception ignored … BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass


def _rich_broken_pipe_raises() -> None:
    """rich ends the process itself on a closed pipe (exit 1, like a user error); make it raise
    instead, so every command ends the same way (:data:`EXIT_BROKEN_PIPE`)."""
    from rich.console import Console

    def on_broken_pipe(self: Console) -> None:
        raise BrokenPipeError("stdout closed")

    Console.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit code (0 ok, 1 user error, 130 interrupted, 141 when
    stdout's reader closed the pipe)."""
    _rich_broken_pipe_raises()
    try:
        code = _main(argv)
        sys.stdout.flush()  # a small output sits in the buffer until here: a closed pipe shows now
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _main(argv: list[str] | None) -> int:
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
