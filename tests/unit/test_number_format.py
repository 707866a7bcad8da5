"""One formatter for the numbers every message prints: bytes (decimal units, stated), counts
with thousands separators, rates without exponents; and where it is used."""

from __future__ import annotations

import math

import pytest

from tokcheck.core.units import BYTES_BASE, fmt_bytes, fmt_count, fmt_number, fmt_rate, fmt_yes_no


@pytest.mark.parametrize("x, text", [
    (28652.96, "28,653"), (448087.4, "448,087"), (5e6, "5,000,000"), (141.26, "141"), (99.96, "100"),
    (27.46, "27.5"), (10.0, "10"), (5.067, "5.07"), (1.0, "1"), (0.512, "0.512"), (0.00531, "0.00531"),
    (-3.2, "-3.2"), (0, "0"), (None, "n/a"), (math.nan, "n/a"), (math.inf, "∞"),
])
def test_numbers_never_print_an_exponent_or_too_many_digits(x, text):
    assert fmt_number(x) == text


def test_rates_and_counts():
    assert fmt_rate(28652.96) == "28,653 tok/s"
    assert fmt_rate(2.96, "req/s") == "2.96 req/s"
    assert fmt_rate(None) == "n/a"
    assert fmt_count(15986, "sequences") == "15,986 sequences"
    assert fmt_count(3_410_176) == "3,410,176"
    assert fmt_count(None) == "n/a"


@pytest.mark.parametrize("n, text", [
    (6_820_352, "6.82 MB"), (2.2e9, "2.20 GB"), (1.41e11, "141 GB"), (80 * 2**30, "85.9 GB"),
    (2048, "2,048 bytes"), (9_999, "9,999 bytes"), (10_000, "10.0 kB"), (999_700, "1.00 MB"),
    (1.5e12, "1.50 TB"), (None, "n/a"),
])
def test_bytes_are_decimal_and_say_so(n, text):
    assert fmt_bytes(n) == text
    assert "1 GB = 10⁹" in BYTES_BASE


def test_flags_read_yes_no_not_stated():
    assert [fmt_yes_no(v) for v in (True, False, None)] == ["yes", "no", "not stated"]
    assert fmt_yes_no(None, unknown="unknown") == "unknown"


def test_doctor_and_inspect_print_the_same_size_for_the_same_weights(tmp_path, tiny_tokenizer, capsys):
    """The same safetensors file: doctor's disk check and inspect's file table say the same
    decimal size (they printed 6.51 MiB and 6.8 MB before)."""
    import json

    import numpy as np
    from safetensors.numpy import save_file

    from tokcheck.cli import main

    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
        "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 2,
        "num_key_value_heads": 1, "vocab_size": 4096, "max_position_embeddings": 2048,
        "torch_dtype": "float16", "tie_word_embeddings": True}))
    save_file({"model.embed_tokens.weight": np.zeros((4096, 64), dtype=np.float16)},
              str(d / "model.safetensors"))
    (d / "tokenizer.json").write_text(tiny_tokenizer.read_text())
    assert main(["inspect", str(d)]) == 0
    inspect_out = capsys.readouterr().out
    assert main(["doctor", "--model", str(d), "--json"]) == 0
    doctor = json.loads(capsys.readouterr().out)
    disk = next(c for c in doctor["checklist"] if c["key"] == "disk_space")["evidence"]
    size = fmt_bytes((d / "model.safetensors").stat().st_size)
    assert size in inspect_out and size in disk
    assert "MiB" not in disk and "GiB" not in disk


def test_a_size_or_bandwidth_without_its_unit_is_refused_in_one_line():
    """A newcomer typed `bound --weights 120 --bandwidth 3.3TB/s` (120 bytes: a bound of 2.75e10
    tok/s) and `--bandwidth 3.3` (3.3 bytes/s): both now ask for the unit."""
    import pytest

    from tokcheck.core.units import parse_bandwidth, parse_bytes
    from tokcheck.errors import TokcheckError

    with pytest.raises(TokcheckError, match=r"^'120' has no unit and would be 120 bytes: give one \(e\.g\. 120GB\)$"):
        parse_bytes("120")
    with pytest.raises(TokcheckError, match=r"below any memory system \(1 GB/s\): give a unit \(e\.g\. 3\.3TB/s\)$"):
        parse_bandwidth("3.3")
    with pytest.raises(TokcheckError, match=r"below any memory system \(1 GB/s\): check the unit$"):
        parse_bandwidth("300MB/s")
    assert parse_bytes("120GB") == 120e9 and parse_bytes("6820352") == 6_820_352
    assert parse_bandwidth("3.3TB/s") == 3.3e12 and parse_bandwidth("64GB/s") == 64e9
