"""What a bench run against a server records about its surroundings, for every command that
benches (``bench``, ``demo``): the telemetry hooks (the server's ``/metrics``; GPU sampling when
the server is on this machine) and run.json's ``environment`` (the doctor's report: GPU, driver,
toolchain), the latter only for a local server, whose machine it describes."""

from __future__ import annotations

from typing import Any


def telemetry_for(url: str, *, environment: bool = True,
                  engine: str | None = None) -> tuple[list[Any], dict[str, Any]]:
    """``(hooks, conditions_extra)`` for :func:`tokcheck.loadgen.bench.run_bench` against ``url``.

    The hooks are new objects each call (one set per run). ``conditions_extra`` holds
    ``environment`` for a server on this machine, nothing otherwise; ``environment=False``
    skips it (it takes about 2 s: a caller with several runs builds it once). ``engine``: the
    server's engine when known (its ``/metrics`` names are read), None: any registered one."""
    from tokcheck.machine.telemetry import bench_hooks, server_is_local

    extra: dict[str, Any] = {}
    if environment and server_is_local(url):
        from tokcheck.machine.doctor import environment_report

        extra["environment"] = environment_report()
    return bench_hooks(url, engine=engine), extra
