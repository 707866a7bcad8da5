"""Catalog: every row has a source and a checked mark; loose names; config.json reading; the
parameter counts computed from each config agree with the model card."""

import json

import pytest

from tokcheck.core.architecture import active_params, kv_values_per_token, total_params
from tokcheck.core.catalog import find_gpu, find_model, gpus, model_from_config, models
from tokcheck.errors import TokcheckError

REQUIRED_GPUS = ["A100 40GB", "A100 80GB", "H100 SXM", "H100 PCIe", "H200", "H20", "B200", "L40S", "L4",
                 "RTX 3090", "RTX 4090", "RTX 5090", "RTX 6000 Ada", "RTX PRO 6000 Blackwell", "MI300X",
                 "MI325X", "M3 Max", "M3 Ultra"]
REQUIRED_MODELS = ["DeepSeek V4 Flash", "DeepSeek V3", "DeepSeek R1", "Qwen3-0.6B", "Qwen3-8B", "Qwen3-32B",
                   "Qwen3-30B-A3B", "Qwen3-235B-A22B", "Llama 3.1 8B", "Llama 3.1 70B", "Llama 3.1 405B",
                   "gpt-oss-20b", "gpt-oss-120b", "Mixtral 8x7B"]


def test_every_row_has_source_and_checked_mark():
    for g in gpus():
        assert g.source and g.checked in ("yes", "partly", "no"), g.name
        assert g.achievable_source and 0 < g.achievable_fraction <= 1, g.name
    for m in models():
        assert m.source and m.checked in ("yes", "partly", "no"), m.name


@pytest.mark.parametrize("name", REQUIRED_GPUS)
def test_required_gpus_present(name):
    assert find_gpu(name).peak_bandwidth_bytes_per_s > 0


@pytest.mark.parametrize("name", REQUIRED_MODELS)
def test_required_models_present(name):
    assert find_model(name).num_layers > 0


@pytest.mark.parametrize("query, expected", [
    ("H200 141GB", "H200"), ("4090", "RTX 4090"), ("rtx4090", "RTX 4090"), ("h100", "H100 SXM"),
    ("A100 40GB", "A100 40GB"), ("mi300x", "MI300X"), ("M3 Ultra", "Apple M3 Ultra"),
])
def test_gpu_names_match_loosely(query, expected):
    assert find_gpu(query).name == expected


@pytest.mark.parametrize("query, expected", [
    ("DeepSeek-V4-Flash", "DeepSeek V4 Flash"), ("deepseek v4 flash", "DeepSeek V4 Flash"),
    ("Qwen3-30B-A3B", "Qwen3-30B-A3B"), ("llama 3.1 8b", "Llama 3.1 8B"), ("openai/gpt-oss-120b", "gpt-oss-120b"),
])
def test_model_names_match_loosely(query, expected):
    assert find_model(query).name == expected


def test_unknown_gpu_is_one_line_error_with_nearest_names():
    with pytest.raises(TokcheckError) as err:
        find_gpu("H2000")
    msg = str(err.value)
    assert "\n" not in msg and "H200" in msg and "did you mean" in msg


def test_unknown_model_is_one_line_error_with_nearest_names():
    with pytest.raises(TokcheckError) as err:
        find_model("Qwen3-31B")
    assert "Qwen3-32B" in str(err.value)


def test_h200_datasheet_values():
    g = find_gpu("H200")
    assert g.peak_bandwidth_bytes_per_s == pytest.approx(4.8e12)
    assert g.memory_gb == pytest.approx(141)


# Parameter counts from the config fields vs the model card. DeepSeek V4 Flash's attention
# (compressed, with an indexer and hyper-connections) is estimated; the others are exact formulas.
@pytest.mark.parametrize("name", REQUIRED_MODELS)
def test_params_from_config_match_model_card(name):
    m = find_model(name)
    tol = 0.06 if m.estimate else 0.03
    assert total_params(m) == pytest.approx(m.total_params_stated, rel=tol)
    assert active_params(m) == pytest.approx(m.active_params_stated, rel=tol)


def test_moe_active_parameters_are_a_fraction_of_total():
    m = find_model("Qwen3-30B-A3B")
    assert total_params(m) == pytest.approx(30.5e9, rel=0.02)
    assert active_params(m) == pytest.approx(3.3e9, rel=0.03)
    assert m.num_experts == 128 and m.experts_per_token == 8 and m.moe_intermediate_size == 768


def test_deepseek_v4_flash_is_marked_as_estimate():
    m = find_model("DeepSeek V4 Flash")
    assert m.estimate and "estimate" in m.notes
    assert m.released_weights["experts"] == "MXFP4" and m.released_weights["default"] == "FP8"


def test_kv_values_per_token_llama_and_mla():
    assert kv_values_per_token(find_model("Llama 3.1 8B")) == 2 * 32 * 8 * 128
    assert kv_values_per_token(find_model("DeepSeek V3")) == 61 * (512 + 64)


def _write(tmp_path, cfg, name="config.json"):
    p = tmp_path / name
    p.write_text(json.dumps(cfg))
    return p


def test_model_from_config_tiny_llama_of_engines_md(tmp_path):
    # ENGINES.md: 4 layers, hidden 256, 4 heads / 2 KV heads, tied embeddings, vocab 4096, 3.4 M parameters.
    cfg = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 4096, "tie_word_embeddings": True,
           "torch_dtype": "bfloat16"}
    m = model_from_config(_write(tmp_path, cfg))
    assert total_params(m) == pytest.approx(3.4e6, rel=0.02)
    assert m.head_dim == 64 and kv_values_per_token(m) == 2 * 4 * 2 * 64
    # the directory form works too
    assert model_from_config(tmp_path).num_layers == 4


def test_model_from_config_reads_each_family(tmp_path):
    from importlib import resources

    folder = resources.files("tokcheck.core.catalog").joinpath("models")
    for item in folder.iterdir():
        entry = json.loads(item.read_text())
        m = model_from_config(_write(tmp_path, entry["config"], item.name))
        ref = find_model(entry["name"])
        assert total_params(m) == pytest.approx(total_params(ref), rel=1e-9), item.name


def test_gpt_oss_sliding_layers_from_layer_types():
    m = find_model("gpt-oss-120b")
    assert m.sliding_window == 128 and m.sliding_layers == 18


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", json.dumps({"model_type": "llama"})])
def test_bad_config_is_one_line_error(tmp_path, content):
    p = tmp_path / "config.json"
    p.write_text(content)
    with pytest.raises(TokcheckError) as err:
        model_from_config(p)
    assert "\n" not in str(err.value)


def test_missing_config_is_error(tmp_path):
    with pytest.raises(TokcheckError):
        model_from_config(tmp_path / "nope.json")
