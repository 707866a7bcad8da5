#!/usr/bin/env bash
# The whole test suite, from a fresh clone: a virtualenv with tokcheck and its test extras,
# Debian's chromium for the report's browser check (when apt is at hand), then pytest.
# The end-to-end tests provision vLLM for the CPU in its own cached virtualenv themselves
# (~/.cache/tokcheck, 2 to 6 minutes and 2.5 GB the first time), and llama.cpp in another
# (llama-cpp-python compiled here with cmake and the C/C++ compiler: 6 to 14 minutes on two
# cores the first time, 170 MB); each install's full log goes to ~/.cache/tokcheck/logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test,fast,ray]'  # ray: the bench --ray tests run in CI
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "== installing Debian's chromium for the report's browser check"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "   (chromium could not be installed; the browser check will fail)"
fi
if ! command -v g++ >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  # llama-cpp-python compiles llama.cpp (cmake and ninja come from PyPI when absent).
  echo "== installing Debian's C/C++ compiler for the llama.cpp build"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null) \
    || echo "   (g++ could not be installed; the llama.cpp tests will fail to build it)"
fi
# pytest's exit 5 (no tests collected) is a failure here, as is every other non-zero exit.
exec .venv/bin/python -m pytest "$@"
