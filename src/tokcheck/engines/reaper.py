"""A watchdog that stops an engine's process group once tokcheck is gone, however it went.

``python -m tokcheck.engines.reaper PGID GRACE_S`` reads its stdin — a pipe whose only writer
is the tokcheck that started the engine — until end of file, which comes when tokcheck closes
it after stopping the engine or when tokcheck dies (even by SIGKILL: the kernel closes its
descriptors). Then, if the group still runs, it sends SIGTERM, waits ``GRACE_S`` seconds and
SIGKILLs what is left.

Why a process of its own: the parent-death signal that tokcheck also sets
(:func:`tokcheck.engines.process.die_with_parent`) reaches only the API server, and vLLM 0.32.0
ignores SIGTERM in the middle of its start-up (measured on the CPU: it then finishes starting
and serves on, an orphan); a SIGKILL to the API server alone leaves its engine core running.
Only a signal to the whole group, with SIGKILL after a grace period, always works. The reaper
runs in a session of its own (a Ctrl-C or a kill of tokcheck's group does not reach it) and
needs only the standard library.
"""

from __future__ import annotations

import os
import signal
import sys


def main(argv: list[str]) -> int:
    from tokcheck.engines.process import stop_group

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pgid, grace_s = int(argv[0]), float(argv[1])
    while os.read(0, 4096):  # returns b"" at end of file
        pass
    if stop_group(pgid, grace_s):
        print(f"tokcheck reaper: tokcheck went away; stopped the engine's process group {pgid}",
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
