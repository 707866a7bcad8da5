"""The run record (``docs/run-directory.md``): :mod:`~tokcheck.record.schema` (typed models,
every field with its unit and clock), :mod:`~tokcheck.record.store` (the one writer and the one
reader, ``load_run``), :mod:`~tokcheck.record.level` (the ``Level`` type) and
:mod:`~tokcheck.record.summarize` (requests → per-level summary over the metric table)."""
