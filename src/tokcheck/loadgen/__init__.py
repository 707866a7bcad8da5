"""load generation: exact-length prompts, the streaming recorder, schedules and the runner.

- :mod:`.prompts` — prompts of an exact token count in the model's tokenizer;
- :mod:`.recorder` — one HTTP/1.1 exchange on a raw asyncio protocol; only stamps
  ``time.perf_counter_ns()`` per read and keeps the raw bytes;
- :mod:`.wire` — HTTP/1.1 response framing, after the fact (pure);
- :mod:`.openai` — request bodies and the reading of OpenAI-style stream events (pure);
- :mod:`.measure` — from a recorded exchange to a request record (tokens, metrics);
- :mod:`.measure_worker` — the process that measures and writes ``requests.jsonl`` off the
  event loop;
- :mod:`.schedule` — closed-loop and Poisson open-loop send times (pure);
- :mod:`.runner` — closed and open loops on one event loop.
"""
