"""An engine that tokcheck starts never outlives it (real processes, no engine needed): the
parent-death signal reaches a child when its parent is SIGKILLed, and the reaper stops a whole
process group that ignores SIGTERM once the process that started it is gone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from procs import alive, group_members, kill_group, wait_gone

# A middle process (standing in for tokcheck) starts an "engine" as tokcheck does and prints
# the engine's pid; the test then SIGKILLs the middle process.
MIDDLE = r"""
import subprocess, sys, time
from tokcheck.engines.process import GroupReaper, die_with_parent
engine_code = sys.argv[1]
use_reaper = sys.argv[2] == "reaper"
engine = subprocess.Popen([sys.executable, "-c", engine_code], start_new_session=True,
                          preexec_fn=die_with_parent())
if use_reaper:
    reaper = GroupReaper(engine.pid, 1.0)
print(engine.pid, flush=True)
time.sleep(120)
"""
# An engine that, like vLLM during its start-up, ignores SIGTERM and has a child of its own.
STUBBORN = r"""
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
time.sleep(120)
"""
OBEDIENT = "import time; time.sleep(120)"


def run_middle(engine_code: str, mode: str) -> tuple[subprocess.Popen, int]:
    middle = subprocess.Popen([sys.executable, "-c", MIDDLE, engine_code, mode],
                              stdout=subprocess.PIPE, text=True)
    return middle, int(middle.stdout.readline())


def wait_members(pgid: int, n: int) -> list[int]:
    deadline = time.monotonic() + 20
    while len(group_members(pgid)) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    return group_members(pgid)


def test_parent_death_signal_stops_a_child_that_obeys_sigterm():
    middle, engine = run_middle(OBEDIENT, "plain")
    try:
        assert alive(engine)
        middle.kill()
        middle.wait()
        assert wait_gone([engine], 5) == []
    finally:
        kill_group(engine)


def test_reaper_stops_a_group_that_ignores_sigterm():
    middle, engine = run_middle(STUBBORN, "reaper")
    try:
        members = wait_members(engine, 2)
        assert len(members) == 2
        middle.kill()
        middle.wait()
        t0 = time.monotonic()
        assert wait_gone(members, 10) == []
        assert time.monotonic() - t0 < 5  # 1 s of grace, then SIGKILL
    finally:
        kill_group(engine)


def test_without_the_reaper_such_a_group_survives():
    """The case the reaper exists for: the parent-death signal alone is not enough."""
    middle, engine = run_middle(STUBBORN, "plain")
    try:
        members = wait_members(engine, 2)
        middle.kill()
        middle.wait()
        time.sleep(1.5)
        assert all(alive(p) for p in members)
    finally:
        kill_group(engine)


def test_reaper_leaves_quietly_when_the_group_was_stopped():
    from tokcheck.engines.process import GroupReaper, stop_process_group

    engine = subprocess.Popen([sys.executable, "-c", OBEDIENT], start_new_session=True)
    reaper = GroupReaper(engine.pid, 1.0)
    stop_process_group(engine, 5)
    reaper.close()
    assert reaper.process.returncode == 0
    assert group_members(engine.pid) == []
    assert engine.returncode == -signal.SIGTERM
