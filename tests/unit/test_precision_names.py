"""Derived GGUF names and stated bit widths: each maps to the bits it really stores."""

import pytest

from tokcheck.core.precision import bytes_per_param, canonical_precision, gguf_base, is_quantized


@pytest.mark.parametrize("name, base, bits", [
    ("UD-Q2_K_XL", "Q2_K", 84 * 8 / 256),      # Q2_K: 84 bytes per 256 weights = 2.625 bits
    ("UD-IQ1_S", "IQ1_S", 50 * 8 / 256),       # IQ1_S: 50 bytes per 256 = 1.5625 bits
    ("UD-IQ3_XXS", "IQ3_XXS", 98 * 8 / 256),   # IQ3_XXS: 98 bytes per 256 = 3.0625 bits
    ("UD-TQ1_0", "TQ1_0", 54 * 8 / 256),       # TQ1_0: 54 bytes per 256 = 1.6875 bits
    ("UD-Q4_K_XL", "Q4_K", 144 * 8 / 256),     # Q4_K: 144 bytes per 256 = 4.5 bits
    ("IQ1_S_R4", "IQ1_S", 50 * 8 / 256),       # ik_llama.cpp repack: same blocks
    ("IQ3_K_R4", "IQ3_K", 110 * 8 / 256),      # ik_llama.cpp IQ3_K: 110 bytes per 256 = 3.4375 bits
])
def test_unsloth_dynamic_and_repacked_names_use_their_base_types_bits(name, base, bits):
    """Unsloth's UD- quants keep most tensors at the base type (a few wider): bounded at the base
    type's bits. ik_llama.cpp's _R4 repacks interleave rows of the same blocks."""
    assert canonical_precision(name) == base
    assert bytes_per_param(name) * 8 == pytest.approx(bits)
    assert gguf_base(name)[0] == base


@pytest.mark.parametrize("text, bits", [("2.5 bpw", 2.5), ("2.51bit", 2.51), ("1.58-bit", 1.58), ("4.5bpw", 4.5)])
def test_stated_bits_per_weight(text, bits):
    """EXL2's "2.5 bpw" and "2.51-bit" GGUF labels state the bits directly: 2.5 bpw = 0.3125 bytes."""
    assert bytes_per_param(text) == pytest.approx(bits / 8)
    assert is_quantized(canonical_precision(text))


def test_bare_q6_is_q6_k():
    """llama.cpp has one 6-bit type, Q6_K (210 bytes per 256 weights = 6.5625 bits)."""
    assert canonical_precision("Q6") == "Q6_K"
    assert bytes_per_param("Q6") * 8 == pytest.approx(6.5625)


def test_int_with_group():
    """INT4-g32: 4 bits + one 16-bit scale per 32 weights = 4.5 bits; INT4 is group 128 (4.125)."""
    assert bytes_per_param("INT4-g32") * 8 == pytest.approx(4.5)
    assert bytes_per_param("INT4") * 8 == pytest.approx(4.125)
