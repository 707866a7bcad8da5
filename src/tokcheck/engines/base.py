"""What an inference engine must provide for tokcheck to start it, read it and watch it.

An engine is a subclass of :class:`Engine` registered in :mod:`tokcheck.engines.registry`. The
generic lifecycle (:mod:`tokcheck.engines.lifecycle`: start without a shell, readiness wait, log
capture, stop by process group, the reaper) asks the engine only for what differs between
engines:

- its ``name``, ``aliases`` and ``display_name``;
- its environment's Python: :meth:`Engine.provision` (a cached virtual environment, see
  :mod:`tokcheck.engines.provision`) when the caller gives none;
- what the installed engine is: :meth:`Engine.probe` (I/O: its version, and whatever its command
  line depends on, e.g. vLLM's ``--help``), returning :class:`Installed`;
- its command line from explicit settings: :meth:`Engine.validate` and :meth:`Engine.argv`
  (pure), and :meth:`Engine.environment` (pure);
- when it is ready: :meth:`Engine.ready` (vLLM: ``/health``; others only ``/v1/models``);
- what its start-up log says: :meth:`Engine.parse_startup_log` → :class:`EngineReport`, one
  engine-neutral type; and why a start failed: :meth:`Engine.diagnose_failure` (one line);
- the names of its Prometheus ``/metrics`` (:class:`MetricNames`, data).

Engine facts (flags, log lines, metric names) are in ``docs/engines.md``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

Progress = Callable[[str], None]

# ---------------------------------------------------------------------------------------------
# Settings: how to start an engine


@dataclass
class ServeSettings:
    """How to start an engine, explicitly (nothing is left to an engine's defaults that decides
    precision). Units: ``max_model_len`` tokens (the context length: vLLM ``--max-model-len``,
    llama.cpp ``--n_ctx``); ``gpu_memory_utilization`` a fraction (on vLLM's CPU backend: of
    RAM); ``kv_cache_space_gib`` GiB (engines that size the KV cache in GiB: vLLM's CPU backend,
    ``VLLM_CPU_KVCACHE_SPACE``); times in seconds. ``None`` means "not passed": the engine's own
    default applies, except ``quantization``, where None means off (passed explicitly where the
    engine accepts it). An engine that has no use for a setting that is set raises
    :class:`~tokcheck.errors.TokcheckError` from :meth:`Engine.argv` rather than ignore it.
    """

    model: str  # a model directory, a hub id, or a model file (GGUF engines)
    engine: str = "vllm"  # a registered name or alias (tokcheck.engines.registry)
    python: str | None = None  # the engine's environment; None → Engine.provision()
    dtype: str = "bfloat16"
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    quantization: str | None = None
    host: str = "127.0.0.1"
    port: int | None = None  # None or 0: a free port
    served_model_name: str | None = None
    enforce_eager: bool = False  # no compilation / CUDA graphs
    threads: int | None = None  # CPU threads, for engines that take them (llama.cpp)
    batch_size: int | None = None  # prompt-processing batch in tokens (llama.cpp --n_batch)
    extra_args: list[str] = field(default_factory=list)  # passed to the engine as they are
    log_dir: str | None = None  # server.log goes here; None: runs/serve-<UTC time>
    kv_cache_space_gib: float | None = 1.0
    startup_timeout_s: float = 600.0
    stop_timeout_s: float = 20.0
    env: dict[str, str] = field(default_factory=dict)  # over the engine's own environment


@dataclass(frozen=True)
class Installed:
    """What :meth:`Engine.probe` learned of the engine in an environment before starting it:
    its ``version`` (None: unknown) and the text of its ``--help`` where the command line
    depends on it (empty: not read)."""

    version: str | None = None
    help_text: str = ""


# ---------------------------------------------------------------------------------------------
# The engine report: what an engine's start-up log says it loaded


@dataclass
class EngineReport:
    """What an engine's start-up log says about the running engine; None: the log does not say.

    One type for every engine; each engine's parser fills what its log states (vLLM's sources:
    :mod:`tokcheck.engines.vllm_log`). Sizes: ``max_seq_len`` and ``kv_cache_tokens`` in tokens,
    ``kv_cache_memory_gib`` GiB, ``bits_per_weight`` bits (GGUF files: the file's size over its
    parameters). Stored as run.json's ``engine_report`` (``docs/run-directory.md``).
    """

    engine: str | None = None  # registered engine name, e.g. "vllm"
    version: str | None = None
    model: str | None = None
    served_model_name: str | None = None
    architecture: str | None = None
    dtype: str | None = None  # "bfloat16", "float16", "float32"
    quantization: str | None = None  # "none" when the engine states it loaded no quantization
    quantization_config: str | None = None
    kv_cache_dtype: str | None = None
    speculative_config: str | None = None
    speculative_decoding: bool | None = None
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None
    enforce_eager: bool | None = None
    compilation_mode: str | None = None  # e.g. "NONE", "DYNAMO_TRACE_ONCE"
    cudagraph_mode: str | None = None  # e.g. "NONE", "FULL_AND_PIECEWISE"
    max_seq_len: int | None = None  # the context length the engine allows
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    device: str | None = None  # "cpu", "cuda"
    kv_cache_tokens: int | None = None
    kv_cache_memory_gib: float | None = None
    max_concurrency: float | None = None  # requests of max_concurrency_tokens each that fit
    max_concurrency_tokens: int | None = None
    seed: int | None = None
    non_default_args: dict | None = None
    file_type: str | None = None  # GGUF engines: the file's type, e.g. "Q4_K - Medium"
    bits_per_weight: float | None = None  # GGUF engines
    tensor_types: dict[str, int] | None = None  # GGUF engines: {"Q4_K": 24, "F32": 9}
    threads: int | None = None  # CPU threads the engine uses
    batch_size: int | None = None  # prompt-processing batch (tokens)
    layers_offloaded: int | None = None  # layers on the GPU (llama.cpp -ngl)
    layers_total: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# /metrics names: data of each engine

#: Counters tokcheck watches, by engine-neutral key (values are cumulative totals).
COUNTER_KEYS: tuple[str, ...] = (
    "generation_tokens", "prompt_tokens", "prefix_cache_queries", "prefix_cache_hits",
    "spec_decode_drafts", "spec_decode_draft_tokens", "spec_decode_accepted_tokens",
    "preemptions", "requests_finished",
)
#: Gauges tokcheck watches, by engine-neutral key.
GAUGE_KEYS: tuple[str, ...] = ("requests_running", "requests_waiting", "kv_cache_usage_fraction")


@dataclass(frozen=True)
class MetricNames:
    """An engine's Prometheus metric family names for each key of :data:`COUNTER_KEYS` and
    :data:`GAUGE_KEYS`, most current first (a server exports one of them). Counters are named
    as the parser names families: without ``_total``. A key an engine does not export is
    absent."""

    counters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    gauges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = (set(self.counters) - set(COUNTER_KEYS)) | (set(self.gauges) - set(GAUGE_KEYS))
        if unknown:
            raise ValueError(f"unknown metric keys {sorted(unknown)}")

    def merged(self, other: MetricNames) -> MetricNames:
        """These names, then ``other``'s (for a server whose engine is not known)."""

        def merge(a: Mapping[str, tuple[str, ...]], b: Mapping[str, tuple[str, ...]]):
            out = {k: tuple(v) for k, v in a.items()}
            for k, v in b.items():
                out[k] = out.get(k, ()) + tuple(n for n in v if n not in out.get(k, ()))
            return out

        return MetricNames(merge(self.counters, other.counters),
                           merge(self.gauges, other.gauges))


# ---------------------------------------------------------------------------------------------
# The engine


class Engine(ABC):
    """One inference engine tokcheck can start. Subclasses set the class attributes and
    implement the abstract methods; the lifecycle does the rest. The lifecycle only reads an
    instance: one object may serve several starts."""

    #: registered name (lowercase), stored as ``engine`` in run records
    name: ClassVar[str]
    #: other names users may type (matched case-insensitively)
    aliases: ClassVar[tuple[str, ...]] = ()
    #: the engine's name in messages
    display_name: ClassVar[str]
    #: distribution names the engine installs under (for :meth:`version`)
    distributions: ClassVar[tuple[str, ...]] = ()
    #: a line of its start-up log that only this engine prints (detects a log's engine)
    log_marker: ClassVar[re.Pattern[str] | None] = None
    #: its /metrics names (empty: it exports none)
    metrics: ClassVar[MetricNames] = MetricNames()
    #: GET this path answers 200 once the engine serves (see :meth:`ready`)
    readiness_path: ClassVar[str] = "/v1/models"
    #: seconds a starting engine gets to act on SIGTERM before SIGKILL (it serves nothing yet)
    startup_stop_timeout_s: ClassVar[float] = 3.0
    #: seconds the reaper lets an orphaned engine act on SIGTERM before SIGKILL
    reaper_grace_s: ClassVar[float] = 5.0

    # -- environment (I/O) --------------------------------------------------------------------

    @abstractmethod
    def provision(self, progress: Progress | None = None) -> Path:
        """The Python of the engine's cached environment, installed on first use.

        Raises:
            TokcheckError: the installation failed.
        """

    def probe(self, python: str, settings: ServeSettings) -> Installed:
        """What the engine installed in ``python``'s environment is (I/O, before the start).

        Raises:
            TokcheckError: the environment has no such engine.
        """
        return Installed(version=self.version(python))

    def version(self, python: str) -> str | None:
        """The engine's version in ``python``'s environment (package metadata), None when
        absent. Default: the distributions in :attr:`distributions`."""
        import subprocess

        code = ("import importlib.metadata as m, sys\n"
                "for d in sys.argv[1:]:\n"
                "    try: print(m.version(d)); break\n"
                "    except m.PackageNotFoundError: pass")
        try:
            res = subprocess.run([python, "-c", code, *self.distributions], capture_output=True,
                                 text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        out = res.stdout.strip()
        return out.splitlines()[-1] if res.returncode == 0 and out else None

    def resolve_model(self, model: str) -> str:
        """The model argument as the engine gets it: a local path made absolute, a hub id as it
        is. Default: an existing path is resolved, anything else passes.

        Raises:
            TokcheckError: a local path the engine cannot load.
        """
        p = Path(model).expanduser()
        return str(p.resolve()) if p.exists() else model

    # -- command line (pure) ------------------------------------------------------------------

    def validate(self, settings: ServeSettings) -> None:
        """Refuse settings this engine cannot honour, before anything is installed or started
        (:meth:`argv` refuses them too). Default: every setting is accepted.

        Raises:
            TokcheckError: a setting the engine has no use for, or a value it rejects.
        """

    @abstractmethod
    def argv(self, settings: ServeSettings, python: str, port: int,
             installed: Installed = Installed()) -> list[str]:
        """The engine's command line, a list (never passed through a shell), from explicit
        settings. ``settings.model`` is already resolved.

        Raises:
            TokcheckError: a setting this engine cannot honour.
        """

    def environment(self, settings: ServeSettings, inherited: Mapping[str, str]) -> dict[str, str]:
        """The engine's whole environment, from tokcheck's (``inherited``): the engine's own
        variables, then ``settings.env`` over them. An engine may also drop inherited variables
        that it would misread."""
        return {**inherited, **settings.env}

    def serve_notes(self, settings: ServeSettings, argv: list[str]) -> dict[str, Any]:
        """Engine-specific entries for run.json's ``serve`` section (e.g. how quantization was
        turned off). Default: none."""
        return {}

    # -- running ------------------------------------------------------------------------------

    def ready(self, client: Any, url: str) -> bool:
        """True once the engine at ``url`` serves (``client``: an ``httpx.Client``). Default:
        ``GET`` :attr:`readiness_path` answers 200. Network errors are the caller's."""
        return client.get(f"{url}{self.readiness_path}").status_code == 200

    # -- the log (pure) -----------------------------------------------------------------------

    @abstractmethod
    def parse_startup_log(self, text: str) -> EngineReport:
        """Read the engine's log (start-up part) into an :class:`EngineReport` with
        ``engine=self.name``; fields the log does not state are None. Never raises on odd text."""

    def diagnose_failure(self, log_text: str, *, model: str = "", port: int | None = None) -> str | None:
        """One line saying why the engine failed to start (out of memory with the fixes to try,
        a model it cannot load, a port in use, …), from its log; None when the log shows no
        cause (the lifecycle then quotes the log's last line)."""
        return None

    def complete_report(self, report: EngineReport, argv: list[str],
                        installed: Installed) -> EngineReport:
        """Fill what the start-up log does not state but the start does: the engine's version
        from :meth:`probe` (default), and whatever the command line fixes (llama.cpp's threads).
        Returns ``report``, completed in place (pure)."""
        if report.version is None:
            report.version = installed.version
        return report

    def request_fields(self, report: EngineReport, log_text: str) -> dict[str, Any]:
        """JSON fields every benchmark or quality request to this running engine carries beyond
        the OpenAI ones bench sends (llama.cpp: ``repeat_penalty`` 1.0 and a ``logit_bias``
        that keeps its end-of-generation tokens out, for exact output lengths). Default: none."""
        return {}

    def ready_line(self, report: EngineReport) -> str:
        """What the lifecycle says of the loaded engine once ready (after the name and URL)."""
        return f"dtype {report.dtype}, quantization {report.quantization}"
