#!/usr/bin/env bash
# Sets up, builds and runs every test (Catch2 through ctest, then pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build -j "$(nproc)" --output-on-failure --timeout 600
if compgen -G "tests/python/test_*.py" >/dev/null; then
  python3 -m pytest -q tests/python
fi
