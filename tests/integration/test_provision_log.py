"""An engine install as the terminal sees it: a few step lines, never pip's own output, which
goes whole into a log file whose path is said first. Real pip, offline: a wheel written here is
installed into a real virtualenv from a local folder."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tokcheck.engines.provision import MARKER_NAME, Step, VenvRecipe, ensure_venv
from tokcheck.errors import TokcheckError

DIST, VERSION = "tokcheck-probe-pkg", "1.0"


def _wheel(folder: Path) -> Path:
    """A minimal pure-Python wheel (PEP 427): a package, METADATA, WHEEL and a RECORD with hashes."""
    stem = DIST.replace("-", "_")
    files = {f"{stem}/__init__.py": b"VALUE = 42\n",
             f"{stem}-{VERSION}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {VERSION}\n".encode(),
             f"{stem}-{VERSION}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: tokcheck-tests\n"
                                                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{stem}-{VERSION}.dist-info/RECORD,,")
    files[f"{stem}-{VERSION}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / f"{stem}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKCHECK_CACHE", str(tmp_path / "cache"))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels)
    venv = tmp_path / "cache" / "venvs" / f"{DIST}-{VERSION}"
    # a real virtualenv with pip (ensurepip: offline), so the install step runs pip for real
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    code = f"import tokcheck_probe_pkg, importlib.metadata as m; print(m.version({DIST!r}))"
    return VenvRecipe(title="a probe package", label="probe", dist=DIST, version=VERSION,
                      verify_code=code, verify_what="import it", marker_key="probe",
                      pip_args=("--no-index", "--find-links", str(wheels)))


def test_install_says_steps_and_keeps_pip_output_in_the_log(recipe):
    lines: list[str] = []
    python = ensure_venv(recipe, progress=lines.append)
    assert python.name == "python"
    log = Path(lines[1].removeprefix("  full log: "))
    assert lines[0].startswith(f"Installing a probe package {VERSION} into ")
    assert lines[1] == f"  full log: {log}" and log.parent.name == "logs"
    assert [line for line in lines if isinstance(line, Step)] == [
        f"  [1/2] pip install {DIST}=={VERSION}", "  [2/2] verifying: import it"]
    assert lines[-1].startswith(f"probe {VERSION} ready in ") and lines[-1].endswith(f": {python}")
    assert len(lines) == 5
    text = log.read_text()
    assert f"Successfully installed {DIST}-{VERSION}" in text     # pip's own words: in the log only
    assert not any("Successfully installed" in line or "Processing" in line for line in lines)
    assert json.loads((python.parent.parent / MARKER_NAME).read_text())["install_log"] == str(log)


def test_a_failed_install_is_one_line_that_points_at_the_log(recipe):
    bad = VenvRecipe(**{**recipe.__dict__, "version": "2.0"})
    lines: list[str] = []
    with pytest.raises(TokcheckError) as err:
        ensure_venv(bad, progress=lines.append)
    msg = str(err.value)
    log = lines[1].removeprefix("  full log: ")
    assert msg.startswith(f"pip install {DIST}==2.0 failed (exit 1): ")
    assert msg.endswith(f"(full log: {log})") and "\n" not in msg
    assert "No matching distribution found" in Path(log).read_text()
