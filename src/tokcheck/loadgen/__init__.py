"""R4 load generation: exact-length prompts, the streaming recorder, schedules and the runner.

- :mod:`.prompts` — prompts of an exact token count in the model's tokenizer;
- :mod:`.recorder` — one HTTP/1.1 exchange on a raw asyncio protocol; only stamps
  ``time.perf_counter_ns()`` per read and keeps the raw bytes;
- :mod:`.wire` — HTTP/1.1 response framing, after the fact (pure);
- :mod:`.openai` — request bodies and the reading of OpenAI-style stream events (pure);
- :mod:`.schedule` — closed-loop and Poisson open-loop send times (pure);
- :mod:`.runner` — levels, rounds and warm-up on one event loop.
"""
