"""A catalog row's source as a user reads it."""

from tokcheck.core.catalog import gpus, models, readable_source


def test_search_handles_are_dropped_and_what_they_annotate_is_kept():
    assert readable_source("values' (rtp-llm test, find_string id 65933949810: same 355B shape), slime") == \
        "values' (rtp-llm test: same 355B shape), slime"
    assert readable_source("inventory (find_string id 62608729298: 46 files, 148.66 GB)") == "inventory (46 files, 148.66 GB)"
    assert readable_source("H200 datasheet; secondary pages agree (search: an H200 spec page)") == \
        "H200 datasheet; secondary pages agree"
    for row in (*models(), *gpus()):
        shown = readable_source(row.source)
        assert "find_string" not in shown and "search:" not in shown and shown
