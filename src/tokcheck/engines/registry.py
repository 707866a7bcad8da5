"""The engines tokcheck can start, by name: adding an engine is one module (a subclass of
:class:`tokcheck.engines.base.Engine`) and one entry in :data:`ENGINES`."""

from __future__ import annotations

from tokcheck.engines import llama_cpp, others, vllm
from tokcheck.engines.base import Engine, EngineReport, MetricNames
from tokcheck.errors import TokcheckError

#: every registered engine, in the order help texts list them
ENGINES: tuple[Engine, ...] = (vllm.VLLM(), llama_cpp.LlamaCpp())


def engine_names() -> list[str]:
    """The registered names, in :data:`ENGINES` order."""
    return [e.name for e in ENGINES]


def find_engine(name: str) -> Engine | None:
    """The engine called ``name`` (its name or an alias, any case), None when none is."""
    key = str(name).strip().lower()
    for e in ENGINES:
        if key == e.name or key in (a.lower() for a in e.aliases):
            return e
    return None


def get_engine(name: str | Engine) -> Engine:
    """The engine called ``name`` (name or alias, any case); an :class:`Engine` passes as it is.

    Raises:
        TokcheckError: no registered engine has that name (the message lists those that do).
    """
    if isinstance(name, Engine):
        return name
    found = find_engine(name)
    if found is None:
        raise TokcheckError(f"unknown engine {str(name)!r}: known engines are "
                            f"{', '.join(engine_names())}")
    return found


def engine_name(text: str) -> str:
    """An ``argparse`` ``type=`` for ``--engine``: the registered name for ``text``.

    Raises:
        TokcheckError: unknown engine (one line listing the known ones).
    """
    return get_engine(text).name


def engine_for_log(text: str) -> Engine | None:
    """The registered engine whose start-up lines (:attr:`Engine.log_marker`) ``text``
    contains, None when none does."""
    for e in ENGINES:
        if e.log_marker is not None and e.log_marker.search(text):
            return e
    return None


def read_startup_log(text: str) -> EngineReport | None:
    """The :class:`EngineReport` of a server log whose engine :func:`engine_for_log` finds;
    None when no registered engine's start-up lines are in it."""
    e = engine_for_log(text)
    return e.parse_startup_log(text) if e is not None else None


def metric_names(engine: str | Engine | None = None) -> MetricNames:
    """The ``/metrics`` names of ``engine`` (a registered engine, or one tokcheck reads but does
    not start: :data:`tokcheck.engines.others.METRICS`, e.g. ``"sglang"``); for None (a server
    whose engine is not known), every registered engine's in :data:`ENGINES` order, then the
    others'.

    Raises:
        TokcheckError: an unknown engine name.
    """
    if isinstance(engine, str) and engine.strip().lower() in others.METRICS:
        return others.METRICS[engine.strip().lower()]
    if engine is not None:
        return get_engine(engine).metrics
    names = MetricNames()
    for e in ENGINES:
        names = names.merged(e.metrics)
    for other in others.METRICS.values():
        names = names.merged(other)
    return names
