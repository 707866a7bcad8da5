"""Inference engines tokcheck can start and read.

- :mod:`~tokcheck.engines.base`: what an engine must provide (:class:`~tokcheck.engines.base.Engine`),
  the settings to start one (``ServeSettings``), what its log says (``EngineReport``), its
  ``/metrics`` names (``MetricNames``);
- :mod:`~tokcheck.engines.registry`: the engines by name;
- :mod:`~tokcheck.engines.lifecycle`: start, readiness, log capture, stop — for every engine,
  on :mod:`~tokcheck.engines.process` (ports, process groups) and
  :mod:`~tokcheck.engines.reaper` (the watchdog);
- :mod:`~tokcheck.engines.provision`: each engine's cached virtual environment;
- the engines: :mod:`~tokcheck.engines.vllm` (log: :mod:`~tokcheck.engines.vllm_log`,
  :mod:`~tokcheck.engines.logparse`);
- :mod:`~tokcheck.engines.tinymodel`: the tiny Llama built locally to serve.
"""
