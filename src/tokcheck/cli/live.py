"""One live line for a long task in the terminal: the step it is at and the time elapsed.

Engine installs (:func:`tokcheck.engines.provision.ensure_venv`) say each step as a
:class:`~tokcheck.engines.provision.Step` line and everything else (where the full log is, the
result) as plain lines; pip's and the compiler's own output goes to the log file only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def live_steps(console: Any) -> Iterator[Callable[[str], None]]:
    """Yield ``say(line)`` for a long task's progress on ``console`` (a rich Console).

    On a terminal, a :class:`~tokcheck.engines.provision.Step` line becomes the text of one live
    line — spinner, step, time elapsed since the first step — that the next step replaces and
    that disappears when the block ends; other lines are printed above it and stay. Elsewhere
    (a pipe, a file, a test) every line is printed as it comes, so a log keeps the steps.
    """
    from tokcheck.engines.provision import Step

    def plain(line: str) -> None:
        console.print(line, highlight=False, markup=False)

    if not console.is_terminal:
        yield plain
        return

    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=console, transient=True)
    task: list[Any] = []

    def say(line: str) -> None:
        if isinstance(line, Step):
            text = line.strip()
            if task:
                bar.update(task[0], description=text)
            else:
                task.append(bar.add_task(text, total=None))
        else:
            plain(line)

    with bar:
        yield say
