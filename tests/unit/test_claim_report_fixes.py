"""What a new user hit with `tokcheck claim` / `bound` / `doctor` from a fresh clone: the report at
80 columns (and piped), a repeated note, the realistic bound's source, digits, numeric option
messages, and the doctor's checklist without a model. Through the real CLI in a subprocess where
the terminal width matters."""

import json
import subprocess
import sys

import pytest

from tokcheck.core.catalog import find_gpu, gpus
from tokcheck.cli import main
from tokcheck.machine.doctor import evaluate_checklist, gather_checklist_inputs
from tokcheck.core.units import sig3

README_CLAIM = "DeepSeek V4 Flash at 278 tok/s, full precision, no quantization"


def _run(*args, columns: int = 80):
    # stdout is a pipe here, as in `tokcheck claim … | less`; rich then uses COLUMNS (or 80)
    return subprocess.run([sys.executable, "-m", "tokcheck", *args], capture_output=True, text=True,
                          env={"COLUMNS": str(columns), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def readme_report_80() -> str:
    out = _run("claim", README_CLAIM, "--gpu", "H200")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_readme_claim_fits_80_columns_without_truncation(readme_report_80):
    lines = readme_report_80.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert "…" not in readme_report_80  # rich's ellipsis: a truncated header or cell


def test_precision_options_table_rows_stay_on_one_line(readme_report_80):
    text = readme_report_80
    assert "Precision options" in text
    for head in ("precision", "weights", "per token", "realistic", "tok/s", "min"):
        assert head in text
    rows = {line.split()[0]: line.split() for line in text.splitlines()
            if line.split() and not line.startswith(" ") and line.split()[0] in ("BF16", "FP8", "INT4")}
    # precision, weights GB, per-token GB, hard, realistic, fits, min TP: one line each; on the
    # 2 × H200 the released weights were sized to (each GPU reads half: 4.8 TB/s ÷ 13.3 GB = 361)
    assert rows["BF16"] == ["BF16", "569", "26.6", "362", "241", "no", "8"]
    assert len(rows["FP8"]) == 7 and len(rows["INT4"]) == 7
    # what each precision risks: a list under the table, each on its own line
    assert "What each precision risks:" in text
    assert any(line.strip().startswith("• BF16: baseline") for line in text.splitlines())


def test_verdict_bullets_hang_under_their_text(readme_report_80):
    lines = readme_report_80.splitlines()
    i = next(n for n, line in enumerate(lines) if line.lstrip().startswith("• 278 tok/s is"))
    assert lines[i + 1].startswith("    ") and not lines[i + 1].lstrip().startswith("•")


def test_unknown_model_is_said_once(capsys):
    assert main(["claim", "Foo-9000B at 50 tok/s", "--gpu", "H200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    said = [s for s in data["notes"] + data["explanations"] if "not in the" in s and "catalog" in s]
    assert len(said) == 1 and "--model-config" in said[0]
    out = _run("claim", "Foo-9000B at 50 tok/s", "--gpu", "H200")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("catalog") == 1


def test_unknown_model_with_weights_keeps_one_note(capsys):
    assert main(["claim", "Foo-9000B at 50 tok/s", "--gpu", "H200", "--weights", "20GB", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum("not in the built-in catalog" in s for s in data["notes"] + data["explanations"]) == 1
    assert data["verdict"] != "unknown"


def test_nvidia_realistic_bound_does_not_rest_on_flashmla():
    for g in gpus():
        assert "FlashMLA" not in g.achievable_source, g.name
    h200 = find_gpu("H200").achievable_source
    assert "4.3 TB/s" in h200 and "gpt-fast" in h200
    a100 = find_gpu("A100 80GB SXM").achievable_source
    assert "1,397 GB/s" in a100  # the CSV quotes the field: the comma stays in it


def test_dense_model_bound_names_its_evidence(capsys):
    assert main(["bound", "--model", "llama-3.1-8b", "--gpu", "H100", "--json"]) == 0
    src = json.loads(capsys.readouterr().out)["bound"]["achievable_source"]
    assert "gpt-fast" in src and "FlashMLA" not in src


@pytest.mark.parametrize("x, text", [(27.5, "27.5"), (27.4999, "27.5"), (145.2, "145"), (1157, "1,160"),
                                     (0.5123, "0.512"), (22.0, "22.0"), (9.996, "10.0")])
def test_sig3(x, text):
    assert sig3(x) == text


def test_bound_seed_example_shows_three_significant_digits():
    out = _run("bound", "--weights", "120GB", "--bandwidth", "3.3TB/s")
    assert out.returncode == 0, out.stderr
    assert "27.5 tok/s" in out.stdout and "22.0 tok/s" in out.stdout
    assert "28 tok/s" not in out.stdout


def test_verdict_text_uses_three_significant_digits(capsys):
    assert main(["claim", "single request 30 tok/s", "--weights", "120GB", "--bandwidth", "3.3TB/s", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("(27.5 tok/s" in e for e in data["explanations"]), data["explanations"]
    assert not any("27.49" in e or "1e+" in e for e in data["explanations"])


BOUND = ["bound", "--model", "qwen3-8b", "--gpu", "H100"]
CLAIM = ["claim", "Qwen3-8B at 50 tok/s", "--gpu", "H100"]


@pytest.mark.parametrize("args, message", [
    (BOUND + ["--context", "-5"], "--context must be a whole number of tokens, 0 or more"),
    (BOUND + ["--context", "abc"], "--context must be a whole number of tokens, 0 or more"),
    (BOUND + ["--context", "1.5"], "--context must be a whole number of tokens, 0 or more"),
    (BOUND + ["--max-model-len", "-3"], "--max-model-len must be a positive whole number of tokens"),
    (BOUND + ["--max-model-len", "0"], "--max-model-len must be a positive whole number of tokens"),
    (BOUND + ["--concurrency", "-1"], "--concurrency must be a positive whole number of requests"),
    (BOUND + ["--concurrency", "0"], "--concurrency must be a positive whole number of requests"),
    (BOUND + ["--concurrency", "x"], "--concurrency must be a positive whole number of requests"),
    (BOUND + ["--gpus", "0"], "--gpus must be a positive whole number of GPUs"),
    (BOUND + ["--gpus", "two"], "--gpus must be a positive whole number of GPUs"),
    (BOUND + ["--gpu-memory-utilization", "0"], "--gpu-memory-utilization must be a number above 0 and at most 1"),
    (BOUND + ["--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization must be a number above 0 and at most 1"),
    (BOUND + ["--gpu-memory-utilization", "x"], "--gpu-memory-utilization must be a number above 0 and at most 1"),
    (BOUND + ["--draft-tokens", "-1"], "--draft-tokens must be a whole number of tokens, 0 or more"),
    (BOUND + ["--draft-tokens", "2", "--acceptance-rate", "1.2"], "--acceptance-rate must be a number from 0 to 1"),
    (BOUND + ["--draft-tokens", "2", "--acceptance-rate", "-0.1"], "--acceptance-rate must be a number from 0 to 1"),
    (CLAIM + ["--input-len", "-1"], "--input-len must be a positive whole number of tokens"),
    (CLAIM + ["--output-len", "0"], "--output-len must be a positive whole number of tokens"),
    (CLAIM + ["--concurrency", "-4"], "--concurrency must be a positive whole number of requests"),
    (CLAIM + ["--gpus", "0"], "--gpus must be a positive whole number of GPUs"),
    (CLAIM + ["--max-model-len=-8k"], "--max-model-len must be a positive whole number of tokens"),
    (CLAIM + ["--gpu-memory-utilization", "-0.5"], "--gpu-memory-utilization must be a number above 0"),
    (CLAIM + ["--draft-tokens", "x"], "--draft-tokens must be a whole number of tokens, 0 or more"),
    (["doctor", "--rounds", "0"], "--rounds must be a positive whole number of rounds"),
    (["doctor", "--concurrency", "-2"], "--concurrency must be a positive whole number of requests"),
    (["doctor", "--max-model-len", "x"], "--max-model-len must be a positive whole number of tokens"),
    (["doctor", "--gpu-memory-utilization", "2"], "--gpu-memory-utilization must be a number above 0"),
])
def test_numeric_options_say_what_they_need(capsys, args, message):
    assert main(args) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"Error: {message}") and len(err.splitlines()) == 1, err


def test_context_zero_is_allowed_no_kv_read(capsys):
    assert main(BOUND + ["--context", "0", "--json"]) == 0
    bound = json.loads(capsys.readouterr().out)["bound"]
    assert bound["context_tokens"] == 0 and bound["kv_bytes_per_token_read"] == 0


def test_doctor_without_model_says_so_for_model_items():
    items = {c.key: c for c in evaluate_checklist(gather_checklist_inputs({}))}
    for key in ("disk_space", "memory_fit", "unquantized", "tokenizer"):
        assert items[key].status == "unknown" and items[key].evidence == "no --model given", key
    assert items["dtype"].status == "unknown"
    assert "no --model given" in items["dtype"].evidence
    assert "config.json" not in items["dtype"].evidence  # no config was read: it cannot "have no dtype"


def test_doctor_dtype_without_model_still_judges_explicitness():
    items = {c.key: c for c in evaluate_checklist(gather_checklist_inputs({}, dtype="bfloat16"))}
    assert items["dtype"].status == "pass" and "config.json" not in items["dtype"].evidence
    items = {c.key: c for c in evaluate_checklist(gather_checklist_inputs({}, dtype="auto"))}
    assert items["dtype"].status == "fail"
